import type {
  Exemplar,
  Histogram,
  MetricMetadata,
  SeriesData,
  WriteRequestData,
} from './write_request.js';

/** A write request as plain objects: what tests, benchmarks and generators start from. */
export interface PlainWriteRequest {
  series: PlainSeries[];
  metadata?: MetricMetadata[];
  source?: number;
  skipLabelNameValidation?: boolean;
}

export interface PlainSeries {
  /** `[name, value]` pairs in the order they go on the wire. */
  labels: [string, string][];
  samples?: { value: number; timestamp: number }[];
  exemplars?: { labels: [string, string][]; value: number; timestamp: number }[];
  histograms?: Histogram[];
}

/** Builds the decoded (hot-path) form from plain objects. */
export function buildWriteRequest(plain: PlainWriteRequest): WriteRequestData {
  let total = 0;
  for (const s of plain.series) total += s.samples?.length ?? 0;
  const timestamps = new Float64Array(total);
  const values = new Float64Array(total);
  let n = 0;
  let exemplarCount = 0;
  let histogramCount = 0;
  const series: SeriesData[] = plain.series.map((s) => {
    const sampleStart = n;
    for (const sample of s.samples ?? []) {
      timestamps[n] = sample.timestamp;
      values[n] = sample.value;
      n++;
    }
    const exemplars: Exemplar[] = (s.exemplars ?? []).map((e) => ({
      labels: flatPairs(e.labels),
      value: e.value,
      timestamp: e.timestamp,
    }));
    exemplarCount += exemplars.length;
    histogramCount += s.histograms?.length ?? 0;
    return {
      labels: flatPairs(s.labels),
      sampleStart,
      sampleEnd: n,
      exemplars,
      histograms: s.histograms ?? [],
    };
  });
  return {
    series,
    timestamps,
    values,
    metadata: plain.metadata ?? [],
    source: plain.source ?? 0,
    skipLabelNameValidation: plain.skipLabelNameValidation ?? false,
    exemplarCount,
    histogramCount,
  };
}

/** `[[n, v], ...]` as `[n, v, ...]`; a plain loop, as `Array.prototype.flat` is slow in V8. */
function flatPairs(pairs: readonly (readonly [string, string])[]): string[] {
  const out = new Array<string>(pairs.length * 2);
  for (let i = 0; i < pairs.length; i++) {
    const p = pairs[i] as readonly [string, string];
    out[2 * i] = p[0];
    out[2 * i + 1] = p[1];
  }
  return out;
}

/** The plain form of a decoded request (allocates; for tests and debugging). */
export function toPlainWriteRequest(req: WriteRequestData): Required<PlainWriteRequest> {
  return {
    series: req.series.map((s) => {
      const samples: { value: number; timestamp: number }[] = [];
      for (let i = s.sampleStart; i < s.sampleEnd; i++) {
        samples.push({ value: req.values[i] as number, timestamp: req.timestamps[i] as number });
      }
      return {
        labels: pairs(s.labels),
        samples,
        exemplars: s.exemplars.map((e) => ({
          labels: pairs(e.labels),
          value: e.value,
          timestamp: e.timestamp,
        })),
        histograms: [...s.histograms],
      };
    }),
    metadata: [...req.metadata],
    source: req.source,
    skipLabelNameValidation: req.skipLabelNameValidation,
  };
}

function pairs(flat: readonly string[]): [string, string][] {
  const out: [string, string][] = [];
  for (let i = 0; i + 1 < flat.length; i += 2) out.push([flat[i] as string, flat[i + 1] as string]);
  return out;
}
