/**
 * Block compaction: merging several blocks into one (horizontally, and vertically when they
 * overlap, collapsing the identical samples replicated writes produce; tombstoned samples are
 * dropped), in memory or streaming one series at a time (compactBlocksStreaming, what the
 * compactor runs, which also counts the samples dropped with a value differing from the kept one), and Prometheus's leveled planner over `block_ranges`, which picks the
 * blocks to merge next exactly as Prometheus does. It reaches disk only through the runtime FileSystem
 * and never deletes source blocks: that is the caller's decision once the new block is in place.
 */
export { CompactionError } from './errors.js';
export {
  compactBlockMetas,
  compactBlocks,
  type CompactDeps,
  type CompactedLineage,
  type CompactOptions,
  type CompactResult,
} from './compact_blocks.js';
export { mergeSamples, mergeSeriesSets } from './merge_series.js';
export {
  compactBlocksStreaming,
  type MergedSeriesObserver,
  type StreamingCompactResult,
} from './compact_streaming.js';
export {
  mergeSeriesStream,
  mergeSymbolTables,
  type MergeConflictObserver,
  type MergedSeries,
} from './merge_stream.js';
export {
  SampleConflictCounter,
  type SampleConflict,
  type SampleConflicts,
} from './sample_conflicts.js';

export {
  exponentialBlockRanges,
  planBlockOf,
  planCompaction,
  selectOverlapping,
  splitByRange,
  type PlanBlock,
} from './planner.js';
