// How distributors and queriers call ingesters (Cortex's ingester client): one interface,
// so components can be tested against an in-process fake, and its implementation over the
// Env's Transport. Errors are the Transport's RpcErrors: an ingester's 4xx refusal arrives
// as `invalid_argument` (400) or `resource_exhausted` (429) with the ingester's message.
import {
  encodeWriteRequest,
  type MetricMetadata,
  type WriteRequestData,
} from '../distributor/index.js';
import type { Labels } from '../model/index.js';
import type { Transport } from '../runtime/index.js';
import { PROTOBUF_CONTENT_TYPE, jsonBody, parseJsonBody } from '../runtime/index.js';
import type { PushSource } from './push_types.js';
import { decodeSeriesChunks } from './wire_chunks.js';
import type { SeriesChunks } from '../tsdb/index.js';
import {
  INGESTER_ALL_USER_STATS,
  INGESTER_LABEL_NAMES,
  INGESTER_LABEL_VALUES,
  INGESTER_METRICS_FOR_LABEL_MATCHERS,
  INGESTER_METRICS_METADATA,
  INGESTER_PUSH,
  INGESTER_QUERY_STREAM,
  INGESTER_USER_STATS,
  PUSH_SOURCE_HEADER,
  TENANT_RPC_HEADER,
  decodeSeriesLabels,
  parseWireMetadata,
  type LabelNamesRequest,
  type LabelValuesRequest,
  type QueryRequest,
  type WireTenantStats,
  type WireUserStats,
} from './wire.js';

/**
 * What a distributor sends one ingester: the series of a decoded request it owns (by index)
 * and the metadata. It stays decoded until a transport needs bytes, so an ingester in the
 * same process appends it without an encode and a decode.
 */
export interface PushBatch {
  readonly data: WriteRequestData;
  readonly seriesIndexes: readonly number[];
  readonly metadata: readonly MetricMetadata[];
}

/** The batch as the uncompressed remote-write WriteRequest an `ingester.Push` call carries. */
export function encodePushBatch(batch: PushBatch): Uint8Array {
  return encodeWriteRequest(
    { ...batch.data, metadata: [...batch.metadata] },
    { seriesIndexes: batch.seriesIndexes, includeMetadata: batch.metadata.length > 0 },
  );
}

export interface IngesterCallOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
}

/** The calls a distributor or querier makes to one ingester, addressed by its ring address. */
export interface IngesterClient {
  /** Appends a batch for `tenant`. */
  push(
    addr: string,
    tenant: string,
    batch: PushBatch,
    source: PushSource,
    opts?: IngesterCallOptions,
  ): Promise<void>;
  queryStream(
    addr: string,
    tenant: string,
    req: QueryRequest,
    opts?: IngesterCallOptions,
  ): Promise<SeriesChunks[]>;
  /** Labels of the series matching `req` with a sample in its range (no samples moved). */
  seriesLabels(
    addr: string,
    tenant: string,
    req: QueryRequest,
    opts?: IngesterCallOptions,
  ): Promise<Labels[]>;
  labelNames(
    addr: string,
    tenant: string,
    req: LabelNamesRequest,
    opts?: IngesterCallOptions,
  ): Promise<string[]>;
  labelValues(
    addr: string,
    tenant: string,
    req: LabelValuesRequest,
    opts?: IngesterCallOptions,
  ): Promise<string[]>;
  userStats(addr: string, tenant: string, opts?: IngesterCallOptions): Promise<WireUserStats>;
  allUserStats(addr: string, opts?: IngesterCallOptions): Promise<WireTenantStats[]>;
  /** The tenant's metric metadata held by the ingester (Cortex MetricsMetadata). */
  metricsMetadata(
    addr: string,
    tenant: string,
    opts?: IngesterCallOptions,
  ): Promise<MetricMetadata[]>;
}

/** IngesterClient over the Transport (real: HTTP on the internal port; simulated: messages). */
export class TransportIngesterClient implements IngesterClient {
  constructor(private readonly transport: Transport) {}

  async push(
    addr: string,
    tenant: string,
    batch: PushBatch,
    source: PushSource,
    opts: IngesterCallOptions = {},
  ): Promise<void> {
    await this.transport.call(
      addr,
      {
        method: INGESTER_PUSH,
        body: encodePushBatch(batch),
        contentType: PROTOBUF_CONTENT_TYPE,
        headers: { [TENANT_RPC_HEADER]: tenant, [PUSH_SOURCE_HEADER]: source },
      },
      opts,
    );
  }

  async queryStream(
    addr: string,
    tenant: string,
    req: QueryRequest,
    opts: IngesterCallOptions = {},
  ): Promise<SeriesChunks[]> {
    const res = await this.transport.call(
      addr,
      { method: INGESTER_QUERY_STREAM, ...jsonBody(req), headers: { [TENANT_RPC_HEADER]: tenant } },
      opts,
    );
    return decodeSeriesChunks(res.body);
  }

  async seriesLabels(
    addr: string,
    tenant: string,
    req: QueryRequest,
    opts: IngesterCallOptions = {},
  ): Promise<Labels[]> {
    return decodeSeriesLabels(
      await this.json(INGESTER_METRICS_FOR_LABEL_MATCHERS, addr, tenant, req, opts),
    );
  }

  labelNames(
    addr: string,
    tenant: string,
    req: LabelNamesRequest,
    opts: IngesterCallOptions = {},
  ): Promise<string[]> {
    return this.json(INGESTER_LABEL_NAMES, addr, tenant, req, opts);
  }

  labelValues(
    addr: string,
    tenant: string,
    req: LabelValuesRequest,
    opts: IngesterCallOptions = {},
  ): Promise<string[]> {
    return this.json(INGESTER_LABEL_VALUES, addr, tenant, req, opts);
  }

  userStats(addr: string, tenant: string, opts: IngesterCallOptions = {}): Promise<WireUserStats> {
    return this.json(INGESTER_USER_STATS, addr, tenant, {}, opts);
  }

  allUserStats(addr: string, opts: IngesterCallOptions = {}): Promise<WireTenantStats[]> {
    return this.json(INGESTER_ALL_USER_STATS, addr, undefined, {}, opts);
  }

  async metricsMetadata(
    addr: string,
    tenant: string,
    opts: IngesterCallOptions = {},
  ): Promise<MetricMetadata[]> {
    return parseWireMetadata(await this.json(INGESTER_METRICS_METADATA, addr, tenant, {}, opts));
  }

  private async json<T>(
    method: string,
    addr: string,
    tenant: string | undefined,
    req: unknown,
    opts: IngesterCallOptions,
  ): Promise<T> {
    const res = await this.transport.call(
      addr,
      {
        method,
        ...jsonBody(req),
        ...(tenant === undefined ? {} : { headers: { [TENANT_RPC_HEADER]: tenant } }),
      },
      opts,
    );
    return parseJsonBody<T>(res);
  }
}
