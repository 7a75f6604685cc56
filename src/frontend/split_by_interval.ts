/**
 * `-querier.split-queries-by-interval` (Cortex SplitByIntervalMiddleware): a long range query
 * becomes one sub-query per interval (a day by default in Cortex's docs), run in parallel and
 * merged. Sub-queries keep the step grid of the original query, so every evaluation
 * timestamp is computed by exactly one sub-query and the merged answer is the unsplit one.
 */
import type { Counter } from 'prom-client';
import { type MetricsRegistry, registeredCounter } from '../runtime/index.js';
import { evaluateAtModifierFunction } from './at_modifier.js';
import { doRequests, type Parallelism } from './do_requests.js';
import type { RangeMiddleware } from './handler.js';
import { mergeRangeResponses } from './merge.js';
import { type RangeRequest, withQuery, withStartEnd } from './range_request.js';

/**
 * The last step timestamp before the interval boundary after `t` (Cortex
 * nextIntervalBoundary): a whole number of steps from `t`, strictly before the start of the
 * next interval. Integer divisions truncate as Go's do.
 */
export function nextIntervalBoundary(t: number, step: number, interval: number): number {
  const startOfNextInterval = (Math.trunc(t / interval) + 1) * interval;
  let target = startOfNextInterval - ((startOfNextInterval - t) % step);
  if (target === startOfNextInterval) target -= step;
  return target;
}

/**
 * The sub-queries of `req` (Cortex splitQuery): each ends at the next interval boundary, the
 * next starts one step later, the last ends at the query's end. `@ start()`/`@ end()` are
 * resolved to the original bounds first; every sub-query carries the re-printed query text.
 */
export function splitQuery(req: RangeRequest, interval: number): RangeRequest[] {
  if (req.start === req.end) return [req];
  const query = evaluateAtModifierFunction(req.query, req.start, req.end);
  const out: RangeRequest[] = [];
  const base = withQuery(req, query);
  for (let start = req.start; start < req.end;) {
    const boundary = nextIntervalBoundary(start, req.step, interval);
    const end = boundary + req.step >= req.end ? req.end : boundary;
    out.push(withStartEnd(base, start, end));
    start = boundary + req.step;
  }
  return out;
}

export interface SplitByIntervalConfig {
  /** ms; must be > 0 (0 means the middleware is not installed). */
  readonly interval: number;
  /** Sub-queries of one query in flight at once (`-querier.max-query-parallelism`, 14). */
  readonly maxQueryParallelism: Parallelism;
}

export interface SplitMetrics {
  readonly splitQueries: Counter;
}

export function splitMetrics(registry: MetricsRegistry): SplitMetrics {
  return {
    splitQueries: registeredCounter(
      registry,
      'cortex_frontend_split_queries_total',
      'Total number of underlying query requests after the split by interval is applied',
    ),
  };
}

/**
 * Splitting a query with `limit` would apply the limit per sub-query and merge more series
 * than the querier returns, so such a query goes through whole.
 */
function splittable(req: RangeRequest): boolean {
  return req.params.limit === '' || req.params.limit === '0';
}

export function splitByIntervalMiddleware(
  config: SplitByIntervalConfig,
  metrics?: SplitMetrics,
): RangeMiddleware {
  if (!(config.interval > 0)) {
    throw new RangeError(`split interval must be positive, got ${config.interval}`);
  }
  return (next) => async (req, signal) => {
    if (!splittable(req)) {
      metrics?.splitQueries.inc();
      return next(req, signal);
    }
    const requests = splitQuery(req, config.interval);
    metrics?.splitQueries.inc(requests.length);
    const answers = await doRequests(next, requests, config.maxQueryParallelism, signal);
    return mergeRangeResponses(answers.map((a) => a.response));
  };
}
