/**
 * `-frontend.query-vertical-shard-size` (Cortex's vertical query sharding, in Mimir's form):
 * a shardable aggregation (see shard_rewrite.ts) runs as n sub-queries, each over one shard
 * of the series selected by a `__query_shard__` matcher that the queriers honour, in
 * parallel across queriers, and the frontend puts the answers together (shard_merge.ts).
 *
 * It sits after the results cache and before retries (Cortex orders shard-by after the
 * cache), so the cache keeps whole answers and each shard is retried on its own. A shard
 * size of 0 or 1, a query that is not shardable, one with `limit` (a per-shard limit would
 * keep more series) or `stats` (per-shard statistics do not add up to the query's) go
 * through unchanged.
 */
import type { Counter } from 'prom-client';
import type { AggregateExpr } from '../promql/index.js';
import { type MetricsRegistry, registeredCounter } from '../runtime/index.js';
import {
  doRequests,
  smallestPositivePerTenant,
  type Parallelism,
  type RequestResponse,
} from './do_requests.js';
import type { RangeMiddleware } from './handler.js';
import { type RangeRequest, withQuery } from './range_request.js';
import { mergeShardResponses } from './shard_merge.js';
import { positionMap, restorePositions } from './shard_positions.js';
import { planSharding } from './shard_rewrite.js';

export interface ShardByConfig {
  /** `query_vertical_shard_size` of a tenant (0 or 1 = no sharding). */
  readonly shardSize: (tenantId: string) => number;
  /** Shard sub-queries of one query in flight at once (`-querier.max-query-parallelism`). */
  readonly maxQueryParallelism: Parallelism;
  /** Leave ungrouped sum/avg unsharded so every answer is bit-identical (default false). */
  readonly exactOnly?: boolean;
}

export interface ShardMetrics {
  readonly attempted: Counter;
  readonly succeeded: Counter;
  readonly shardedQueries: Counter;
}

export function shardMetrics(registry: MetricsRegistry): ShardMetrics {
  return {
    attempted: registeredCounter(
      registry,
      'cortex_frontend_query_sharding_rewrites_attempted_total',
      'Total number of queries the query-frontend attempted to shard.',
    ),
    succeeded: registeredCounter(
      registry,
      'cortex_frontend_query_sharding_rewrites_succeeded_total',
      'Total number of queries the query-frontend successfully rewritten in a shardable way.',
    ),
    shardedQueries: registeredCounter(
      registry,
      'cortex_frontend_sharded_queries_total',
      'Total number of sharded queries.',
    ),
  };
}

/**
 * The shard count of a request: the smallest positive size among its tenants (Cortex
 * SmallestPositiveIntPerTenant), so a federated query never fans out more than any of its
 * tenants allows.
 */
export function shardCount(req: RangeRequest, shardSize: (tenantId: string) => number): number {
  return smallestPositivePerTenant(req.tenantIds, shardSize);
}

export function shardByMiddleware(config: ShardByConfig, metrics?: ShardMetrics): RangeMiddleware {
  return (next) => async (req, signal) => {
    const n = shardCount(req, config.shardSize);
    if (n <= 1) return next(req, signal);
    metrics?.attempted.inc();
    const p = req.params;
    if ((p.limit !== '' && p.limit !== '0') || p.stats !== '') return next(req, signal);
    const decision = planSharding(req.query, { exactOnly: config.exactOnly === true });
    if (!decision.shardable) return next(req, signal);
    metrics?.succeeded.inc();
    const { plan } = decision;
    const requests: RangeRequest[] = [];
    for (let i = 0; i < n; i++) {
      for (const q of plan.shardQueries(i, n)) requests.push(withQuery(req, q));
    }
    metrics?.shardedQueries.inc(requests.length);
    const answers = await doRequests(next, requests, config.maxQueryParallelism, signal);
    // requests are shard-major: partial j of shard i is at i * partials + j.
    const partials = requests.length / n;
    const parts = Array.from({ length: partials }, (_, j) =>
      Array.from({ length: n }, (_, i) => {
        const { request, response } = answers[i * partials + j] as RequestResponse;
        if (response.warnings.length === 0 && response.infos.length === 0) return response;
        const map = positionMap(plan.partials[j] as AggregateExpr, req.query, request.query);
        return {
          ...response,
          warnings: restorePositions(response.warnings, map),
          infos: restorePositions(response.infos, map),
        };
      }),
    );
    // A tie at topk/bottomk's k-th value has no merged answer: the query runs whole.
    return mergeShardResponses(plan, parts) ?? next(req, signal);
  };
}
