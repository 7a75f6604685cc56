/**
 * The store-gateway's RPC server side: `storegateway.Series` (binary answer, wire_codec.ts),
 * `storegateway.LabelNames` and `storegateway.LabelValues` (JSON answers), each for the
 * tenant in `x-scope-orgid` and only over the requested blocks this instance holds. A
 * gateway that is not serving (starting, stopping) answers `unavailable`, so the querier
 * tries another replica.
 */
import { fromWireMatchers, jsonRequest, numberField, rpcTenant } from '../ingester/index.js';
import {
  PROTOBUF_CONTENT_TYPE,
  RpcError,
  jsonBody,
  type RpcRequest,
  type RpcResponse,
  type Transport,
} from '../runtime/index.js';
import type { BucketStores } from './bucket_stores.js';
import { toRpcError } from './errors.js';
import type { LabelsQuery, SeriesQuery } from './tenant_store.js';
import {
  STORE_GATEWAY_LABEL_NAMES,
  STORE_GATEWAY_LABEL_VALUES,
  STORE_GATEWAY_SERIES,
  type StoreLabelsResponse,
} from './wire.js';
import { encodeStoreSeriesResponse } from './wire_codec.js';

/** What the handlers need of the gateway. */
export interface StoreGatewayServer {
  readonly stores: BucketStores;
  /** Throws (an unavailable error) unless the gateway serves queries. */
  checkServing(): void;
}

export function registerStoreGatewayRpc(transport: Transport, gateway: StoreGatewayServer): void {
  const handle = (
    method: string,
    fn: (req: RpcRequest, signal: AbortSignal) => Promise<RpcResponse>,
  ): void =>
    transport.handle(method, async (req, signal) => {
      try {
        gateway.checkServing();
        return await fn(req, signal);
      } catch (err) {
        throw toRpcError(err);
      }
    });

  handle(STORE_GATEWAY_SERIES, async (req, signal) => {
    const tenant = rpcTenant(req);
    const body = jsonRequest(req);
    const q: SeriesQuery = {
      ...labelsQuery(body),
      ...(body['skipChunks'] === true ? { skipChunks: true } : {}),
    };
    const res = await gateway.stores.series(tenant, q, signal);
    return { body: encodeStoreSeriesResponse(res), contentType: PROTOBUF_CONTENT_TYPE };
  });

  handle(STORE_GATEWAY_LABEL_NAMES, async (req, signal) => {
    const tenant = rpcTenant(req);
    const res = await gateway.stores.labelNames(tenant, labelsQuery(jsonRequest(req)), signal);
    const answer: StoreLabelsResponse = { values: res.values, queriedBlocks: res.queriedBlocks };
    return jsonBody(answer);
  });

  handle(STORE_GATEWAY_LABEL_VALUES, async (req, signal) => {
    const tenant = rpcTenant(req);
    const body = jsonRequest(req);
    const name = body['name'];
    if (typeof name !== 'string' || name === '')
      throw new RpcError('invalid_argument', 'label values request needs a label name');
    const res = await gateway.stores.labelValues(tenant, { ...labelsQuery(body), name }, signal);
    const answer: StoreLabelsResponse = { values: res.values, queriedBlocks: res.queriedBlocks };
    return jsonBody(answer);
  });
}

function labelsQuery(body: Record<string, unknown>): LabelsQuery {
  const blockIds = body['blockIds'];
  if (!Array.isArray(blockIds) || !blockIds.every((b) => typeof b === 'string'))
    throw new RpcError('invalid_argument', 'blockIds must be a list of block ULIDs');
  return {
    start: numberField(body, 'start'),
    end: numberField(body, 'end'),
    matchers: fromWireMatchers(body['matchers'] ?? []),
    blockIds,
  };
}
