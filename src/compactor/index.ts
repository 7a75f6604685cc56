/**
 * The compactor component. Today it runs the blocks cleaner, which keeps every owned tenant's
 * bucket index current and deletes what is due (blocks past their deletion delay, safe
 * partial blocks, tenants marked for deletion); block compaction comes later. With sharding
 * it owns the tenants the compactor ring (RF 1) assigns it. It must never delete a block
 * other than through the bucket module's crash-safe `deleteBlock`, never clean a tenant it
 * does not own, and never reach the clock, randomness, disk or network except through the
 * Env it is given.
 */
export {
  Compactor,
  type CompactorConfig,
  type CompactorDeps,
  type CompactorRingConfig,
} from './compactor.js';
export {
  BlocksCleaner,
  type BlocksCleanerConfig,
  type BlocksCleanerDeps,
  type CleanupOutcome,
  type CleanupRunResult,
} from './cleaner.js';
export { BLOCK_VISIT_MARKER_FILE, deletionDue } from './cleaner_blocks.js';
export {
  COMPACTOR_RING_KEY,
  COMPACTOR_RING_NUM_TOKENS,
  COMPACTOR_RING_OP,
  fnv32a,
  ownsTenant,
  tenantOwner,
} from './ownership.js';
export { cleanerMetrics, type CleanerMetrics, type CleanupUserStatus } from './metrics.js';
