/**
 * Merging the answers of several blocks into one: each block answers series sorted by
 * labels; a series present in several blocks (replicas before compaction, adjacent time
 * ranges) becomes one series carrying the chunks of every block in time order. Chunks are
 * never decoded or de-duplicated here: overlapping replica chunks are the querier's job.
 */
import { compareGoStrings } from '../model/index.js';
import { mergeSeriesChunkSets } from '../tsdb/index.js';
import type { StoreSeries } from './block_api.js';

/** Merges label-sorted series lists into one label-sorted list. */
export function mergeSeriesSets(sets: readonly (readonly StoreSeries[])[]): StoreSeries[] {
  return mergeSeriesChunkSets(sets);
}

/** Sorted union of sorted string lists (label names or values), in Go string order. */
export function mergeSortedStrings(lists: readonly (readonly string[])[]): string[] {
  const all = new Set<string>();
  for (const l of lists) for (const s of l) all.add(s);
  return [...all].sort(compareGoStrings);
}
