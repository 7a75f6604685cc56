// The streaming side of the compacting merge: the sources' symbol tables merged into one
// sorted table, and the sources' label-sorted series streams joined one label set at a time,
// each joined series handed out as a sample iterator that interleaves the sources' samples
// and keeps one sample per timestamp (the earliest source's, as mergeSamples does). Nothing
// here holds more than one series per source: a source's next series is read only after the
// consumer has taken the series it contributed to. An optional observer hears of every
// dropped sample whose value differs from the kept one (sample_conflicts.ts).

import { compareGoStrings, Labels } from '../../model/index.js';
import {
  MergedSampleIterator,
  type BlockSeries,
  type DroppedSampleObserver,
  type SeriesSampleIterator,
} from '../block/index.js';

/**
 * A sample dropped at a timestamp where another source's differing value was kept; sources
 * are indexes into the merged streams.
 */
export type MergeConflictObserver = (
  labels: Labels,
  t: number,
  keptSource: number,
  kept: number,
  droppedSource: number,
  dropped: number,
) => void;

/** One series of the merged stream. */
export interface MergedSeries {
  readonly labels: Labels;
  /** How many sources hold this series (2+ only where blocks overlap). */
  readonly sourceCount: number;
  /** The merged samples: time-ordered, one per timestamp (the earliest source's). */
  iterator(): SeriesSampleIterator;
}

/**
 * The sorted union of several sorted symbol tables (Go string order), each symbol once. Reads
 * every table lazily, one symbol per table at a time.
 */
export function* mergeSymbolTables(tables: readonly Iterable<string>[]): Generator<string> {
  const its = tables.map((t) => t[Symbol.iterator]());
  const heads: (string | undefined)[] = its.map((it) => {
    const r = it.next();
    return r.done === true ? undefined : r.value;
  });
  let last: string | undefined;
  for (;;) {
    let lowest: string | undefined;
    for (const h of heads) {
      if (h !== undefined && (lowest === undefined || compareGoStrings(h, lowest) < 0)) lowest = h;
    }
    if (lowest === undefined) return;
    for (let i = 0; i < heads.length; i++) {
      if (heads[i] !== lowest) continue;
      const r = (its[i] as Iterator<string>).next();
      heads[i] = r.done === true ? undefined : r.value;
    }
    if (last === undefined || compareGoStrings(lowest, last) > 0) {
      last = lowest;
      yield lowest;
    }
  }
}

/**
 * Joins label-sorted series streams (one per source block, in source order: for equal
 * timestamps the earlier source wins) into one label-sorted stream of merged series. A
 * source's next series is pulled only when the consumer asks for the next merged series, so
 * at most one series per source is held at any time. Series may still yield no sample (all
 * deleted); the consumer drops those.
 */
export async function* mergeSeriesStream(
  sets: readonly AsyncIterator<BlockSeries>[],
  onConflict?: MergeConflictObserver,
): AsyncGenerator<MergedSeries> {
  const heads: (BlockSeries | null)[] = [];
  const pull = async (i: number): Promise<void> => {
    const r = await (sets[i] as AsyncIterator<BlockSeries>).next();
    heads[i] = r.done === true ? null : r.value;
  };
  for (let i = 0; i < sets.length; i++) {
    heads.push(null);
    await pull(i);
  }
  for (;;) {
    let lowest: Labels | null = null;
    for (const h of heads) {
      if (h !== null && (lowest === null || Labels.compare(h.labels, lowest) < 0)) {
        lowest = h.labels;
      }
    }
    if (lowest === null) return;
    const members: BlockSeries[] = [];
    const taken: number[] = [];
    for (let i = 0; i < heads.length; i++) {
      const h = heads[i];
      if (h === null || h === undefined || Labels.compare(h.labels, lowest) !== 0) continue;
      members.push(h);
      taken.push(i);
      heads[i] = null;
    }
    const labels = lowest;
    const observer: DroppedSampleObserver | undefined =
      onConflict === undefined
        ? undefined
        : (t, keptMember, kept, droppedMember, dropped) => {
            onConflict(
              labels,
              t,
              taken[keptMember] as number,
              kept,
              taken[droppedMember] as number,
              dropped,
            );
          };
    yield {
      labels,
      sourceCount: members.length,
      iterator: () =>
        members.length === 1
          ? (members[0] as BlockSeries).iterator()
          : new MergedSampleIterator(
              members.map((m) => m.iterator()),
              observer,
            ),
    };
    // Only now, once the consumer is done with the merged series, read the next ones.
    for (const i of taken) await pull(i);
  }
}
