/**
 * The blocks bucket as Cortex lays it out, so Strata and Cortex read each other's buckets:
 * object paths, the JSON documents (block and tenant marks, the bucket index and its sync
 * status), the tenant scan, the bucket index updater, and block deletion in its crash-safe
 * order. It talks to object storage only through the runtime `Bucket`; it must never read
 * the wall clock (times come from the `Clock` it is given), never import a component, and
 * never delete outside the one block or tenant prefix an operation names.
 */
export * from './layout.js';
export type * from './types.js';
export { BucketDocumentError, goMarshal } from './json_fields.js';
export {
  MARK_VERSION_1,
  blockOfGlobalMark,
  deleteDeletionMark,
  deleteIfExists,
  deleteNoCompactMark,
  getIfExists,
  listGlobalMarks,
  markBlockForNoCompact,
  migrateDeletionMarksToGlobal,
  parseDeletionMark,
  parseNoCompactMark,
  parseTenantDeletionMark,
  readDeletionMark,
  readGlobalDeletionMark,
  readNoCompactMark,
  readTenantDeletionMark,
  serializeDeletionMark,
  serializeNoCompactMark,
  serializeTenantDeletionMark,
  tenantDeletionMarkExists,
  writeDeletionMark,
  writeNoCompactMark,
  writeTenantDeletionMark,
  type BlockMarkKind,
  type GlobalMarks,
} from './markers.js';
export { deleteBlock, markBlockForDeletion } from './block_delete.js';
export { listTenants, scanTenants, type TenantScan } from './tenants.js';
export {
  BUCKET_INDEX_VERSION_1,
  BucketIndexCorruptedError,
  BucketIndexNotFoundError,
  decodeBucketIndex,
  encodeBucketIndex,
  gzipWithName,
  parseBucketIndexJson,
  serializeBucketIndexJson,
} from './bucket_index_codec.js';
export {
  SEGMENTS_FORMAT_1B6D,
  activeBlocksWithin,
  blockFromMeta,
  deleteBucketIndex,
  detectSegmentsFormat,
  isBucketIndexEmpty,
  readBucketIndex,
  removeBlockFromIndex,
  writeBucketIndex,
} from './bucket_index.js';
export {
  SYNC_STATUS_VERSION_1,
  deleteSyncStatus,
  parseSyncStatus,
  readSyncStatus,
  serializeSyncStatus,
  unknownSyncStatus,
  writeSyncStatus,
} from './bucket_index_sync_status.js';
export {
  BucketIndexUpdater,
  type BucketIndexUpdate,
  type BucketIndexUpdaterConfig,
  type BucketIndexUpdaterDeps,
  type PartialBlock,
} from './bucket_index_updater.js';
export {
  BlockUploadError,
  uploadBlock,
  type BlockUploadDeps,
  type BlockUploadOptions,
} from './block_upload.js';
export { BUCKET_OPERATIONS, type BucketOperation } from './bucket_operations.js';
export {
  DEFAULT_RETRY_CONFIG,
  backoffMs,
  isRetryableBucketError,
  retryConfigFor,
  type RetryConfig,
} from './retry_policy.js';
export { RetryingBucket, type RetryingBucketDeps } from './retrying_bucket.js';
export {
  BucketMetrics,
  InstrumentedBucket,
  type InstrumentedBucketConfig,
} from './instrumented_bucket.js';
export {
  openBucketClient,
  type BucketClientDeps,
  type BucketClientOptions,
} from './bucket_client.js';
export { CachingBucket, type CachingBucketDeps } from './caching_bucket.js';
export {
  CachingBucketConfig,
  cortexCachingBucketConfig,
  cortexMatchers,
  type AttributesConfig,
  type ExistsConfig,
  type GetConfig,
  type GetRangeConfig,
  type IterConfig,
} from './caching_bucket_config.js';
export { CachingBucketMetrics } from './caching_bucket_metrics.js';
