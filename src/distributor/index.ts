/**
 * The distributor: receives remote-write pushes (HTTP and the `distributor.Push` RPC),
 * checks them (HA tracker, per-tenant validation with Cortex's rules and messages, ingestion
 * rate limit), shards series by token onto the ingester ring and writes each to its replica
 * set with Cortex's quorum rules; plus its pages (all user stats, HA tracker). The building
 * blocks (snappy with size limits, a hand-written `prometheus.WriteRequest` decoder and
 * encoder) live here too. It must never read the clock or randomness except through what it
 * is given, never register HTTP routes by itself (the app calls `registerDistributorRoutes`),
 * never acknowledge a push before every series reached its quorum, and never drop samples
 * without counting them in a discard metric.
 */
export { ProtoDecodeError } from './proto_reader.js';
export {
  cachedEntryOf,
  metricTypeName,
  WRITE_SOURCE_API,
  WRITE_SOURCE_RULE,
  labelPairs,
  sampleCount,
  type BucketSpan,
  type Exemplar,
  type Histogram,
  type MetricMetadata,
  type SeriesData,
  type WriteRequestData,
} from './write_request.js';
export { decodeWriteRequest } from './write_request_decode.js';
export {
  CachedLabels,
  DEFAULT_SERIES_LABELS_CACHE_ENTRIES,
  SeriesLabelsCache,
  type LabelRules,
  type SeriesLabelsCacheConfig,
} from './series_labels_cache.js';
export { encodeWriteRequest } from './write_request_encode.js';
export {
  buildWriteRequest,
  toPlainWriteRequest,
  type PlainSeries,
  type PlainWriteRequest,
} from './write_request_build.js';
export {
  DEFAULT_MAX_RECV_MSG_SIZE,
  REMOTE_WRITE_V1_MESSAGE,
  REMOTE_WRITE_V2_MESSAGE,
  checkRemoteWriteHeaders,
  decodeRemoteWriteBody,
  decompressRemoteWriteBody,
  type RemoteWriteBodyLimits,
  type RemoteWriteHeaders,
} from './remote_write_body.js';
export {
  IngestionRateLimitedError,
  ReplicasNotMatchError,
  TooManyHAClustersError,
  ValidationError,
  type DiscardReason,
} from './errors.js';
export {
  DEFAULT_DISTRIBUTOR_LIMITS,
  distributorLimitsFromOverrides,
  type DistributorLimits,
  type DistributorLimitsFn,
} from './limits.js';
export { discardedMetrics, type DiscardedMetrics } from './discarded_metrics.js';
export {
  EXEMPLAR_MAX_LABEL_SET_LENGTH,
  metricNameOf,
  validateExemplars,
  validateLabels,
  validateMetadata,
  validateSamples,
  validateWriteRequest,
  type ValidationOutcome,
} from './validation.js';
export { formatLabelSet, formatMetric } from './validation_messages.js';
export {
  DEFAULT_RATE_LIMIT_RECHECK_MS,
  IngestionRateLimiter,
  TokenBucket,
  type IngestionRateLimiterConfig,
  type IngestionRateLimiterDeps,
} from './rate_limiter.js';
export {
  DEFAULT_HA_TRACKER_CONFIG,
  HA_DELETION_TIMEOUT_MS,
  HATracker,
  findHALabels,
  removeLabelFromAllSeries,
  type ElectedReplica,
  type HATrackerConfig,
  type HATrackerDeps,
} from './ha_tracker.js';
export { decodeReplicaDesc, encodeReplicaDesc, type ReplicaDesc } from './ha_replica_desc.js';
export {
  HA_REPLICA_CODEC_ID,
  HA_REPLICA_MERGE_CODEC,
  compareReplicaDescs,
} from './ha_replica_merge.js';
export { renderHATrackerPage, type HATrackerPageInput } from './ha_tracker_page.js';
export {
  Distributor,
  type AllUserStats,
  type DistributorConfig,
  type DistributorDeps,
  type PushOutcome,
  type UserIDStats,
} from './distributor.js';
export { DISTRIBUTOR_PUSH, servePushRpc } from './push_rpc.js';
export { registerDistributorRoutes } from './push_http.js';
export { renderUserStatsPage } from './user_stats_page.js';
export { doBatch, type BatchRun } from './push_fanout.js';
export {
  ingesterPushError,
  isIngesterClientError,
  rpcCodeForStatus,
  toPushRpcError,
} from './push_errors.js';
export {
  FNV32_OFFSET,
  fnv32aAdd,
  shardByAllLabels,
  shardByMetricName,
  tokenForSeries,
} from './shard.js';
