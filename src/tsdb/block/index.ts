/**
 * Prometheus blocks: the files other than the index — chunk segment files (`chunks/000001`…),
 * `meta.json` (with the Thanos/Cortex extension), `tombstones`, the ULIDs that name blocks —
 * and the whole-block writer and reader built on them with the index module. Byte-compatible
 * with Prometheus, reached only through the runtime FileSystem (or byte-range sources for
 * remote reads). It must never import node:fs, read the wall clock or draw randomness except
 * through the Clock and RandomStream it is given.
 */
export {
  canonicalUlid,
  compareUlids,
  formatUlid,
  isCanonicalUlid,
  parseUlid,
  ULID_LENGTH,
  ULID_MAX_TIME,
  ulidFromParts,
  UlidError,
  UlidGenerator,
  ulidTime,
  type UlidGeneratorConfig,
  type UlidGeneratorDeps,
} from './ulid.js';
export {
  CHUNK_CRC_SIZE,
  CHUNK_ENCODING_SIZE,
  ChunkCorruptionError,
  chunkRef,
  chunkRefOffset,
  chunkRefSegment,
  CHUNKS_FORMAT_V1,
  CHUNKS_MAGIC,
  checkSegmentHeader,
  decodeChunkAt,
  DEFAULT_CHUNK_SEGMENT_SIZE,
  MAX_CHUNK_LENGTH_FIELD_SIZE,
  SEGMENT_HEADER_SIZE,
  segmentFileName,
  segmentHeader,
  walkSegment,
  type StoredChunk,
} from './chunk_format.js';
export {
  ChunkWriter,
  type ChunkToWrite,
  type ChunkWriterConfig,
  type ChunkWriterDeps,
} from './chunk_writer.js';
export {
  ChunkReader,
  FileSegmentSource,
  ReadAheadSegmentSource,
  type SegmentByteSource,
} from './chunk_reader.js';
export {
  BlockMetaError,
  BlockSource,
  META_FILENAME,
  META_VERSION_1,
  isFromOutOfOrder,
  OUT_OF_ORDER_HINT,
  parseBlockMeta,
  readBlockMeta,
  serializeBlockMeta,
  TENANT_EXTERNAL_LABEL,
  writeBlockMeta,
  type BlockDesc,
  type BlockMeta,
  type BlockMetaCompaction,
  type BlockStats,
  type SerializeMetaOptions,
  type ThanosFile,
  type ThanosMeta,
} from './meta.js';
export { goMarshalIndent } from './go_json.js';
export {
  addInterval,
  INTERVAL_MAX,
  INTERVAL_MIN,
  inInterval,
  isDeleted,
  isSubrange,
  type Interval,
} from './intervals.js';
export {
  decodeTombstonesFile,
  encodeTombstonesFile,
  readTombstones,
  Tombstones,
  TOMBSTONES_FILENAME,
  TOMBSTONES_FORMAT_V1,
  TOMBSTONES_MAGIC,
  TombstonesError,
  writeTombstones,
} from './tombstones.js';
export {
  BlockWriteError,
  DEFAULT_BLOCK_CHUNK_RANGE,
  PROMTOOL_CHUNK_RANGE,
  TMP_FOR_CREATION_SUFFIX,
  writeBlock,
  type BlockSeriesInput,
  type FinalBlockMeta,
  type WriteBlockDeps,
  type WriteBlockOptions,
} from './block_writer.js';
export { SeriesChunkCutter, type ChunkCutterOptions, type CutSeries } from './chunk_cutter.js';
export {
  StreamingBlockWriter,
  type StreamingBlockWriterDeps,
  type StreamingWriteOptions,
} from './streaming_writer.js';
export {
  BlockReader,
  type BlockOpenOptions,
  type BlockParts,
  type BlockReaderDeps,
} from './block_reader.js';
export {
  ChunkSeriesIterator,
  type BlockSeries,
  type SeriesChunks,
  type SeriesSampleIterator,
} from './series_set.js';
export { mergeSeriesChunkSets } from './series_merge.js';
export { MergedSampleIterator, type DroppedSampleObserver } from './merge_iterator.js';
