/**
 * The querier's RPCs on the Transport, what the simulator's query workload and checkers call
 * (tenant in `x-scope-orgid`, times in ms):
 * - `querier.Select` `{matchers, start, end}` → the merged, de-duplicated series as
 *   `encodeSeriesSamples` bytes, exactly what the Queryable hands the engine;
 * - `querier.Query` `{query, time}` (instant) or `{query, start, end, step}` (range), optional
 *   `engine` (`prometheus`|`thanos`) → `{resultType, result}` as the Prometheus API encodes it.
 */
import { DEFAULT_MAX_POINTS_PER_SERIES, encodeQueryData } from '../api/index.js';
import { TENANT_RPC_HEADER, encodeSeriesSamples, fromWireMatchers } from '../ingester/index.js';
import { PromQLError, StorageError, type PromQLEngine } from '../promql/index.js';
import {
  RpcError,
  isAbortError,
  jsonBody,
  parseJsonBody,
  type RpcCode,
  type RpcRequest,
  type Transport,
} from '../runtime/index.js';
import type { Querier } from './querier.js';

export const QUERIER_SELECT = 'querier.Select';
export const QUERIER_QUERY = 'querier.Query';
/** Content type of `querier.Select` answers (the ingester wire's binary series encoding). */
export const SERIES_CONTENT_TYPE = 'application/octet-stream';

export interface SelectRpcRequest {
  matchers: [string, string, string][];
  start: number;
  end: number;
}

export type QueryRpcRequest =
  | { query: string; time: number; engine?: 'prometheus' | 'thanos' }
  | { query: string; start: number; end: number; step: number; engine?: 'prometheus' | 'thanos' };

export function registerQuerierRpcs(transport: Transport, querier: Querier): void {
  transport.handle(QUERIER_SELECT, async (req, signal) => {
    const tenant = tenantOf(req);
    const body = objectBody(req);
    const start = numberField(body, 'start');
    const end = numberField(body, 'end');
    const matchers = fromWireMatchers(body['matchers']);
    try {
      const series = await querier.selectSamples(tenant, matchers, start, end, signal);
      return { body: encodeSeriesSamples(series), contentType: SERIES_CONTENT_TYPE };
    } catch (err) {
      throw toRpcError(err);
    }
  });

  transport.handle(QUERIER_QUERY, async (req, signal) => {
    const tenant = tenantOf(req);
    const body = objectBody(req);
    const query = body['query'];
    if (typeof query !== 'string') throw new RpcError('invalid_argument', 'query must be a string');
    const engine = pickEngine(querier, body['engine']);
    const queryable = querier.queryable(tenant, signal);
    try {
      const result =
        body['step'] === undefined
          ? await engine.instantQuery(queryable, query, numberField(body, 'time'), { signal })
          : await rangeQuery(engine, queryable, query, body, signal);
      return jsonEncoded(encodeQueryData(result.value, undefined));
    } catch (err) {
      throw toRpcError(err);
    }
  });
}

function rangeQuery(
  engine: PromQLEngine,
  queryable: ReturnType<Querier['queryable']>,
  query: string,
  body: Record<string, unknown>,
  signal: AbortSignal,
) {
  const start = numberField(body, 'start');
  const end = numberField(body, 'end');
  const step = numberField(body, 'step');
  // The Prometheus API's checks on range parameters, with its messages.
  if (end < start)
    throw new RpcError('invalid_argument', 'end timestamp must not be before start time');
  if (step <= 0)
    throw new RpcError(
      'invalid_argument',
      'zero or negative query resolution step widths are not accepted. Try a positive integer',
    );
  if ((end - start) / step > DEFAULT_MAX_POINTS_PER_SERIES)
    throw new RpcError(
      'invalid_argument',
      'exceeded maximum resolution of 11,000 points per timeseries. Try decreasing the query resolution (?step=XX)',
    );
  return engine.rangeQuery(queryable, query, start, end, step, { signal });
}

function pickEngine(querier: Querier, name: unknown): PromQLEngine {
  if (name === undefined || name === 'prometheus' || name === 'mon')
    return querier.engines.prometheus;
  if ((name === 'thanos' || name === 'alt') && querier.engines.thanos !== undefined)
    return querier.engines.thanos;
  throw new RpcError('invalid_argument', `unknown engine ${JSON.stringify(name)}`);
}

function tenantOf(req: RpcRequest): string {
  const tenant = req.headers?.[TENANT_RPC_HEADER];
  if (tenant === undefined || tenant === '') throw new RpcError('unauthenticated', 'no org id');
  return tenant;
}

function objectBody(req: RpcRequest): Record<string, unknown> {
  let body: unknown;
  try {
    body = parseJsonBody<unknown>(req);
  } catch (err) {
    if (err instanceof RpcError) throw err;
    throw new RpcError('invalid_argument', `bad request body: ${(err as Error).message}`);
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new RpcError('invalid_argument', 'request body must be a JSON object');
  return body as Record<string, unknown>;
}

function numberField(body: Record<string, unknown>, name: string): number {
  const v = body[name];
  if (typeof v !== 'number' || !Number.isFinite(v))
    throw new RpcError('invalid_argument', `${name} must be a finite number of milliseconds`);
  return v;
}

function jsonEncoded(json: string): { body: Uint8Array; contentType: string } {
  const { contentType } = jsonBody(null);
  return { body: new TextEncoder().encode(json), contentType };
}

const RPC_CODE_BY_ERROR_TYPE: Readonly<Record<PromQLError['errorType'], RpcCode>> = {
  bad_data: 'invalid_argument',
  // The query's own fault (too many samples, many-to-many matching): retrying will not help.
  execution: 'failed_precondition',
  timeout: 'deadline_exceeded',
  canceled: 'aborted',
  internal: 'internal',
};

/** Keeps an ingester's RPC code through the engine's StorageError wrapping. */
function toRpcError(err: unknown): unknown {
  if (err instanceof RpcError) return err;
  if (err instanceof StorageError && err.cause instanceof RpcError)
    return new RpcError(err.cause.code, err.message);
  if (err instanceof PromQLError)
    return new RpcError(RPC_CODE_BY_ERROR_TYPE[err.errorType], err.message);
  if (isAbortError(err)) return new RpcError('aborted', (err as Error).message);
  return err;
}
