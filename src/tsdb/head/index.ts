/**
 * The head: the in-memory, writable part of a tenant's TSDB, as Prometheus's head works.
 * Series in `stripe_size` shards with refs that are never reused, XOR chunks cut by
 * Prometheus's rules, a label index implementing PostingsSource, the §11 ingestion window
 * enforced by appenders with commit/rollback, WAL logging on commit and replay on open, and
 * garbage collection with WAL checkpointing, and an opt-in out-of-order window (samples
 * older than a series' newest kept in per-series out-of-order chunks, logged to the WBL,
 * merged on read and handed to out-of-order compaction). Float samples only.
 * It must never read the clock or touch the disk except through the WAL it is given, and
 * never hold a sample value in a JavaScript number array (NaN payloads must survive).
 */
export {
  DuplicateSampleForTimestampError,
  OutOfBoundsError,
  OutOfOrderSampleError,
  SampleRejectedError,
  TooOldSampleError,
  type SampleRejectionCode,
} from './errors.js';
export {
  DEFAULT_CHUNK_RANGE,
  DEFAULT_STRIPE_SIZE,
  EMPTY_HEAD_MAX_TIME,
  EMPTY_HEAD_MIN_TIME,
  Head,
  type HeadConfig,
  type HeadDeps,
} from './head.js';
export { HeadAppender, type CommitResult } from './head_append.js';
export { HeadSampleIterator, type HeadSeries, type SelectOptions } from './head_read.js';
export {
  openHead,
  truncateHead,
  walDir,
  wblDir,
  type HeadReplayStats,
  type OpenHeadConfig,
  type OpenHeadDeps,
} from './head_wal.js';
export type { CompletedChunk, MemSeries, OOOData } from './mem_series.js';
export { DEFAULT_OOO_CAP_MAX, type OOOChunk } from './ooo_chunk.js';
export { HeadMetrics } from './metrics.js';
