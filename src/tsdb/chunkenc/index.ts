// Chunk encodings of the storage engine: Prometheus's XOR float chunk, byte-for-byte, with
// appenders, iterators with seek, and the head's chunk-cutting rule. Room is left for the
// histogram encodings (same Encoding numbers and interfaces as Prometheus).
// This module is pure computation: it must never do IO, read the clock or allocate per sample
// on its hot paths (append, next, seek).

export { BitStreamReader, BitStreamWriter } from './bstream.js';
export {
  chunkFromData,
  type Chunk,
  type ChunkAppender,
  type ChunkIterator,
  type FloatSample,
} from './chunk.js';
export {
  computeChunkEndTime,
  computeChunkEndTimeV242,
  decideFloatAppend,
  DEFAULT_SAMPLES_PER_CHUNK,
  EMPTY_CHUNK_MAX_TIME,
  rangeForTimestamp,
  type AppendDecision,
  type ChunkCutOptions,
  type ChunkCutRules,
  type OpenChunkState,
  type SeriesChunkState,
} from './cut.js';
export { Encoding, encodingName, isValidEncoding, ValueType } from './encoding.js';
export { rawChunkSamples, rawChunksFromSamples, type RawChunk } from './raw_chunk.js';
export {
  MAX_BYTES_PER_XOR_CHUNK,
  MAX_XOR_SAMPLE_BYTES,
  XorAppender,
  XorChunk,
  XorIterator,
} from './xor.js';
export { sampleColumns, XorBulkDecoder, xorSampleCount, type SampleColumns } from './xor_bulk.js';
