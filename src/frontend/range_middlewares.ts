/**
 * The range-query middleware chain in Cortex's order (queryrange.Middlewares): step alignment,
 * split by interval, results cache, query sharding (when a shard size is configured), then
 * retries around each request that reaches the querier (Cortex ≤1.13 put its retry
 * middleware last, so each sub-query is retried alone).
 */
import type { Cache, Clock, Logger, MetricsRegistry } from '../runtime/index.js';
import type { Parallelism } from './do_requests.js';
import { composeMiddlewares, type RangeHandler, type RangeMiddleware } from './handler.js';
import {
  DEFAULT_MAX_CACHE_FRESHNESS_MS,
  resultsCacheMetrics,
  resultsCacheMiddleware,
} from './results_cache.js';
import { DEFAULT_MAX_RETRIES, retryMetrics, retryMiddleware } from './retry.js';
import type { RangeRequest } from './range_request.js';
import { shardByMiddleware, shardCount, shardMetrics } from './shard_middleware.js';
import { splitByIntervalMiddleware, splitMetrics } from './split_by_interval.js';
import { stepAlignMiddleware } from './step_align.js';

/** Cortex's default `-querier.max-query-parallelism`. */
export const DEFAULT_MAX_QUERY_PARALLELISM = 14;

export interface RangeMiddlewaresConfig {
  /** `-querier.align-querier-with-step` (false). */
  readonly alignQueriesWithStep: boolean;
  /** `-querier.split-queries-by-interval` in ms (0 = off). */
  readonly splitQueriesByInterval: number;
  /** `-querier.cache-results` (false); needs a split interval and a cache. */
  readonly cacheResults: boolean;
  /** `-querier.max-retries-per-request` (5). */
  readonly maxRetries: number;
  /** `-querier.max-query-parallelism` (14): fixed, or per request from its tenants' limits. */
  readonly maxQueryParallelism: Parallelism;
  /** `max_cache_freshness` per tenant in ms (limits; Cortex default 1m). */
  readonly maxCacheFreshness: (tenantId: string) => number;
  /** TTL of results cache entries, ms (0 = no expiry). */
  readonly resultsCacheTtlMs: number;
  /** `query_vertical_shard_size` per tenant (0 or 1 = no sharding; the default). */
  readonly shardSize?: (tenantId: string) => number;
  /** Keep ungrouped sum/avg unsharded, so sharded answers are bit-identical (false). */
  readonly shardExactOnly?: boolean;
}

export const DEFAULT_RANGE_MIDDLEWARES_CONFIG: RangeMiddlewaresConfig = {
  alignQueriesWithStep: false,
  splitQueriesByInterval: 0,
  cacheResults: false,
  maxRetries: DEFAULT_MAX_RETRIES,
  maxQueryParallelism: DEFAULT_MAX_QUERY_PARALLELISM,
  maxCacheFreshness: () => DEFAULT_MAX_CACHE_FRESHNESS_MS,
  resultsCacheTtlMs: 0,
};

export interface RangeMiddlewaresDeps {
  readonly clock: Clock;
  /** The results cache backend; required when `cacheResults` is on. */
  readonly cache?: Cache;
  readonly logger?: Logger;
  readonly registry?: MetricsRegistry;
}

/** Cortex's config validation messages for the options this chain reads. */
export function validateRangeMiddlewaresConfig(config: RangeMiddlewaresConfig): void {
  if (config.cacheResults && !(config.splitQueriesByInterval > 0)) {
    throw new Error(
      'querier.cache-results may only be enabled in conjunction with querier.split-queries-by-interval. Please set the latter',
    );
  }
  if (config.splitQueriesByInterval < 0) {
    throw new Error(
      `querier.split-queries-by-interval must not be negative, got ${config.splitQueriesByInterval}`,
    );
  }
}

/**
 * Which requests reach the querier through a chain that only retries them: no middleware
 * reads, splits, caches or merges their answers (sharding is per tenant: off for a request
 * whose tenants shard into at most one part), so the querier's body can go out as it came
 * (querierRangeHandler's `passThrough`).
 */
export function answersPassThrough(config: RangeMiddlewaresConfig): (req: RangeRequest) => boolean {
  if (config.alignQueriesWithStep || config.splitQueriesByInterval > 0 || config.cacheResults) {
    return () => false;
  }
  const { shardSize } = config;
  return shardSize === undefined ? () => true : (req) => shardCount(req, shardSize) <= 1;
}

/** The chain in front of `downstream` (a querier client). */
export function buildRangeHandler(
  config: RangeMiddlewaresConfig,
  deps: RangeMiddlewaresDeps,
  downstream: RangeHandler,
): RangeHandler {
  validateRangeMiddlewaresConfig(config);
  const parallelism = config.maxQueryParallelism;
  const chain: RangeMiddleware[] = [];
  if (config.alignQueriesWithStep) chain.push(stepAlignMiddleware);
  if (config.splitQueriesByInterval > 0) {
    chain.push(
      splitByIntervalMiddleware(
        { interval: config.splitQueriesByInterval, maxQueryParallelism: parallelism },
        deps.registry === undefined ? undefined : splitMetrics(deps.registry),
      ),
    );
  }
  if (config.cacheResults) {
    if (deps.cache === undefined) throw new Error('querier.cache-results needs a results cache');
    chain.push(
      resultsCacheMiddleware(
        {
          splitInterval: config.splitQueriesByInterval,
          maxCacheFreshness: config.maxCacheFreshness,
          maxQueryParallelism: parallelism,
          ttlMs: config.resultsCacheTtlMs,
        },
        {
          cache: deps.cache,
          clock: deps.clock,
          ...(deps.logger === undefined ? {} : { logger: deps.logger }),
          ...(deps.registry === undefined ? {} : { metrics: resultsCacheMetrics(deps.registry) }),
        },
      ),
    );
  }
  chain.push(...shardAndRetry(config, deps));
  return composeMiddlewares(chain, downstream);
}

/**
 * The instant-query path's chain (Cortex runs only sharding for instant queries): query
 * sharding, then retries, in front of a querier's `query_range` (see instant_query.ts).
 * Undefined when no shard size is configured.
 */
export function buildInstantShardHandler(
  config: RangeMiddlewaresConfig,
  deps: RangeMiddlewaresDeps,
  downstream: RangeHandler,
): RangeHandler | undefined {
  if (config.shardSize === undefined) return undefined;
  return composeMiddlewares(shardAndRetry(config, deps), downstream);
}

/** Query sharding (when a shard size is configured) and the retries behind it. */
function shardAndRetry(
  config: RangeMiddlewaresConfig,
  deps: RangeMiddlewaresDeps,
): RangeMiddleware[] {
  const chain: RangeMiddleware[] = [];
  if (config.shardSize !== undefined) {
    // Cortex orders shard-by after the results cache: the cache keeps whole answers.
    chain.push(
      shardByMiddleware(
        {
          shardSize: config.shardSize,
          maxQueryParallelism: config.maxQueryParallelism,
          exactOnly: config.shardExactOnly === true,
        },
        deps.registry === undefined ? undefined : shardMetrics(deps.registry),
      ),
    );
  }
  chain.push(
    retryMiddleware(
      { maxRetries: config.maxRetries },
      {
        ...(deps.logger === undefined ? {} : { logger: deps.logger }),
        ...(deps.registry === undefined ? {} : { metrics: retryMetrics(deps.registry) }),
      },
    ),
  );
  return chain;
}
