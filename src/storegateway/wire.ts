/**
 * The store-gateway's RPC contract (Cortex's StoreGateway.{Series,LabelNames,LabelValues}
 * over Strata's Transport). The querier names the blocks to query (Cortex's `__block_id`
 * hint) and the store-gateway answers which of them it queried, so the querier's
 * consistency check can retry the others elsewhere. Series travel with their chunks as
 * stored (binary encoding in this file), never as decoded samples.
 */
import type { WireMatcher } from '../ingester/index.js';
import type { BlockQueryStats, StoreSeries } from './block_api.js';

export const STORE_GATEWAY_SERIES = 'storegateway.Series';
export const STORE_GATEWAY_LABEL_NAMES = 'storegateway.LabelNames';
export const STORE_GATEWAY_LABEL_VALUES = 'storegateway.LabelValues';

/** `storegateway.Series`: the tenant (header `x-scope-orgid`) and the blocks to read. */
export interface StoreSeriesRequest {
  /** Inclusive ms. */
  start: number;
  end: number;
  matchers: WireMatcher[];
  /** Block ULIDs to query; blocks the store-gateway does not hold are left out of `queriedBlocks`. */
  blockIds: string[];
  /** Labels only, no chunks (series API). */
  skipChunks?: boolean;
}

export interface StoreLabelNamesRequest {
  start: number;
  end: number;
  matchers: WireMatcher[];
  blockIds: string[];
}

export interface StoreLabelValuesRequest extends StoreLabelNamesRequest {
  name: string;
}

/**
 * `storegateway.Series` answer (binary, see wire_codec.ts): the series merged across the
 * queried blocks, which requested blocks this store-gateway queried, and what it read.
 */
export interface StoreSeriesResponse {
  series: StoreSeries[];
  queriedBlocks: string[];
  stats: BlockQueryStats;
}

/** `storegateway.LabelNames` / `LabelValues` answer (JSON). */
export interface StoreLabelsResponse {
  /** Sorted label names or values. */
  values: string[];
  queriedBlocks: string[];
}
