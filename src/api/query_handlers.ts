/**
 * `/api/v1/query`, `/api/v1/query_range`, `/api/v1/format_query` and `/api/v1/parse_query`
 * (Prometheus web/api/v1 query, queryRange, formatQuery, parseQuery): parameters checked in
 * Prometheus's order with its error texts, the query parsed here (so parse errors read
 * `invalid parameter "query": …`), then evaluated by the engine the headers select.
 */
import { exprToJSON, prettify } from '../promql/format/index.js';
import type { Expr, QueryOptions, QueryResult, QueryValue } from '../promql/index.js';
import { documentedType, exprType, parseExpr } from '../promql/parser/index.js';
import type { Form } from './form.js';
import { withDeadline } from './deadline.js';
import {
  type BodyParts,
  type EncodedStats,
  elementsArray,
  encodeQueryData,
  queryData,
} from './encode.js';
import { selectEngine } from './engine_select.js';
import { badData, invalidParam, param } from './errors.js';
import {
  type ApiContext,
  type ApiResult,
  annotationStrings,
  nowNs,
  TRUNCATED_WARNING,
} from './handler.js';
import { jsonString, jsonValue } from './json.js';
import {
  durationToMs,
  nsToMs,
  parseDuration,
  parseLimit,
  parseTime,
  parseTimeParam,
  subSaturating,
} from './params.js';
import type { PrometheusApiDeps } from './types.js';

/** Prometheus's fixed cap on points per series of a range query. */
export const DEFAULT_MAX_POINTS_PER_SERIES = 11_000;

/** The query parsed with the PromQL parser; parse errors are invalid `query` parameters. */
export function parseQueryParam(form: Form): Expr {
  return param('query', () => parseExpr(form.get('query')));
}

function timeoutParam(form: Form): bigint | undefined {
  const to = form.get('timeout');
  if (to === '') return undefined;
  return param('timeout', () => parseDuration(to));
}

/**
 * `lookback_delta` in ms (Prometheus extractQueryOpts); zero or negative means the default,
 * which is the registering component's (`deps.lookbackDelta`) or else the engine's own.
 */
function lookbackParam(form: Form, deps: PrometheusApiDeps): number | undefined {
  const raw = form.get('lookback_delta');
  if (raw === '') return deps.lookbackDelta;
  let ns: bigint;
  try {
    ns = parseDuration(raw);
  } catch (err) {
    throw badData(`error parsing lookback delta duration: ${(err as Error).message}`);
  }
  return ns > 0n ? durationToMs(ns) : deps.lookbackDelta;
}

/** The query settings taken from the parameters before the query runs. */
interface RunParams {
  readonly limit: number;
  readonly timeoutNs: bigint | undefined;
  readonly lookbackDelta: number | undefined;
}

/** Prometheus truncateResults: only vectors and matrices are cut. */
function truncate(value: QueryValue, limit: number): { value: QueryValue; truncated: boolean } {
  if (limit <= 0) return { value, truncated: false };
  if (value.type === 'vector' && value.vector.length > limit) {
    return { value: { type: 'vector', vector: value.vector.slice(0, limit) }, truncated: true };
  }
  if (value.type === 'matrix' && value.matrix.length > limit) {
    return { value: { type: 'matrix', matrix: value.matrix.slice(0, limit) }, truncated: true };
  }
  return { value, truncated: false };
}

function statsOf(result: QueryResult, elapsedMs: number): EncodedStats {
  const seconds = elapsedMs / 1000;
  const s = result.stats;
  return {
    timings: {
      evalTotalTime: seconds,
      resultSortTime: 0,
      queryPreparationTime: 0,
      innerEvalTime: seconds,
      execQueueTime: 0,
      execTotalTime: seconds,
    },
    samples: { totalQueryableSamples: s.totalQueryableSamples, peakSamples: s.peakSamples },
    ...(s.engine === 'prometheus' ? {} : { engine: s.engine }),
    ...(s.fallbackNodes === undefined ? {} : { fallbackNodes: s.fallbackNodes }),
  };
}

/** Shared tail of query and query_range: run under the deadline, truncate, encode. */
async function evaluate(
  ctx: ApiContext,
  deps: PrometheusApiDeps,
  params: RunParams,
  run: (options: QueryOptions) => Promise<QueryResult>,
): Promise<ApiResult> {
  const start = deps.clock.now();
  // The engine enforces the deadline between steps (`timeout`); withDeadline also aborts
  // a query that is waiting on storage when it passes.
  const timeout = params.timeoutNs === undefined ? undefined : Number(params.timeoutNs) / 1e6;
  const result = await withDeadline(deps.clock, ctx.signal, params.timeoutNs, (signal) =>
    run({
      signal,
      ...(timeout === undefined ? {} : { timeout }),
      ...(params.lookbackDelta === undefined ? {} : { lookbackDelta: params.lookbackDelta }),
      encodeResult: true,
    }),
  );
  const elapsed = Math.max(0, deps.clock.now() - start);
  const stats = ctx.form.get('stats') === '' ? undefined : statsOf(result, elapsed);
  let data: string | BodyParts;
  let truncated: boolean;
  if (result.encoded === undefined) {
    const cut = truncate(result.value, params.limit);
    truncated = cut.truncated;
    data = encodeQueryData(cut.value, stats);
  } else {
    // Encoded where it was evaluated: only the cut to `limit` elements happens here.
    truncated = params.limit > 0 && result.encoded.ends.length > params.limit;
    data = queryData(result.value.type, elementsArray(result.encoded, params.limit), stats);
  }
  const { warnings, infos } = annotationStrings(
    result.annotations,
    truncated ? [TRUNCATED_WARNING] : [],
  );
  return { data, warnings, infos };
}

export async function instantQuery(ctx: ApiContext, deps: PrometheusApiDeps): Promise<ApiResult> {
  const { engine } = selectEngine(ctx.req, deps.engines);
  const { form } = ctx;
  const limit = param('limit', () => parseLimit(form.get('limit')));
  const ts = param('time', () => parseTimeParam(form.get('time'), 'time', nowNs(deps.clock)));
  const timeoutNs = timeoutParam(form);
  const lookbackDelta = lookbackParam(form, deps);
  const expr = parseQueryParam(form);
  const queryable = deps.queryable(ctx.tenant, ctx.signal);
  return evaluate(ctx, deps, { limit, timeoutNs, lookbackDelta }, (options) =>
    engine.instantQuery(queryable, expr, nsToMs(ts), options),
  );
}

/** 11,000 → `11,000` as Prometheus's message spells it. */
function withThousands(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

export async function rangeQuery(ctx: ApiContext, deps: PrometheusApiDeps): Promise<ApiResult> {
  const { engine } = selectEngine(ctx.req, deps.engines);
  const { form } = ctx;
  const limit = param('limit', () => parseLimit(form.get('limit')));
  const start = param('start', () => parseTime(form.get('start')));
  const end = param('end', () => parseTime(form.get('end')));
  if (end < start) throw invalidParam('end', 'end timestamp must not be before start time');
  const step = param('step', () => parseDuration(form.get('step')));
  if (step <= 0n) {
    throw invalidParam(
      'step',
      'zero or negative query resolution step widths are not accepted. Try a positive integer',
    );
  }
  const maxPoints = deps.maxPointsPerSeries ?? DEFAULT_MAX_POINTS_PER_SERIES;
  // For safety, Prometheus limits the points per series (60s steps for a week, 1h for a year).
  if (subSaturating(end, start) / step > BigInt(maxPoints)) {
    throw badData(
      `exceeded maximum resolution of ${withThousands(maxPoints)} points per timeseries. Try decreasing the query resolution (?step=XX)`,
    );
  }
  const stepMs = durationToMs(step);
  if (stepMs <= 0) {
    // Prometheus would run a sub-millisecond step as a zero step; we refuse it.
    throw invalidParam(
      'step',
      'zero or negative query resolution step widths are not accepted. Try a positive integer',
    );
  }
  const timeoutNs = timeoutParam(form);
  const lookbackDelta = lookbackParam(form, deps);
  const expr = parseQueryParam(form);
  const type = exprType(expr);
  if (type !== 'vector' && type !== 'scalar') {
    throw invalidParam(
      'query',
      `invalid expression type "${documentedType(type)}" for range query, must be Scalar or instant Vector`,
    );
  }
  const queryable = deps.queryable(ctx.tenant, ctx.signal);
  return evaluate(ctx, deps, { limit, timeoutNs, lookbackDelta }, (options) =>
    engine.rangeQuery(queryable, expr, nsToMs(start), nsToMs(end), stepMs, options),
  );
}

export function formatQuery(ctx: ApiContext): Promise<ApiResult> {
  const expr = parseQueryParam(ctx.form);
  return Promise.resolve({ data: jsonString(prettify(expr), 'html') });
}

export function parseQuery(ctx: ApiContext): Promise<ApiResult> {
  const expr = parseQueryParam(ctx.form);
  return Promise.resolve({ data: jsonValue(exprToJSON(expr)) });
}
