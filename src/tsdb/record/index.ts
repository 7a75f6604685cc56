/**
 * Prometheus's WAL record encodings (tsdb/record), byte for byte: the record type byte and
 * the series, samples, tombstones, exemplars, mmap-marker and metadata records, so a WAL we
 * write replays in Prometheus (`promtool tsdb dump`) and theirs replays in ours. Histogram
 * record types are recognised (`recordType`) but not decoded yet. Pure functions over bytes:
 * this module must never do IO, and never move a sample value through a JavaScript number
 * (values travel as raw bits in `SampleBatch`, so NaN payloads like the stale marker survive).
 *
 * Refs: Prometheus's series refs are uint64 and timestamps int64; here both are numbers and
 * must be safe integers (below 2^53). Encoders refuse anything else with a RangeError and
 * decoders with a RecordDecodeError, rather than silently rounding.
 */
export { RecordDecodeError } from './errors.js';
export { decodeExemplars, encodeExemplars, type RefExemplar } from './exemplars.js';
export { decodeMetadata, encodeMetadata, type RefMetadata } from './metadata.js';
export { decodeMmapMarkers, encodeMmapMarkers, type RefMmapMarker } from './mmap_markers.js';
export { SampleBatch, HI as FLOAT_WORD_HI, LO as FLOAT_WORD_LO } from './sample_batch.js';
export { decodeSamples, encodeSamples } from './samples.js';
export {
  decodeLabels,
  decodeSeries,
  encodeLabels,
  encodeSeries,
  type RefSeries,
} from './series.js';
export { decodeTombstones, encodeTombstones, type TombstoneEntry } from './tombstones.js';
export { MetricType, RecordType, recordType, recordTypeName } from './types.js';
