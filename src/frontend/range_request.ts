/**
 * A range query as the query-frontend sees it (Cortex tripperware.PrometheusRequest): times in
 * milliseconds, the query text, the tenants, and the few request parameters and headers that
 * must travel to the querier. The parameters are checked here in the querier's own order with
 * its error texts (`src/api` query_handlers.ts rangeQuery), so bad input gets exactly the
 * querier's 400 without a round trip.
 */
import {
  DEFAULT_MAX_POINTS_PER_SERIES,
  type Form,
  badData,
  durationToMs,
  invalidParam,
  nsToMs,
  param,
  parseApiDuration,
  parseApiTime,
  parseLimit,
  parseQueryParam,
  subSaturating,
} from '../api/index.js';
import { documentedType, exprType } from '../promql/parser/index.js';

/** Request parameters other than start/end/step/query that the querier reads. */
export interface RangeRequestParams {
  /** `limit` as sent ('' when absent). Limits series per sub-query, so it stops splitting. */
  readonly limit: string;
  /** `timeout` as sent ('' when absent). */
  readonly timeout: string;
  /** `lookback_delta` as sent ('' when absent). Changes answers, so it stops caching. */
  readonly lookbackDelta: string;
  /** `stats` as sent ('' when absent). */
  readonly stats: string;
}

export interface RangeRequest {
  /** The tenants of the request, sorted and de-duplicated (Cortex tenant.TenantIDs). */
  readonly tenantIds: readonly string[];
  readonly query: string;
  /** ms since the epoch. */
  readonly start: number;
  /** ms since the epoch, ≥ start. */
  readonly end: number;
  /** ms, > 0. */
  readonly step: number;
  readonly params: RangeRequestParams;
  /**
   * Request headers forwarded to the querier unchanged (lower-case names), e.g. the engine
   * selection header; the HTTP layer chooses which.
   */
  readonly headers: ReadonlyMap<string, readonly string[]>;
  /** The client sent `Cache-Control: no-store`: the results cache is bypassed. */
  readonly cachingDisabled: boolean;
}

export const NO_STORE = 'no-store';
export const CACHE_CONTROL = 'cache-control';

export interface ParseRangeRequestOptions {
  /** The request's tenants (one, or several for federated queries). */
  readonly tenantIds: readonly string[];
  /** Request headers by lower-case name; `cache-control` is read for `no-store`. */
  readonly headers?: ReadonlyMap<string, readonly string[]>;
  /** Header names (any case) forwarded to the querier. */
  readonly forwardHeaders?: readonly string[];
  /** The querier's points-per-series cap (Prometheus: 11,000). */
  readonly maxPointsPerSeries?: number;
}

/**
 * Parses a `query_range` form as the querier would, throwing its ApiError (400 with
 * Prometheus's message) on bad input.
 */
export function parseRangeRequest(form: Form, options: ParseRangeRequestOptions): RangeRequest {
  const limit = form.get('limit');
  param('limit', () => parseLimit(limit));
  const startNs = param('start', () => parseApiTime(form.get('start')));
  const endNs = param('end', () => parseApiTime(form.get('end')));
  if (endNs < startNs) throw invalidParam('end', 'end timestamp must not be before start time');
  const stepNs = param('step', () => parseApiDuration(form.get('step')));
  const negativeStep = () =>
    invalidParam(
      'step',
      'zero or negative query resolution step widths are not accepted. Try a positive integer',
    );
  if (stepNs <= 0n) throw negativeStep();
  const maxPoints = options.maxPointsPerSeries ?? DEFAULT_MAX_POINTS_PER_SERIES;
  if (subSaturating(endNs, startNs) / stepNs > BigInt(maxPoints)) {
    throw badData(
      `exceeded maximum resolution of ${withThousands(maxPoints)} points per timeseries. Try decreasing the query resolution (?step=XX)`,
    );
  }
  const step = durationToMs(stepNs);
  if (step <= 0) throw negativeStep();
  const timeout = form.get('timeout');
  if (timeout !== '') param('timeout', () => parseApiDuration(timeout));
  const lookbackDelta = form.get('lookback_delta');
  if (lookbackDelta !== '') {
    try {
      parseApiDuration(lookbackDelta);
    } catch (err) {
      throw badData(`error parsing lookback delta duration: ${(err as Error).message}`);
    }
  }
  const expr = parseQueryParam(form);
  const type = exprType(expr);
  if (type !== 'vector' && type !== 'scalar') {
    throw invalidParam(
      'query',
      `invalid expression type "${documentedType(type)}" for range query, must be Scalar or instant Vector`,
    );
  }
  const headers = options.headers ?? new Map<string, readonly string[]>();
  return {
    tenantIds: normalizeTenantIds(options.tenantIds),
    query: form.get('query'),
    start: nsToMs(startNs),
    end: nsToMs(endNs),
    step,
    params: { limit, timeout, lookbackDelta, stats: form.get('stats') },
    headers: forwardedHeaders(headers, options.forwardHeaders ?? []),
    // Cortex: any Cache-Control value containing `no-store` disables caching.
    cachingDisabled: (headers.get(CACHE_CONTROL) ?? []).some((v) => v.includes(NO_STORE)),
  };
}

function withThousands(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** Cortex JoinTenantIDs expects sorted, unique IDs; the cache key depends on it. */
export function normalizeTenantIds(ids: readonly string[]): string[] {
  return [...new Set(ids)].sort();
}

/** The request headers among `names` (any case), by lower-case name. */
export function forwardedHeaders(
  headers: ReadonlyMap<string, readonly string[]>,
  names: readonly string[],
): Map<string, readonly string[]> {
  const out = new Map<string, readonly string[]>();
  for (const name of names) {
    const lower = name.toLowerCase();
    const values = headers.get(lower);
    if (values !== undefined) out.set(lower, values);
  }
  return out;
}

export function withStartEnd(req: RangeRequest, start: number, end: number): RangeRequest {
  return { ...req, start, end };
}

export function withQuery(req: RangeRequest, query: string): RangeRequest {
  return { ...req, query };
}

/** ms as Go's `strconv.FormatFloat(float64(ms)/1000, 'f', -1, 64)` (Cortex EncodeTime). */
export function formatSeconds(ms: number): string {
  // Whole ms never fall below 1e-6 s, and 1e21 s is no timestamp, so JS's shortest
  // round-trip digits are Go's fixed-notation digits here.
  return String(ms / 1000);
}

/**
 * The form the querier is called with (Cortex prometheusCodec.EncodeRequest): start, end,
 * step and query, plus the pass-through parameters that were sent.
 */
export function rangeRequestParams(req: RangeRequest): [string, string][] {
  const out: [string, string][] = [
    ['start', formatSeconds(req.start)],
    ['end', formatSeconds(req.end)],
    ['step', formatSeconds(req.step)],
    ['query', req.query],
  ];
  const p = req.params;
  if (p.stats !== '') out.push(['stats', p.stats]);
  if (p.limit !== '') out.push(['limit', p.limit]);
  if (p.timeout !== '') out.push(['timeout', p.timeout]);
  if (p.lookbackDelta !== '') out.push(['lookback_delta', p.lookbackDelta]);
  return out;
}
