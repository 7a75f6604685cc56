/**
 * The compactor component. It runs the blocks cleaner, which keeps every owned tenant's
 * bucket index current and deletes what is due (blocks past their deletion delay, safe
 * partial blocks, tenants marked for deletion), and the compaction loop, which merges a
 * tenant's replicated and adjacent blocks (grouper, planner, verified downloads, streaming
 * merge, upload, then deletion marks on the sources). With sharding it owns the tenants the
 * compactor ring (RF 1) assigns it; with the shuffle-sharding strategy every compactor of a
 * tenant's shard compacts it, the compactors keeping to disjoint groups through block visit
 * markers. It must never delete a block other than through the
 * bucket module's crash-safe `deleteBlock`, never mark a compaction's sources before its
 * output's meta.json is uploaded, never clean or compact a tenant it does not own, and never
 * reach the clock, randomness, disk or network except through the Env it is given.
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
export {
  CompactionLoop,
  defaultCompactionStrategy,
  type CompactionConfig,
  type CompactionLoopDeps,
  type CompactionRunResult,
  type CompactionStrategy,
} from './compaction_loop.js';
export { DefaultGrouper, defaultGroupKey, type CompactionGroup, type Grouper } from './grouper.js';
export {
  DefaultPlanner,
  planMetas,
  type DefaultPlannerConfig,
  type PlanContext,
  type Planner,
} from './planner.js';
export { CORRUPTED_BLOCK_NO_COMPACT_REASON } from './group_compactor.js';
export {
  forgetStaleCompactors,
  inTenantShard,
  tenantShard,
  waitRingStability,
  type CompactorShardingStrategy,
} from './compactor_ring.js';
export {
  ShuffleShardingGrouper,
  groupBlocksByCompactableRanges,
  groupBlocksByRange,
  type RangeGroup,
} from './shuffle_sharding_grouper.js';
export {
  ShuffleShardingPlanner,
  shuffleShardingCompactionStrategy,
  type ShuffleShardingStrategyConfig,
} from './shuffle_sharding_planner.js';
export {
  VISIT_MARKER_VERSION,
  blockVisitMarkerPath,
  isVisitFresh,
  readBlockVisitMarker,
  type BlockVisitMarker,
} from './visit_marker.js';
export {
  CompactionHaltError,
  CorruptBlockError,
  TenantNotOwnedError,
  type CorruptionKind,
} from './compaction_errors.js';
export { compactionMetrics, type CompactionMetrics } from './compaction_metrics.js';
