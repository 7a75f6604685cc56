/**
 * The query-frontend's range-query path (Cortex pkg/querier/tripperware/queryrange): a
 * `query_range` request parsed and checked as the querier checks it, then step alignment,
 * splitting by interval into sub-queries run in parallel, the results cache with extents
 * merged across requests, and retries of failed sub-queries, all as `RangeHandler` stages
 * with no HTTP in them; the HTTP layer and the querier client are wired around it.
 *
 * It must never change an answer: whatever passes through (split, cached, retried) equals
 * what the querier returns for the whole query, and bad input fails with the querier's status
 * and message. It must never evaluate PromQL or read storage itself, never read the wall
 * clock (freshness uses the injected Clock), and never trust the cache: a cache that is
 * down, slow or holds a value it cannot decode or that belongs to another key is a miss.
 */
export {
  composeMiddlewares,
  errorStatus,
  type RangeHandler,
  type RangeMiddleware,
} from './handler.js';
export {
  CACHE_CONTROL,
  NO_STORE,
  formatSeconds,
  normalizeTenantIds,
  parseRangeRequest,
  rangeRequestParams,
  withQuery,
  withStartEnd,
  type ParseRangeRequestOptions,
  type RangeRequest,
  type RangeRequestParams,
} from './range_request.js';
export {
  EMPTY_HEADERS,
  RangeResponseDecodeError,
  decodeRangeResponse,
  encodeRangeResponse,
  rangeResponseFromJson,
  type RangeResponse,
  type RangeSeries,
} from './range_response.js';
export { extractRange, mergeRangeResponses } from './merge.js';
export { QuerierError, querierError } from './querier_error.js';
export { alignToStep, stepAlignMiddleware } from './step_align.js';
export {
  nextIntervalBoundary,
  splitByIntervalMiddleware,
  splitMetrics,
  splitQuery,
  type SplitByIntervalConfig,
  type SplitMetrics,
} from './split_by_interval.js';
export { evaluateAtModifierFunction, resolveAtStartEnd } from './at_modifier.js';
export {
  DEFAULT_MAX_CACHE_FRESHNESS_MS,
  resultsCacheMetrics,
  resultsCacheMiddleware,
  type ResultsCacheConfig,
  type ResultsCacheDeps,
  type ResultsCacheMetrics,
} from './results_cache.js';
export {
  CACHED_RESPONSE_FORMAT,
  decodeCachedResponse,
  encodeCachedResponse,
  generateCacheKey,
  hashKey,
  type CachedResponse,
  type Extent,
} from './results_cache_codec.js';
export { MIN_CACHE_EXTENT_MS, PARTIAL_DATA_WARNING } from './results_cache_extents.js';
export {
  DEFAULT_MAX_RETRIES,
  isRetryable,
  retryMetrics,
  retryMiddleware,
  type RetryConfig,
  type RetryMetrics,
} from './retry.js';
export {
  DEFAULT_MAX_QUERY_PARALLELISM,
  DEFAULT_RANGE_MIDDLEWARES_CONFIG,
  buildInstantShardHandler,
  answersPassThrough,
  buildRangeHandler,
  validateRangeMiddlewaresConfig,
  type RangeMiddlewaresConfig,
  type RangeMiddlewaresDeps,
} from './range_middlewares.js';
export { registerFrontendRoutes, type FrontendHttpDeps, type RoundTrip } from './http_frontend.js';
export { querierRangeHandler } from './querier_downstream.js';
export { parallelismFor, smallestPositivePerTenant, type Parallelism } from './do_requests.js';
export {
  encodeInstantResponse,
  shardedInstantRequest,
  type InstantRequestContext,
  type InstantSharding,
} from './instant_query.js';
export { QueryStats, type QueryStatsConfig } from './query_stats.js';
export {
  shardByMiddleware,
  shardCount,
  shardMetrics,
  type ShardByConfig,
  type ShardMetrics,
} from './shard_middleware.js';
export { mergeShardResponses } from './shard_merge.js';
export {
  planSharding,
  shardQuery,
  type PlanShardingOptions,
  type ShardDecision,
  type ShardPlan,
  type ShardableOp,
} from './shard_rewrite.js';
