/**
 * Prometheus's write-ahead log, byte for byte (tsdb/wlog): numbered segment files of 32 KiB
 * pages holding CRC32C-checked record fragments, optional snappy compression per record,
 * rotation, truncation, replay and Prometheus's repair after corruption or a torn tail.
 * Records are opaque bytes here (the series/samples/tombstones encodings live elsewhere).
 * This module must never touch the disk except through the runtime FileSystem, and never
 * drop a record that was synced without reporting a CorruptionError for it.
 */
export { CorruptionError, type CorruptionKind } from './corruption.js';
export {
  DEFAULT_SEGMENT_SIZE,
  PAGE_SIZE,
  RECORD_HEADER_SIZE,
  parseSegmentName,
  segmentName,
} from './format.js';
export { WALMetrics } from './metrics.js';
export { readRecords, type ReadRecordsDeps, type ReadRecordsOptions } from './reader.js';
export { readSegment, type SegmentRecord } from './segment_reader.js';
export { listSegments, segmentRange, type SegmentRange, type SegmentRef } from './segments.js';
export { WAL, type ReplayResult, type WALConfig, type WALDeps } from './wal.js';
export {
  checkpoint,
  checkpointName,
  deleteCheckpoints,
  lastCheckpoint,
  listCheckpoints,
  readCheckpointAndSegments,
  replayPlan,
  type CheckpointDeps,
  type CheckpointOptions,
  type CheckpointRef,
  type CheckpointStats,
} from './checkpoint.js';
