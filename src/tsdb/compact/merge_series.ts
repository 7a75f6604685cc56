// Merges the series of several blocks into one sorted stream of whole series, as Prometheus's
// compacting merge (storage.NewCompactingChunkSeriesMerger with ChainedSeriesMerge) does for
// vertical compaction: series with equal label sets are joined, their samples interleaved in
// timestamp order, and of several samples at one timestamp only one is kept. Prometheus keeps
// whichever its chain iterator's heap reaches first (an unspecified choice); we keep the one
// from the earliest source in the order given, so the result is deterministic.

import { Labels } from '../../model/index.js';
import { ValueType } from '../chunkenc/index.js';
import type { BlockSeries, BlockSeriesInput, SeriesSampleIterator } from '../block/index.js';

/** Growable parallel arrays of one series' merged samples. */
class SampleBuffer {
  timestamps = new Float64Array(256);
  values = new Float64Array(256);
  length = 0;

  push(t: number, v: number): void {
    if (this.length === this.timestamps.length) {
      const ts = new Float64Array(this.length * 2);
      ts.set(this.timestamps);
      this.timestamps = ts;
      const vs = new Float64Array(this.length * 2);
      vs.set(this.values);
      this.values = vs;
    }
    this.timestamps[this.length] = t;
    // Float64Array stores the value's bits unchanged, so NaN payloads (stale markers) survive.
    this.values[this.length] = v;
    this.length++;
  }
}

/**
 * Interleaves the samples of `iterators` (one series from several blocks, in source order)
 * by timestamp, keeping one sample per timestamp: the first iterator's in source order.
 * Throws the first iterator error, naming the series.
 */
export function mergeSamples(
  labels: Labels,
  iterators: readonly SeriesSampleIterator[],
): BlockSeriesInput {
  const out = new SampleBuffer();
  const k = iterators.length;
  // Current timestamp of each iterator, +Infinity once exhausted.
  const heads = new Float64Array(k);
  const advance = (i: number): void => {
    const it = iterators[i] as SeriesSampleIterator;
    if (it.next() === ValueType.None) {
      const err = it.err();
      if (err !== null) {
        throw new Error(`reading series ${labels.toString()} for compaction: ${err.message}`);
      }
      heads[i] = Number.POSITIVE_INFINITY;
    } else {
      heads[i] = it.atT();
    }
  };
  for (let i = 0; i < k; i++) advance(i);
  for (;;) {
    let best = -1;
    let bestT = Number.POSITIVE_INFINITY;
    // Strict `<` keeps the earliest source on equal timestamps.
    for (let i = 0; i < k; i++) {
      const t = heads[i] as number;
      if (t < bestT) {
        bestT = t;
        best = i;
      }
    }
    if (best < 0) break;
    out.push(bestT, (iterators[best] as SeriesSampleIterator).atF());
    // Every source positioned at this timestamp moves on: its sample is a duplicate.
    for (let i = 0; i < k; i++) if (heads[i] === bestT) advance(i);
  }
  return {
    labels,
    timestamps: out.timestamps.subarray(0, out.length),
    values: out.values.subarray(0, out.length),
  };
}

/**
 * Joins several label-sorted series streams (one per source block, in source order) into
 * merged series sorted by labels. Series left without samples (all deleted) are dropped.
 */
export async function mergeSeriesSets(
  sets: readonly AsyncIterator<BlockSeries>[],
): Promise<BlockSeriesInput[]> {
  const heads: (BlockSeries | null)[] = [];
  const pull = async (i: number): Promise<void> => {
    const r = await (sets[i] as AsyncIterator<BlockSeries>).next();
    heads[i] = r.done === true ? null : r.value;
  };
  for (let i = 0; i < sets.length; i++) {
    heads.push(null);
    await pull(i);
  }
  const result: BlockSeriesInput[] = [];
  for (;;) {
    let lowest: Labels | null = null;
    for (const h of heads) {
      if (h !== null && (lowest === null || Labels.compare(h.labels, lowest) < 0)) {
        lowest = h.labels;
      }
    }
    if (lowest === null) break;
    const group: SeriesSampleIterator[] = [];
    for (let i = 0; i < heads.length; i++) {
      const h = heads[i];
      if (h === null || h === undefined || Labels.compare(h.labels, lowest) !== 0) continue;
      group.push(h.iterator());
      await pull(i);
    }
    const merged = mergeSamples(lowest, group);
    if (merged.timestamps.length > 0) result.push(merged);
  }
  return result;
}
