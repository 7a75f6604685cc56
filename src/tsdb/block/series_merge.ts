// Merging label-sorted lists of chunk series into one: a series present in several lists
// (blocks and the head, replicas of a block, adjacent time ranges) becomes one series
// carrying every list's chunks in time order. Chunks are never decoded or de-duplicated
// here: readers of overlapping chunks keep each timestamp once (the querier's chunk lanes).
import { Labels } from '../../model/index.js';
import type { RawChunk } from '../chunkenc/index.js';
import type { SeriesChunks } from './series_set.js';

/** Merges label-sorted series lists into one label-sorted list. */
export function mergeSeriesChunkSets(sets: readonly (readonly SeriesChunks[])[]): SeriesChunks[] {
  let layer: (readonly SeriesChunks[])[] = sets.filter((s) => s.length > 0);
  if (layer.length === 0) return [];
  // Pairwise rounds: log2(blocks) passes over the series, each a linear two-way merge.
  while (layer.length > 1) {
    const next: (readonly SeriesChunks[])[] = [];
    for (let i = 0; i < layer.length; i += 2) {
      const a = layer[i] as readonly SeriesChunks[];
      const b = layer[i + 1];
      next.push(b === undefined ? a : mergeTwo(a, b));
    }
    layer = next;
  }
  return [...(layer[0] as readonly SeriesChunks[])];
}

function mergeTwo(a: readonly SeriesChunks[], b: readonly SeriesChunks[]): SeriesChunks[] {
  const out: SeriesChunks[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const x = a[i] as SeriesChunks;
    const y = b[j] as SeriesChunks;
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
  while (i < a.length) out.push(a[i++] as SeriesChunks);
  while (j < b.length) out.push(b[j++] as SeriesChunks);
  return out;
}

/** Two time-ordered chunk lists as one, ordered by (minTime, maxTime); stable on ties. */
function mergeChunks(a: readonly RawChunk[], b: readonly RawChunk[]): readonly RawChunk[] {
  const out: RawChunk[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const x = a[i] as RawChunk;
    const y = b[j] as RawChunk;
    if (y.minTime < x.minTime || (y.minTime === x.minTime && y.maxTime < x.maxTime)) {
      out.push(y);
      j++;
    } else {
      out.push(x);
      i++;
    }
  }
  while (i < a.length) out.push(a[i++] as RawChunk);
  while (j < b.length) out.push(b[j++] as RawChunk);
  return out;
}
