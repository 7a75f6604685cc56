// The record type byte that starts every WAL record (Prometheus tsdb/record.Type), and the
// metric type byte of metadata records (record.MetricType).

/** First byte of a WAL record. Values are Prometheus's and must never be renumbered. */
export const RecordType = {
  Series: 1,
  Samples: 2,
  Tombstones: 3,
  Exemplars: 4,
  /** Only in the out-of-order write-behind log (WBL). */
  MmapMarkers: 5,
  Metadata: 6,
  HistogramSamples: 7,
  FloatHistogramSamples: 8,
  CustomBucketsHistogramSamples: 9,
  CustomBucketsFloatHistogramSamples: 10,
  /** Newer Prometheus (start-time storage); recognised but not decoded here yet. */
  SamplesV2: 11,
  HistogramSamplesV2: 12,
  FloatHistogramSamplesV2: 13,
  /** Newer Prometheus writes it into checkpoints only; recognised but not decoded here yet. */
  MinValidTime: 14,
  /** Returned by `recordType` for an empty record or an unrecognised first byte. */
  Unknown: 255,
} as const;

export type RecordType = (typeof RecordType)[keyof typeof RecordType];

const NAMES: ReadonlyMap<number, string> = new Map([
  [RecordType.Series, 'series'],
  [RecordType.Samples, 'samples'],
  [RecordType.Tombstones, 'tombstones'],
  [RecordType.Exemplars, 'exemplars'],
  [RecordType.MmapMarkers, 'mmapmarkers'],
  [RecordType.Metadata, 'metadata'],
  [RecordType.HistogramSamples, 'histogram_samples'],
  [RecordType.FloatHistogramSamples, 'float_histogram_samples'],
  [RecordType.CustomBucketsHistogramSamples, 'custom_buckets_histogram_samples'],
  [RecordType.CustomBucketsFloatHistogramSamples, 'custom_buckets_float_histogram_samples'],
  [RecordType.SamplesV2, 'samples_v2'],
  [RecordType.HistogramSamplesV2, 'histogram_samples_v2'],
  [RecordType.FloatHistogramSamplesV2, 'float_histogram_samples_v2'],
  [RecordType.MinValidTime, 'min_valid_time'],
]);

/** The type of a WAL record from its first byte; `RecordType.Unknown` if empty or unrecognised. */
export function recordType(record: Uint8Array): RecordType {
  const first = record[0];
  if (first === undefined || !NAMES.has(first)) return RecordType.Unknown;
  return first as RecordType;
}

/** Prometheus's name for a record type (`series`, `samples`, …; `unknown` otherwise). */
export function recordTypeName(type: number): string {
  return NAMES.get(type) ?? 'unknown';
}

/** Metric type byte of a metadata record (Prometheus record.MetricType). */
export const MetricType = {
  Unknown: 0,
  Counter: 1,
  Gauge: 2,
  Histogram: 3,
  GaugeHistogram: 4,
  Summary: 5,
  Info: 6,
  Stateset: 7,
} as const;

export type MetricType = (typeof MetricType)[keyof typeof MetricType];
