/**
 * The block index in Prometheus's format v2 (symbols, series, label indices, postings, offset
 * tables, TOC), byte-identical to what Prometheus writes: a writer over the runtime
 * FileSystem, a reader over any ranged byte source (local file now, object-store ranges for
 * the store-gateway later), postings set operations and Prometheus's matcher resolution.
 * It must never touch node:fs or read whole files it only needs ranges of.
 */
export {
  bytesSource,
  openFileSource,
  type ByteSource,
  type FileByteSource,
} from './byte_source.js';
export { DEFAULT_READ_AHEAD_BYTES, ReadAheadWindow, readAheadSource } from './read_ahead.js';
export {
  DEFAULT_SAMPLING_FACTOR,
  INDEX_FORMAT_V2,
  INDEX_MAGIC,
  INDEX_TOC_LENGTH,
  IndexFormatError,
  SERIES_ALIGNMENT,
  decodeToc,
  encodeToc,
  type IndexToc,
} from './format.js';
export {
  emptyPostings,
  intersectPostings,
  mergePostings,
  toPostings,
  withoutPostings,
  type PostingsList,
} from './postings.js';
export {
  ALL_POSTINGS_NAME,
  ALL_POSTINGS_VALUE,
  postingsForMatchers,
  type PostingsSource,
} from './postings_for_matchers.js';
export {
  IndexReader,
  type IndexReaderOptions,
  type IndexSeries,
  type PostingsRange,
} from './reader.js';
export {
  decodePostingsList,
  postingsListLength,
  seriesEntryBody,
  seriesEntryLength,
} from './entries.js';
export {
  IndexWriter,
  type ChunkMeta,
  type IndexWriterConfig,
  type IndexWriterDeps,
} from './writer.js';
