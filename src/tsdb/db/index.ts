/**
 * The per-tenant database: the head (with its WAL in `dir/wal`) and the blocks beside it in
 * `dir/<ulid>/`, head compaction that cuts the head's oldest block range into a block once
 * the head spans more than 1.5 block ranges (reference §11, Prometheus db.compactHead) or
 * all of it when forced (Cortex/Mimir forced compaction, for `/ingester/flush`), and
 * a querier merging blocks and head per series. It must never reach disk or time except
 * through the FileSystem and Clock it is given, and never merge blocks with each other
 * (that is the compactor's job).
 */
export { headCompactable } from './block_range.js';
export {
  DEFAULT_HEAD_COMPACTION_INTERVAL,
  TMP_FOR_DELETION_SUFFIX,
  TSDB,
  type BlockDeletable,
  type CompactHeadOptions,
  type HeadCompactionResult,
  type RetentionView,
  type TSDBConfig,
  type TSDBDeps,
} from './db.js';
export { DBQuerier, type DBSeries } from './querier.js';
