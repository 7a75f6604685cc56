/**
 * Merging what the ingesters of a replication set returned: the same series comes back from
 * every replica that holds it, each with the chunks that replica holds. Series are grouped
 * by labels and sorted as the storage interface promises; replicated samples (same
 * timestamp) are kept once when the chunks are walked.
 */
import { Labels } from '../model/index.js';
import type { SeriesSamples } from '../ingester/index.js';
import type { SeriesChunks } from '../tsdb/index.js';
import {
  mergeStoreSeries,
  storeChunksIterator,
  storeSeriesToStorageSeries,
} from './chunk_series.js';
import { ChunkSampleReader } from './chunk_samples.js';
import {
  SAMPLE_FLOAT,
  SAMPLE_NONE,
  type SampleIterator,
  type StorageSeries,
} from '../promql/index.js';

/**
 * The answers of several ingesters (chunk series, each answer sorted by labels) as one
 * StorageSeries per label set, sorted by labels, decoded lazily within [mint, maxt]. Every
 * replica's chunks of a series go to the one series; walking them keeps each timestamp once
 * (chunk lanes, the same merge as the store-gateway's block copies). `keepReplicas` is the
 * simulator's deliberately broken read (its mutation canary `skip_read_dedup`): every
 * replica's copy of a sample is kept.
 */
export function mergeIngesterAnswers(
  answers: readonly (readonly SeriesChunks[])[],
  mint: number,
  maxt: number,
  keepReplicas = false,
): StorageSeries[] {
  if (keepReplicas) return replicaCopies(answers, mint, maxt);
  const reader = new ChunkSampleReader();
  return mergeStoreSeries(answers).map((s) => storeSeriesToStorageSeries(s, mint, maxt, reader));
}

/** Every replica's samples of each series, copies kept, in time order (the canary). */
function replicaCopies(
  answers: readonly (readonly SeriesChunks[])[],
  mint: number,
  maxt: number,
): StorageSeries[] {
  const byLabels = new Map<string, { labels: Labels; points: [number, number][] }>();
  for (const answer of answers)
    for (const s of answer) {
      const key = s.labels.toString();
      let entry = byLabels.get(key);
      if (entry === undefined) byLabels.set(key, (entry = { labels: s.labels, points: [] }));
      const it = storeChunksIterator(s.chunks, mint, maxt);
      while (it.next() === SAMPLE_FLOAT) entry.points.push([it.atT(), it.atF()]);
      const err = it.err();
      if (err !== null) throw err;
    }
  return [...byLabels.values()]
    .sort((a, b) => Labels.compare(a.labels, b.labels))
    .map(({ labels, points }) => {
      points.sort((a, b) => a[0] - b[0]);
      return toStorageSeries({
        labels,
        timestamps: Float64Array.from(points, (p) => p[0]),
        values: Float64Array.from(points, (p) => p[1]),
      });
    });
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
