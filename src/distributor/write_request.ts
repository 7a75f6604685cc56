/**
 * The decoded form of a remote-write 1.0 `prometheus.WriteRequest` (Cortex's `cortexpb`
 * superset: `source` = 2 and `skip_label_name_validation` = 1000), shaped for the push hot
 * path: all float samples of a request live in two typed arrays, each series points at its
 * range, and label strings are interned per request (one string per distinct byte sequence).
 */
import type { CachedLabels } from './series_labels_cache.js';

/** Cortex's `WriteRequest.source`: who sent the push (the ruler pushes with RULE). */
export const WRITE_SOURCE_API = 0;
export const WRITE_SOURCE_RULE = 1;

export interface WriteRequestData {
  readonly series: SeriesData[];
  /** Sample timestamps (ms) of every series, series after series, in wire order. */
  readonly timestamps: Float64Array;
  readonly values: Float64Array;
  readonly metadata: MetricMetadata[];
  readonly source: number;
  readonly skipLabelNameValidation: boolean;
  readonly exemplarCount: number;
  readonly histogramCount: number;
}

export interface SeriesData {
  /**
   * name0, value0, name1, value1, ... in wire order (not sorted or de-duplicated here). The
   * array may be shared with other requests (SeriesLabelsCache): replace it, never change it.
   */
  labels: string[];
  /**
   * The SeriesLabelsCache entry `labels` came from (a hit) or went into (a miss), when the
   * request was decoded with one; it describes `labels` only while `cached.flat === labels`.
   */
  readonly cached?: CachedLabels | undefined;
  /** This series' samples are `timestamps/values[sampleStart, sampleEnd)`. */
  readonly sampleStart: number;
  readonly sampleEnd: number;
  readonly exemplars: readonly Exemplar[];
  /** Native histograms are decoded (so malformed ones are rejected) but not ingested yet. */
  readonly histograms: readonly Histogram[];
}

export interface Exemplar {
  readonly labels: string[];
  readonly value: number;
  readonly timestamp: number;
}

export interface BucketSpan {
  readonly offset: number;
  readonly length: number;
}

/** `prometheus.Histogram`; a oneof member not sent is undefined. */
export interface Histogram {
  countInt?: number;
  countFloat?: number;
  sum: number;
  schema: number;
  zeroThreshold: number;
  zeroCountInt?: number;
  zeroCountFloat?: number;
  negativeSpans: BucketSpan[];
  negativeDeltas: number[];
  negativeCounts: number[];
  positiveSpans: BucketSpan[];
  positiveDeltas: number[];
  positiveCounts: number[];
  resetHint: number;
  timestamp: number;
  customValues: number[];
}

/** `prometheus.MetricMetadata`; `type` is the MetricType enum number (0 = UNKNOWN). */
export interface MetricMetadata {
  readonly type: number;
  readonly metricFamilyName: string;
  readonly help: string;
  readonly unit: string;
}

export function sampleCount(req: WriteRequestData): number {
  return req.timestamps.length;
}

/** A series' labels as `[name, value]` pairs, for messages and tests (allocates). */
export function labelPairs(labels: readonly string[]): [string, string][] {
  const out: [string, string][] = [];
  for (let i = 0; i + 1 < labels.length; i += 2) out.push([labels[i] ?? '', labels[i + 1] ?? '']);
  return out;
}

/**
 * The label cache entry of a series, while it still describes the series' labels (a stage
 * that replaced `labels`, as HA processing does, leaves an entry that no longer applies).
 */
export function cachedEntryOf(s: SeriesData): CachedLabels | undefined {
  return s.cached?.flat === s.labels ? s.cached : undefined;
}

/** Remote write's `MetricMetadata.MetricType` values, lower case as the query API prints them. */
const METRIC_TYPE_NAMES = [
  'unknown',
  'counter',
  'gauge',
  'histogram',
  'gaugehistogram',
  'summary',
  'info',
  'stateset',
] as const;

/** The query API's name of a remote-write metric type number (`unknown` for any other). */
export function metricTypeName(type: number): string {
  return METRIC_TYPE_NAMES[type] ?? 'unknown';
}
