// The ingester's RPC server side: decodes the requests of wire.ts, calls the Ingester, and
// encodes answers. Every refusal leaves as an RpcError with the code a caller maps to a
// status (invalid_argument → 400 for bad requests and partially rejected pushes).
import { DuplicateLabelError, Labels } from '../model/index.js';
import {
  DEFAULT_SERIES_LABELS_CACHE_ENTRIES,
  ProtoDecodeError,
  SeriesLabelsCache,
  cachedEntryOf,
  decodeWriteRequest,
  type MetricMetadata,
  type WriteRequestData,
} from '../distributor/index.js';
import {
  PROTOBUF_CONTENT_TYPE,
  RpcError,
  Slicer,
  jsonBody,
  type Clock,
  type RpcRequest,
  type RpcResponse,
  type Transport,
} from '../runtime/index.js';
import { HttpError } from '../server/index.js';
import type { Ingester } from './ingester.js';
import type { PushSeries, PushSource } from './push_types.js';
import type { PushBatch } from './client.js';
import { jsonRequest, numberField, optionalBooleanField, rpcTenant } from './rpc_request.js';
import { encodeSeriesChunks } from './wire_chunks.js';
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
  encodeSeriesLabels,
  fromWireMatchers,
  type WireTenantStats,
  type WireUserStats,
} from './wire.js';

const EMPTY = new Uint8Array(0);

/** Registers the six `ingester.*` methods on the transport. */
export function registerIngesterRpc(
  transport: Transport,
  ingester: Ingester,
  /** Paces writing large select answers on the event loop (see `Slicer`). */
  clock: Clock,
  labelsCacheEntries = DEFAULT_SERIES_LABELS_CACHE_ENTRIES,
): void {
  // Distributors send the same series every push, byte for byte: decoded through this cache,
  // a series gets the label array, hence the Labels (see toPushSeries), of its last push, so
  // its labels are neither decoded, checked nor hashed again and the head finds its series
  // by the Labels' hint. One cache per ingester; its entries are a function of their bytes.
  const labelsCache =
    labelsCacheEntries > 0 ? new SeriesLabelsCache({ maxEntries: labelsCacheEntries }) : undefined;
  transport.handle(INGESTER_PUSH, async (req) => {
    const tenant = rpcTenant(req);
    const sourceHeader = req.headers?.[PUSH_SOURCE_HEADER] ?? 'api';
    if (sourceHeader !== 'api' && sourceHeader !== 'rule')
      throw new RpcError(
        'invalid_argument',
        `bad ${PUSH_SOURCE_HEADER} header ${JSON.stringify(sourceHeader)}: want api or rule`,
      );
    let data: WriteRequestData;
    try {
      data = decodeWriteRequest(req.body, labelsCache);
    } catch (err) {
      if (err instanceof ProtoDecodeError)
        throw new RpcError('invalid_argument', `failed to decode write request: ${err.message}`);
      throw err;
    }
    await pushOrThrow(
      ingester,
      tenant,
      toPushSeries(data, undefined, tenant),
      sourceHeader,
      data.metadata,
    );
    return { body: EMPTY, contentType: PROTOBUF_CONTENT_TYPE };
  });

  /** The tenant and the `{start, end, matchers, sortSeries}` of a series request (QueryRequest). */
  const seriesRequest = (req: RpcRequest) => {
    const q = jsonRequest(req);
    return {
      tenant: rpcTenant(req),
      start: numberField(q, 'start'),
      end: numberField(q, 'end'),
      matchers: fromWireMatchers(q['matchers']),
      sorted: optionalBooleanField(q, 'sortSeries') !== false,
    };
  };

  transport.handle(INGESTER_QUERY_STREAM, async (req, signal) => {
    const { tenant, start, end, matchers, sorted } = seriesRequest(req);
    const series = await ingester.queryStream(tenant, start, end, matchers, signal, sorted);
    const body = await encodeSeriesChunks(series, new Slicer(clock));
    return { body, contentType: PROTOBUF_CONTENT_TYPE };
  });

  transport.handle(INGESTER_METRICS_FOR_LABEL_MATCHERS, async (req, signal) => {
    const { tenant, start, end, matchers } = seriesRequest(req);
    const series = await ingester.seriesLabels(tenant, start, end, matchers, signal);
    return jsonBody(encodeSeriesLabels(series));
  });

  transport.handle(INGESTER_LABEL_NAMES, async (req) => {
    const tenant = rpcTenant(req);
    const q = jsonRequest(req);
    const names = await ingester.labelNames(
      tenant,
      numberField(q, 'start'),
      numberField(q, 'end'),
      fromWireMatchers(q['matchers'] ?? []),
    );
    return jsonBody(names);
  });

  transport.handle(INGESTER_LABEL_VALUES, async (req) => {
    const tenant = rpcTenant(req);
    const q = jsonRequest(req);
    const name = q['name'];
    if (typeof name !== 'string' || name === '')
      throw new RpcError('invalid_argument', 'label values request needs a label name');
    const values = await ingester.labelValues(
      tenant,
      name,
      numberField(q, 'start'),
      numberField(q, 'end'),
      fromWireMatchers(q['matchers'] ?? []),
    );
    return jsonBody(values);
  });

  transport.handle(INGESTER_USER_STATS, (req) => {
    const s = ingester.userStats(rpcTenant(req));
    const stats: WireUserStats = {
      numSeries: s.numSeries,
      ingestionRate: s.ingestionRate,
      apiIngestionRate: s.apiIngestionRate,
      ruleIngestionRate: s.ruleIngestionRate,
    };
    return Promise.resolve(jsonBody(stats));
  });

  transport.handle(INGESTER_METRICS_METADATA, (req) => {
    return Promise.resolve(jsonBody(ingester.metricsMetadata(rpcTenant(req))));
  });

  transport.handle(INGESTER_ALL_USER_STATS, (): Promise<RpcResponse> => {
    ingester.checkRunning();
    const all: WireTenantStats[] = ingester
      .allUserStats()
      .map(({ tenant, stats, loadedBlocks }) => ({
        tenant,
        loadedBlocks,
        stats: {
          numSeries: stats.numSeries,
          ingestionRate: stats.ingestionRate,
          apiIngestionRate: stats.apiIngestionRate,
          ruleIngestionRate: stats.ruleIngestionRate,
        },
      }));
    return Promise.resolve(jsonBody(all));
  });
}

/**
 * Pushes and turns a partial rejection into `invalid_argument` carrying the first error,
 * after the accepted samples were committed (Cortex answers 400 for the request then).
 */
/**
 * An in-process push of a distributor's batch (the single binary's shortcut): the same
 * conversion and outcomes as the `ingester.Push` RPC, without its encode and decode.
 */
export async function pushBatch(
  ingester: Ingester,
  tenant: string,
  batch: PushBatch,
  source: PushSource,
): Promise<void> {
  await pushOrThrow(
    ingester,
    tenant,
    toPushSeries(batch.data, batch.seriesIndexes, tenant),
    source,
    batch.metadata,
  );
}

async function pushOrThrow(
  ingester: Ingester,
  tenant: string,
  series: PushSeries[],
  source: PushSource,
  metadata: readonly MetricMetadata[],
): Promise<void> {
  let result;
  try {
    result = await ingester.push(tenant, series, source, metadata);
  } catch (err) {
    throw asRpcError(err);
  }
  if (result.firstError !== undefined)
    throw new RpcError('invalid_argument', result.firstError.message);
}

/** HttpErrors raised below (a tenant ID that cannot name a directory...) keep their meaning. */
function asRpcError(err: unknown): unknown {
  if (!(err instanceof HttpError)) return err;
  if (err.status === 503) return new RpcError('unavailable', err.message);
  if (err.status === 429) return new RpcError('resource_exhausted', err.message);
  if (err.status >= 400 && err.status < 500) return new RpcError('invalid_argument', err.message);
  return err;
}

/**
 * A decoded write request as the series TenantDBs appends. Labels are sorted (an ingester
 * pushed to directly gets no distributor validation), empty values dropped as Prometheus
 * treats them as absent; a repeated name or a series left without labels is refused.
 * Exemplars and native histograms are not stored by the ingester (metadata goes beside).
 * `tenant` is whose push this is: Labels memoized on a label cache entry are per tenant.
 */
export function toPushSeries(
  data: WriteRequestData,
  seriesIndexes?: readonly number[],
  tenant = '',
): PushSeries[] {
  const out: PushSeries[] = [];
  const count = seriesIndexes?.length ?? data.series.length;
  for (let k = 0; k < count; k++) {
    const i = seriesIndexes === undefined ? k : (seriesIndexes[k] as number);
    const s = data.series[i];
    if (s === undefined) continue;
    // A label cache entry (the ingester's own, or a distributor's for in-process pushes)
    // keeps the Labels made of its array: the same Labels object, with its hashes and head
    // series hint, every push of the tenant.
    const entry = cachedEntryOf(s);
    const memo = entry?.consumerMemo instanceof TenantLabels ? entry.consumerMemo : undefined;
    let labels = memo?.get(tenant);
    if (labels === undefined)
      try {
        labels = labelsOf(s.labels);
        if (memo !== undefined) memo.set(tenant, labels);
        else if (entry !== undefined) entry.consumerMemo = new TenantLabels(tenant, labels);
      } catch (err) {
        if (err instanceof DuplicateLabelError)
          throw new RpcError('invalid_argument', `series ${i}: ${err.message}`);
        throw err;
      }
    if (labels.isEmpty()) {
      if (s.sampleEnd > s.sampleStart)
        throw new RpcError('invalid_argument', `series ${i} has an empty label set`);
      continue;
    }
    out.push({
      labels,
      timestamps: data.timestamps,
      values: data.values,
      start: s.sampleStart,
      end: s.sampleEnd,
    });
  }
  return out;
}

/**
 * The Labels made of one label cache entry's array, per tenant (the entry's consumerMemo).
 * Tenants often push identical label sets: sharing one Labels object, each tenant's head
 * would take the series hint (Labels.seriesHint) from the other's on every push, and both
 * would look their series up by hash again.
 */
class TenantLabels {
  /** Tenants after the first (rare but unbounded: a map). */
  private others: Map<string, Labels> | undefined;

  constructor(
    private readonly tenant: string,
    private readonly labels: Labels,
  ) {}

  get(tenant: string): Labels | undefined {
    return tenant === this.tenant ? this.labels : this.others?.get(tenant);
  }

  set(tenant: string, labels: Labels): void {
    (this.others ??= new Map()).set(tenant, labels);
  }
}

/**
 * The label set of a pushed series (labels with empty values dropped, as Prometheus does).
 * Distributors validate that names are sorted and unique, so the decoded pairs are normally
 * used as they are, only checked; anything else is filtered and sorted here.
 */
function labelsOf(flat: readonly string[]): Labels {
  let empty = false;
  for (let j = 1; j < flat.length; j += 2) if (flat[j] === '') empty = true;
  if (!empty) {
    try {
      return Labels.fromSortedFlat(flat);
    } catch (err) {
      if (err instanceof DuplicateLabelError) throw err;
    }
  }
  const pairs: [string, string][] = [];
  for (let j = 0; j + 1 < flat.length; j += 2)
    if (flat[j + 1] !== '') pairs.push([flat[j] as string, flat[j + 1] as string]);
  return Labels.fromPairs(pairs);
}
