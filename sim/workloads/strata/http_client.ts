import { compress } from 'snappyjs';
import { buildWriteRequest, encodeWriteRequest } from '../../../src/distributor/index.js';
import { SimHttpError, type SimHttp, type SimHttpResponse } from '../../runtime/index.js';
import type { AttemptOutcome, LedgerSample } from './ledger.js';

/**
 * The workload's HTTP clients, as Prometheus and Grafana talk to Strata: remote write 1.0
 * pushes (protobuf + snappy) to a distributor's `/api/v1/push`, and the Prometheus query API
 * of a querier. Writers of every scenario (the plain writer, HA pairs, limit probes) push
 * through `pushBatch`, so they all classify answers the way Prometheus's sender does.
 */

export const PUSH_PATH = '/api/v1/push';
export const QUERY_API_PREFIX = '/prometheus/api/v1';
export const TENANT_HEADER = 'X-Scope-OrgID';

/** The headers Prometheus's remote-write 1.0 sender puts on every push. */
export const REMOTE_WRITE_HEADERS: Readonly<Record<string, string>> = {
  'Content-Type': 'application/x-protobuf',
  'Content-Encoding': 'snappy',
  'X-Prometheus-Remote-Write-Version': '0.1.0',
  'User-Agent': 'strata-sim-writer',
};

/**
 * The remote-write body of a batch, uncompressed: samples grouped by series, in queue
 * order. `extraLabels` go on every series (an HA pair's `cluster` and `__replica__`).
 */
export function encodeBatch(
  samples: readonly LedgerSample[],
  extraLabels: readonly (readonly [string, string])[] = [],
): Uint8Array {
  const bySeries = new Map<
    string,
    { labels: [string, string][]; samples: { value: number; timestamp: number }[] }
  >();
  for (const s of samples) {
    let entry = bySeries.get(s.series);
    if (entry === undefined) {
      // buildWriteRequest copies the labels, so the sample's own array can be passed as is.
      const labels =
        extraLabels.length === 0
          ? s.labels
          : [...s.labels, ...extraLabels.map(([n, v]) => [n, v] as [string, string])];
      entry = { labels, samples: [] };
      bySeries.set(s.series, entry);
    }
    entry.samples.push({ value: s.value, timestamp: s.timestamp });
  }
  return encodeWriteRequest(buildWriteRequest({ series: [...bySeries.values()] }));
}

/**
 * How Prometheus's remote-write sender takes an HTTP answer: 2xx is done (`ok`, with the
 * status: 202 is the HA tracker's accepted-and-dropped); 429 and 5xx are recoverable
 * (`unknown`: the samples may be stored, retry); any other status is final (`rejected`:
 * drop the batch). The code is the status as a string.
 */
export function classifyPushAnswer(status: number, body: string): AttemptOutcome {
  if (status >= 200 && status < 300) return { kind: 'ok', status };
  const message = body.trimEnd();
  const code = String(status);
  if (status === 429 || status >= 500) return { kind: 'unknown', code, message };
  return { kind: 'rejected', code, message };
}

/** A push that got no answer (timeout, refused or reset connection) is recoverable. */
export function classifyPushFailure(err: unknown): AttemptOutcome {
  const message = err instanceof Error ? err.message : String(err);
  if (err instanceof SimHttpError)
    return { kind: 'unknown', code: err.kind === 'timeout' ? 'timeout' : 'unreachable', message };
  return { kind: 'unknown', code: 'unreachable', message };
}

export interface PushOptions {
  readonly tenant: string;
  /** Virtual milliseconds before the sender gives up on the attempt (`remote_timeout`). */
  readonly timeoutMs: number;
  readonly signal?: AbortSignal;
  /** More headers (or overrides of the remote-write ones). */
  readonly headers?: Readonly<Record<string, string>>;
}

/**
 * One remote-write attempt: snappy-compresses the uncompressed protobuf `body` (from
 * `encodeBatch`), POSTs it to `distributor`'s `/api/v1/push` as the tenant, and classifies
 * the outcome. Rejects only when `signal` aborted (the sender is stopping: the attempt has
 * no outcome).
 */
export async function pushBatch(
  http: SimHttp,
  distributor: string,
  body: Uint8Array,
  opts: PushOptions,
): Promise<AttemptOutcome> {
  let res: SimHttpResponse;
  try {
    res = await http.request(
      distributor,
      {
        method: 'POST',
        path: PUSH_PATH,
        headers: { ...REMOTE_WRITE_HEADERS, [TENANT_HEADER]: opts.tenant, ...opts.headers },
        body: compress(body),
      },
      { timeoutMs: opts.timeoutMs, ...(opts.signal === undefined ? {} : { signal: opts.signal }) },
    );
  } catch (err) {
    if (opts.signal?.aborted === true) throw err;
    return classifyPushFailure(err);
  }
  return classifyPushAnswer(res.status, new TextDecoder().decode(res.body));
}

/** A query API answer that was not `success`: the status and Prometheus's error fields. */
export class QueryApiError extends Error {
  constructor(
    readonly status: number,
    readonly errorType: string,
    message: string,
  ) {
    super(message);
    this.name = 'QueryApiError';
  }
}

export interface QueryOptions {
  readonly tenant: string;
  readonly timeoutMs: number;
  readonly signal?: AbortSignal;
}

/** Seconds with millisecond precision, as Prometheus's API takes and gives times. */
export function apiTime(ms: number): string {
  return (ms / 1000).toFixed(3);
}

/**
 * GETs `<prefix>/<endpoint>?<params>` from `querier` as the tenant and returns the
 * envelope's `data`. A non-success answer throws `QueryApiError`; no answer throws the
 * `SimHttpError`.
 */
export async function queryApi(
  http: SimHttp,
  querier: string,
  endpoint: 'query' | 'query_range' | 'series' | 'labels',
  params: readonly (readonly [string, string])[],
  opts: QueryOptions,
): Promise<unknown> {
  const qs = params.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&');
  const res = await http.request(
    querier,
    {
      method: 'GET',
      path: `${QUERY_API_PREFIX}/${endpoint}${qs === '' ? '' : `?${qs}`}`,
      headers: { [TENANT_HEADER]: opts.tenant, Accept: 'application/json' },
    },
    { timeoutMs: opts.timeoutMs, ...(opts.signal === undefined ? {} : { signal: opts.signal }) },
  );
  const text = new TextDecoder().decode(res.body);
  let envelope: { status?: unknown; data?: unknown; errorType?: unknown; error?: unknown };
  try {
    envelope = JSON.parse(text) as typeof envelope;
  } catch {
    throw new QueryApiError(res.status, 'unparsable', `HTTP ${res.status}: ${text.slice(0, 200)}`);
  }
  if (res.status !== 200 || envelope.status !== 'success') {
    const errorType = typeof envelope.errorType === 'string' ? envelope.errorType : '';
    const error = typeof envelope.error === 'string' ? envelope.error : text.slice(0, 200);
    throw new QueryApiError(res.status, errorType, `HTTP ${res.status} ${errorType}: ${error}`);
  }
  return envelope.data;
}

/** One series of a matrix answer: its labels and raw samples. */
export interface MatrixSeries {
  labels: [string, string][];
  timestamps: number[];
  values: number[];
}

/** The series and samples of a `matrix` result (a range-vector selector's raw samples). */
export function parseMatrix(data: unknown): MatrixSeries[] {
  const d = data as { resultType?: unknown; result?: unknown };
  if (d === null || typeof d !== 'object' || d.resultType !== 'matrix' || !Array.isArray(d.result))
    throw new Error(`expected a matrix result, got ${JSON.stringify(data).slice(0, 200)}`);
  return (d.result as unknown[]).map((item) => {
    const it = item as { metric?: unknown; values?: unknown };
    if (
      it === null ||
      typeof it !== 'object' ||
      typeof it.metric !== 'object' ||
      !Array.isArray(it.values)
    )
      throw new Error(`bad matrix series ${JSON.stringify(item).slice(0, 200)}`);
    const labels = Object.entries(it.metric as Record<string, unknown>).map(
      ([n, v]) => [n, String(v)] as [string, string],
    );
    const timestamps: number[] = [];
    const values: number[] = [];
    for (const point of it.values as unknown[]) {
      if (!Array.isArray(point) || typeof point[0] !== 'number' || typeof point[1] !== 'string')
        throw new Error(`bad matrix point ${JSON.stringify(point)}`);
      timestamps.push(Math.round(point[0] * 1000));
      values.push(Number(point[1]));
    }
    return { labels, timestamps, values };
  });
}
