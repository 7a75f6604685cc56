// Merges the series of several blocks into one sorted stream of whole series, as Prometheus's
// compacting merge (storage.NewCompactingChunkSeriesMerger with ChainedSeriesMerge) does for
// vertical compaction: series with equal label sets are joined, their samples interleaved in
// timestamp order, and of several samples at one timestamp only one is kept. Prometheus keeps
// whichever its chain iterator's heap reaches first (an unspecified choice); we keep the one
// from the earliest source in the order given, so the result is deterministic.

import { Labels } from '../../model/index.js';
import { ValueType } from '../chunkenc/index.js';
import {
  MergedSampleIterator,
  type BlockSeries,
  type BlockSeriesInput,
  type SeriesSampleIterator,
} from '../block/index.js';

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
  const merged = new MergedSampleIterator(iterators);
  while (merged.next() !== ValueType.None) out.push(merged.atT(), merged.atF());
  const err = merged.err();
  if (err !== null) {
    throw new Error(`reading series ${labels.toString()} for compaction: ${err.message}`);
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
