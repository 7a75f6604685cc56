// Prometheus's LeveledCompactor plan (tsdb/compact.go): which blocks to compact next. Blocks
// that overlap in time come first (vertical compaction); otherwise, leaving out the newest
// block (just cut from the head, so users get a window to back it up), the first range of
// each larger `block_ranges` step that is either complete or lies wholly before the newest
// block; failing that, one large block whose tombstones cover more than 5% of its series.
// Planning looks at meta.json contents only; it never touches a disk.

import type { BlockMeta } from '../block/index.js';
import { CompactionError } from './errors.js';

/** The parts of a block's meta.json the planner reads. */
export interface PlanBlock {
  /** What the plan returns for this block (its directory, or its ULID). */
  readonly id: string;
  readonly minTime: number;
  readonly maxTime: number;
  readonly stats?: { readonly numSeries: number; readonly numTombstones: number };
  /** A previous compaction of this block failed; its range is not selected again. */
  readonly compactionFailed?: boolean;
}

/** The planner's view of a block's meta.json; `id` is what the plan returns (e.g. its dir). */
export function planBlockOf(id: string, meta: BlockMeta): PlanBlock {
  const block: PlanBlock = {
    id,
    minTime: meta.minTime,
    maxTime: meta.maxTime,
    stats: { numSeries: meta.stats.numSeries, numTombstones: meta.stats.numTombstones },
    compactionFailed: meta.compaction.failed === true,
  };
  return block;
}

/**
 * Prometheus's ExponentialBlockRanges: `steps` ranges starting at `minSize`, each `stepSize`
 * times the previous. Prometheus uses (2h, 10, 3): 2h, 6h, 18h, …, cut at its maximum block
 * duration; Cortex configures `block_ranges` explicitly (2h, 12h, 24h by default).
 */
export function exponentialBlockRanges(minSize: number, steps: number, stepSize: number): number[] {
  if (!Number.isSafeInteger(minSize) || minSize <= 0) {
    throw new CompactionError(`block range min size ${minSize} must be a positive integer`);
  }
  if (!Number.isSafeInteger(steps) || steps < 0) {
    throw new CompactionError(`block range steps ${steps} must be a non-negative integer`);
  }
  if (!Number.isSafeInteger(stepSize) || stepSize <= 0) {
    throw new CompactionError(`block range step size ${stepSize} must be a positive integer`);
  }
  const ranges: number[] = [];
  let cur = minSize;
  for (let i = 0; i < steps; i++) {
    ranges.push(cur);
    cur *= stepSize;
  }
  return ranges;
}

/**
 * The blocks to compact together next, in ascending minTime order, or [] when nothing is due.
 * `ranges` is `block_ranges` in ms, smallest first.
 */
export function planCompaction(blocks: readonly PlanBlock[], ranges: readonly number[]): string[] {
  checkRanges(ranges);
  if (blocks.length === 0) return [];
  // Sorted by minTime. Go's sort.Slice is not stable, but blocks with equal minTimes overlap
  // and are selected together, so only their order in the result can differ; ours is stable.
  const sorted = [...blocks].sort((a, b) => a.minTime - b.minTime);

  const overlapping = selectOverlapping(sorted);
  if (overlapping.length > 0) return overlapping;

  // Leave out the newest block (the highest minTime): it was just cut from the head.
  const candidates = sorted.slice(0, -1);
  const selected = selectLeveled(candidates, ranges);
  if (selected.length > 0) return selected.map((b) => b.id);

  // A big enough block with more than 5% of its series tombstoned is rewritten on its own.
  const largeEnough = ranges[Math.floor(ranges.length / 2)] as number;
  for (let i = candidates.length - 1; i >= 0; i--) {
    const b = candidates[i] as PlanBlock;
    const numSeries = b.stats?.numSeries ?? 0;
    const numTombstones = b.stats?.numTombstones ?? 0;
    if (b.maxTime - b.minTime < largeEnough) {
      // A wholly deleted block is worth rewriting (into nothing) whatever its size.
      if (numTombstones > 0 && numTombstones >= numSeries) return [b.id];
      break;
    }
    if (numTombstones / (numSeries + 1) > 0.05) return [b.id];
  }
  return [];
}

/**
 * The first run of blocks (sorted by minTime) in which each block starts before the latest
 * end seen so far; [] when no two blocks overlap.
 */
export function selectOverlapping(sorted: readonly PlanBlock[]): string[] {
  if (sorted.length < 2) return [];
  const out: string[] = [];
  let globalMaxt = (sorted[0] as PlanBlock).maxTime;
  for (let i = 1; i < sorted.length; i++) {
    const b = sorted[i] as PlanBlock;
    if (b.minTime < globalMaxt) {
      if (out.length === 0) out.push((sorted[i - 1] as PlanBlock).id);
      out.push(b.id);
    } else if (out.length > 0) {
      break;
    }
    globalMaxt = Math.max(globalMaxt, b.maxTime);
  }
  return out;
}

/** Prometheus's selectDirs: the first complete (or finished) group of a larger range. */
function selectLeveled(sorted: readonly PlanBlock[], ranges: readonly number[]): PlanBlock[] {
  if (ranges.length < 2 || sorted.length < 1) return [];
  const highTime = (sorted[sorted.length - 1] as PlanBlock).minTime;
  for (const range of ranges.slice(1)) {
    for (const group of splitByRange(sorted, range)) {
      if (group.some((b) => b.compactionFailed === true)) continue;
      const mint = (group[0] as PlanBlock).minTime;
      const maxt = (group[group.length - 1] as PlanBlock).maxTime;
      // Complete (spans the whole range, gaps allowed) or nothing newer can still land in it.
      if ((maxt - mint === range || maxt <= highTime) && group.length > 1) return group;
    }
  }
  return [];
}

/**
 * Groups blocks (sorted by minTime) by the aligned range of size `range` they fall into;
 * a block that does not fit inside one aligned range is skipped. E.g. [0-10, 10-20, 50-60,
 * 90-100] with range 30 gives [0-10, 10-20], [50-60], [90-100].
 */
export function splitByRange<B extends PlanBlock>(sorted: readonly B[], range: number): B[][] {
  const groups: B[][] = [];
  for (let i = 0; i < sorted.length;) {
    const first = sorted[i] as B;
    const t0 = alignDown(first.minTime, range);
    if (first.maxTime > t0 + range) {
      i++;
      continue;
    }
    const group: B[] = [];
    for (; i < sorted.length; i++) {
      const b = sorted[i] as B;
      if (b.maxTime > t0 + range) break;
      group.push(b);
    }
    if (group.length > 0) groups.push(group);
  }
  return groups;
}

/** Start of the aligned range of size `range` containing `t` (floor, also for negative t). */
function alignDown(t: number, range: number): number {
  return Math.floor(t / range) * range;
}

function checkRanges(ranges: readonly number[]): void {
  if (ranges.length === 0) throw new CompactionError('block ranges must not be empty');
  for (let i = 0; i < ranges.length; i++) {
    const r = ranges[i] as number;
    if (!Number.isSafeInteger(r) || r <= 0) {
      throw new CompactionError(`block range ${r} at index ${i} must be a positive integer`);
    }
    if (i > 0 && r <= (ranges[i - 1] as number)) {
      throw new CompactionError(
        `block ranges must increase: ${r} at index ${i} follows ${ranges[i - 1]}`,
      );
    }
  }
}
