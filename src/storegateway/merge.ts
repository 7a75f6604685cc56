/**
 * Merging the answers of several blocks into one: each block answers series sorted by
 * labels; a series present in several blocks (replicas before compaction, adjacent time
 * ranges) becomes one series carrying the chunks of every block in time order. Chunks are
 * never decoded or de-duplicated here: overlapping replica chunks are the querier's job.
 */
import { Labels, compareGoStrings } from '../model/index.js';
import type { StoreChunk, StoreSeries } from './block_api.js';

/** Merges label-sorted series lists into one label-sorted list. */
export function mergeSeriesSets(sets: readonly (readonly StoreSeries[])[]): StoreSeries[] {
  let layer: (readonly StoreSeries[])[] = sets.filter((s) => s.length > 0);
  if (layer.length === 0) return [];
  // Pairwise rounds: log2(blocks) passes over the series, each a linear two-way merge.
  while (layer.length > 1) {
    const next: (readonly StoreSeries[])[] = [];
    for (let i = 0; i < layer.length; i += 2) {
      const a = layer[i] as readonly StoreSeries[];
      const b = layer[i + 1];
      next.push(b === undefined ? a : mergeTwo(a, b));
    }
    layer = next;
  }
  return [...(layer[0] as readonly StoreSeries[])];
}

function mergeTwo(a: readonly StoreSeries[], b: readonly StoreSeries[]): StoreSeries[] {
  const out: StoreSeries[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const x = a[i] as StoreSeries;
    const y = b[j] as StoreSeries;
    const order = Labels.compare(x.labels, y.labels);
    if (order < 0) {
      out.push(x);
      i++;
    } else if (order > 0) {
      out.push(y);
      j++;
    } else {
      out.push({ labels: x.labels, chunks: mergeChunks(x.chunks, y.chunks) });
      i++;
      j++;
    }
  }
  while (i < a.length) out.push(a[i++] as StoreSeries);
  while (j < b.length) out.push(b[j++] as StoreSeries);
  return out;
}

/** Two time-ordered chunk lists as one, ordered by (minTime, maxTime); stable on ties. */
export function mergeChunks(
  a: readonly StoreChunk[],
  b: readonly StoreChunk[],
): readonly StoreChunk[] {
  const out: StoreChunk[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const x = a[i] as StoreChunk;
    const y = b[j] as StoreChunk;
    if (y.minTime < x.minTime || (y.minTime === x.minTime && y.maxTime < x.maxTime)) {
      out.push(y);
      j++;
    } else {
      out.push(x);
      i++;
    }
  }
  while (i < a.length) out.push(a[i++] as StoreChunk);
  while (j < b.length) out.push(b[j++] as StoreChunk);
  return out;
}

/** Sorted union of sorted string lists (label names or values), in Go string order. */
export function mergeSortedStrings(lists: readonly (readonly string[])[]): string[] {
  const all = new Set<string>();
  for (const l of lists) for (const s of l) all.add(s);
  return [...all].sort(compareGoStrings);
}
