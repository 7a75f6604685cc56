/**
 * Merging what the ingesters of a replication set returned: the same series comes back from
 * every replica that holds it, each with the samples that replica accepted. Series are
 * grouped by labels, their samples merged in time order with replicated samples (same
 * timestamp) kept once, and the result sorted by labels as the storage interface promises.
 */
import { Labels } from '../model/index.js';
import type { SeriesSamples } from '../ingester/index.js';
import {
  SAMPLE_FLOAT,
  SAMPLE_NONE,
  type SampleIterator,
  type StorageSeries,
} from '../promql/index.js';

/**
 * Merges the answers of several ingesters (earlier answers win when two replicas disagree on
 * a value at the same timestamp, so callers pass them in a fixed order). `keepReplicas` is
 * the simulator's deliberately broken read (its mutation canary `skip_read_dedup`): every
 * replica's copy of a sample is kept.
 */
export function mergeSeriesSets(
  answers: readonly (readonly SeriesSamples[])[],
  keepReplicas = false,
): SeriesSamples[] {
  const all: { series: SeriesSamples; source: number }[] = [];
  answers.forEach((list, source) => {
    for (const series of list) all.push({ series, source });
  });
  all.sort((a, b) => Labels.compare(a.series.labels, b.series.labels) || a.source - b.source);
  const out: SeriesSamples[] = [];
  let i = 0;
  while (i < all.length) {
    const first = (all[i] as (typeof all)[number]).series;
    const group: SeriesSamples[] = [first];
    i++;
    while (i < all.length && (all[i] as (typeof all)[number]).series.labels.equals(first.labels)) {
      group.push((all[i] as (typeof all)[number]).series);
      i++;
    }
    out.push(
      group.length === 1 ? first : keepReplicas ? concatSamples(group) : mergeSamples(group),
    );
  }
  return out;
}

/** One series from several replicas without de-duplication: every copy, by timestamp. */
function concatSamples(group: readonly SeriesSamples[]): SeriesSamples {
  const points = group.flatMap((s) => [...s.timestamps].map((t, i) => [t, s.values[i] as number]));
  points.sort((a, b) => (a[0] as number) - (b[0] as number));
  return {
    labels: (group[0] as SeriesSamples).labels,
    timestamps: Float64Array.from(points, (p) => p[0] as number),
    values: Float64Array.from(points, (p) => p[1] as number),
  };
}

/** One series from several replicas: timestamps ascending, each timestamp once. */
export function mergeSamples(group: readonly SeriesSamples[]): SeriesSamples {
  const first = group[0];
  if (first === undefined) throw new RangeError('mergeSamples needs at least one series');
  let total = 0;
  for (const s of group) total += s.timestamps.length;
  const ts = new Float64Array(total);
  const vs = new Float64Array(total);
  const pos = new Int32Array(group.length);
  let n = 0;
  for (;;) {
    // The replica with the smallest next timestamp; ties go to the earliest replica.
    let best = -1;
    let bestT = Infinity;
    for (let r = 0; r < group.length; r++) {
      const s = group[r] as SeriesSamples;
      const p = pos[r] as number;
      if (p < s.timestamps.length && (s.timestamps[p] as number) < bestT) {
        best = r;
        bestT = s.timestamps[p] as number;
      }
    }
    if (best < 0) break;
    const s = group[best] as SeriesSamples;
    ts[n] = bestT;
    vs[n] = s.values[pos[best] as number] as number;
    n++;
    // Skip this timestamp in every replica: replicated samples are one sample.
    for (let r = 0; r < group.length; r++) {
      const other = group[r] as SeriesSamples;
      while (
        (pos[r] as number) < other.timestamps.length &&
        (other.timestamps[pos[r] as number] as number) <= bestT
      )
        pos[r] = (pos[r] as number) + 1;
    }
  }
  return { labels: first.labels, timestamps: ts.slice(0, n), values: vs.slice(0, n) };
}

/** Walks a merged series' arrays (the storage engine's iterator protocol). */
export class SeriesSamplesIterator implements SampleIterator {
  private i = -1;

  constructor(private readonly series: SeriesSamples) {}

  next(): number {
    const n = this.series.timestamps.length;
    if (this.i < n) this.i++;
    return this.i < n ? SAMPLE_FLOAT : SAMPLE_NONE;
  }

  seek(t: number): number {
    const ts = this.series.timestamps;
    if (this.i < 0) this.i = 0;
    if (this.i < ts.length && (ts[this.i] as number) < t) {
      // Binary search the rest: seeks after a long gap must not walk every sample.
      let lo = this.i + 1;
      let hi = ts.length;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if ((ts[mid] as number) < t) lo = mid + 1;
        else hi = mid;
      }
      this.i = lo;
    }
    return this.i < ts.length ? SAMPLE_FLOAT : SAMPLE_NONE;
  }

  atT(): number {
    return this.series.timestamps[this.i] as number;
  }

  atF(): number {
    return this.series.values[this.i] as number;
  }

  err(): Error | null {
    return null;
  }
}

/** A merged series as the engine's StorageSeries. */
export function toStorageSeries(series: SeriesSamples): StorageSeries {
  return { labels: series.labels, iterator: () => new SeriesSamplesIterator(series) };
}
