/**
 * Finding samples a vertical compaction will drop although they differ from the one it keeps.
 * Replicas of a range hold identical samples, and the merge (Prometheus's compacting merge)
 * keeps one sample per series and timestamp: for identical replicas nothing is lost. When two
 * overlapping blocks hold different values at the same timestamp (a replica that diverged, a
 * backfill over existing data), the merge still keeps one — Prometheus whichever its heap
 * reaches first, Strata's the one of the earliest source in plan order (minTime, then ULID) —
 * and silently drops the rest. The compactor goes on with the merge, as Prometheus does, but
 * first counts and logs what will be dropped, so the loss is never silent.
 *
 * The scan reads the overlapping sources the way the merge does: one series per source at a
 * time, joined by label set; only series held by two or more sources are compared. Values are
 * compared by their bits, so a stale marker differs from a number but not from itself.
 */
import { Labels, Matcher } from '../model/index.js';
import { throwIfAborted, type FileSystem } from '../runtime/index.js';
import {
  BlockReader,
  ValueType,
  type BlockSeries,
  type SeriesSampleIterator,
} from '../tsdb/index.js';

/** One dropped sample, for the log line. */
export interface SampleConflict {
  labels: string;
  timestamp: number;
  /** The value kept (from `keptBlock`). */
  kept: number;
  keptBlock: string;
  /** The first differing value dropped (from `droppedBlock`). */
  dropped: number;
  droppedBlock: string;
}

export interface SampleConflicts {
  /** Samples dropped by the merge whose value differs from the kept one. */
  samples: number;
  /** Series with at least one such sample. */
  series: number;
  /** The first conflict met (series in label order, then time). */
  first?: SampleConflict;
}

const EVERY_SERIES = [Matcher.regex('__name__', '.*')];

/** Bit-exact float comparison (NaN payloads included) without allocating per sample. */
class BitsComparer {
  private readonly floats = new Float64Array(2);
  private readonly bits = new BigUint64Array(this.floats.buffer);

  same(a: number, b: number): boolean {
    this.floats[0] = a;
    this.floats[1] = b;
    return this.bits[0] === this.bits[1];
  }
}

/**
 * Scans the blocks in `dirs` (in merge order: the first source's sample is the one kept) over
 * [minTime, maxTime) and counts the samples the merge would drop with a different value.
 */
export async function findSampleConflicts(
  dirs: readonly string[],
  blockIds: readonly string[],
  range: { minTime: number; maxTime: number },
  deps: { fs: FileSystem },
  signal?: AbortSignal,
): Promise<SampleConflicts> {
  const readers: BlockReader[] = [];
  const result: SampleConflicts = { samples: 0, series: 0 };
  try {
    for (const dir of dirs) readers.push(await BlockReader.open(dir, { fs: deps.fs }));
    const sets = readers.map((r) => r.select(EVERY_SERIES, range.minTime, range.maxTime - 1));
    const heads: (BlockSeries | null)[] = [];
    for (const set of sets) heads.push(await nextOf(set));
    const comparer = new BitsComparer();
    for (;;) {
      throwIfAborted(signal);
      let lowest: Labels | null = null;
      for (const h of heads) {
        if (h !== null && (lowest === null || Labels.compare(h.labels, lowest) < 0)) {
          lowest = h.labels;
        }
      }
      if (lowest === null) return result;
      const members: { source: number; series: BlockSeries }[] = [];
      for (let i = 0; i < heads.length; i++) {
        const h = heads[i];
        if (h === null || h === undefined || Labels.compare(h.labels, lowest) !== 0) continue;
        members.push({ source: i, series: h });
      }
      if (members.length > 1) {
        const dropped = compareSeries(lowest, members, blockIds, comparer, result);
        if (dropped > 0) {
          result.samples += dropped;
          result.series++;
        }
      }
      for (const m of members)
        heads[m.source] = await nextOf(sets[m.source] as AsyncGenerator<BlockSeries>);
    }
  } finally {
    for (const r of readers) await r.close();
  }
}

async function nextOf(set: AsyncGenerator<BlockSeries>): Promise<BlockSeries | null> {
  const r = await set.next();
  return r.done === true ? null : r.value;
}

/** Walks one series' sources in time order; returns how many differing samples the merge drops. */
function compareSeries(
  labels: Labels,
  members: readonly { source: number; series: BlockSeries }[],
  blockIds: readonly string[],
  comparer: BitsComparer,
  result: SampleConflicts,
): number {
  const its: SeriesSampleIterator[] = members.map((m) => m.series.iterator());
  const live = its.map((it) => advance(it, labels));
  let dropped = 0;
  for (;;) {
    // The smallest timestamp; on ties the earliest source is the one the merge keeps.
    let keep = -1;
    for (let i = 0; i < its.length; i++) {
      if (live[i] !== true) continue;
      if (
        keep < 0 ||
        (its[i] as SeriesSampleIterator).atT() < (its[keep] as SeriesSampleIterator).atT()
      ) {
        keep = i;
      }
    }
    if (keep < 0) return dropped;
    const kept = its[keep] as SeriesSampleIterator;
    const t = kept.atT();
    const v = kept.atF();
    for (let i = 0; i < its.length; i++) {
      const it = its[i] as SeriesSampleIterator;
      if (i === keep || live[i] !== true || it.atT() !== t) continue;
      if (!comparer.same(v, it.atF())) {
        dropped++;
        result.first ??= {
          labels: labels.toString(),
          timestamp: t,
          kept: v,
          keptBlock: blockIds[(members[keep] as { source: number }).source] ?? '',
          dropped: it.atF(),
          droppedBlock: blockIds[(members[i] as { source: number }).source] ?? '',
        };
      }
      live[i] = advance(it, labels);
    }
    live[keep] = advance(kept, labels);
  }
}

function advance(it: SeriesSampleIterator, labels: Labels): boolean {
  if (it.next() !== ValueType.None) return true;
  const err = it.err();
  if (err !== null) throw new Error(`reading series ${labels.toString()}: ${err.message}`);
  return false;
}
