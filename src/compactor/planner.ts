/**
 * Which blocks of a group to compact next: Thanos's tsdbBasedPlanner (Prometheus's leveled
 * planner working on meta.json alone) with its handling of no-compact marks, as Cortex's
 * default strategy uses it:
 *
 * 1. blocks that overlap in time (replicas of one range) are merged vertically;
 * 2. otherwise, leaving out the newest block, for each range of `block_ranges[1:]` the first
 *    aligned range holding at least two blocks that either spans the whole range or ends
 *    before the newest block starts; no-compact blocks split such a range into the runs
 *    between them (a run of two or more is planned);
 * 3. otherwise one block at least half the largest range long whose tombstones cover more
 *    than 5% of its series.
 *
 * Optionally (Thanos's largeTotalIndexSizeFilter, off in Cortex) a plan whose summed source
 * index sizes reach 85% of `maxBlockIndexSizeBytes` gets its biggest-index block marked
 * no-compact (`index-size-exceeding`) and is planned again without it.
 */
import type { NoCompactMark, NoCompactReason } from '../bucket/index.js';
import { selectOverlapping, splitByRange, type BlockMeta, type PlanBlock } from '../tsdb/index.js';
import type { CompactionGroup } from './grouper.js';

/** What a planner may consult and do besides reading the group. */
export interface PlanContext {
  readonly tenant: string;
  /** No-compact marks of the tenant's blocks (from the sync). */
  readonly noCompact: ReadonlyMap<string, NoCompactMark>;
  /** Marks a block no-compact in the bucket (and counts it). */
  markNoCompact(block: string, reason: NoCompactReason, details: string): Promise<void>;
  /** Size of a block's index in bytes (meta.json's `thanos.files`, else the bucket). */
  indexSize(meta: BlockMeta): Promise<number>;
}

/** Picks the blocks of a group to compact into one; [] when nothing is due. */
export interface Planner {
  plan(group: CompactionGroup, ctx: PlanContext): Promise<BlockMeta[]>;
}

export interface DefaultPlannerConfig {
  /** `block_ranges` in ms, ascending, each a multiple of the previous. */
  blockRangesMs: readonly number[];
  /** Thanos's total index size limit; 0 or absent: no limit (Cortex). */
  maxBlockIndexSizeBytes?: number;
}

interface Candidate extends PlanBlock {
  readonly meta: BlockMeta;
}

export class DefaultPlanner implements Planner {
  constructor(private readonly config: DefaultPlannerConfig) {
    if (config.blockRangesMs.length === 0) throw new RangeError('block ranges must not be empty');
  }

  async plan(group: CompactionGroup, ctx: PlanContext): Promise<BlockMeta[]> {
    const excluded = new Set(ctx.noCompact.keys());
    const limit = this.config.maxBlockIndexSizeBytes ?? 0;
    for (;;) {
      const plan = planMetas(group.metas, excluded, this.config.blockRangesMs);
      if (limit <= 0 || plan.length === 0) return plan;
      let total = 0;
      let biggest: BlockMeta | undefined;
      let biggestSize = Number.NEGATIVE_INFINITY;
      let over = false;
      for (const m of plan) {
        const size = await ctx.indexSize(m);
        if (size > biggestSize) {
          biggestSize = size;
          biggest = m;
        }
        total += size;
        // Thanos leaves 15% headroom for what compaction adds to an index.
        if (total >= limit * 0.85) {
          over = true;
          break;
        }
      }
      if (!over || biggest === undefined) return plan;
      await ctx.markNoCompact(
        biggest.ulid,
        'index-size-exceeding',
        `largeTotalIndexSizeFilter: Total compacted block's index size could exceed: ${limit} with this block. See https://github.com/thanos-io/thanos/issues/1424`,
      );
      excluded.add(biggest.ulid);
    }
  }
}

/**
 * Thanos's tsdbBasedPlanner.plan over metas sorted by minTime, skipping the `excluded`
 * (no-compact) blocks.
 */
export function planMetas(
  metasByMinTime: readonly BlockMeta[],
  excluded: ReadonlySet<string>,
  ranges: readonly number[],
): BlockMeta[] {
  if (metasByMinTime.length === 0) return [];
  const all: Candidate[] = metasByMinTime.map((meta) => ({
    id: meta.ulid,
    minTime: meta.minTime,
    maxTime: meta.maxTime,
    compactionFailed: meta.compaction.failed === true,
    meta,
  }));
  let notExcluded = all.filter((c) => !excluded.has(c.id));

  const overlapping = new Set(selectOverlapping(notExcluded));
  if (overlapping.size > 0)
    return notExcluded.filter((c) => overlapping.has(c.id)).map((c) => c.meta);

  // Leave out the newest block: just uploaded, users get a block's length to act on it.
  const newest = all[all.length - 1] as Candidate;
  if (!excluded.has(newest.id)) notExcluded = notExcluded.slice(0, -1);
  const leveled = selectLeveled(all.slice(0, -1), excluded, ranges);
  if (leveled.length > 0) return leveled.map((c) => c.meta);

  const largeEnough = ranges[Math.floor(ranges.length / 2)] as number;
  for (let i = notExcluded.length - 1; i >= 0; i--) {
    const m = (notExcluded[i] as Candidate).meta;
    if (m.maxTime - m.minTime < largeEnough) break;
    if (m.stats.numTombstones / (m.stats.numSeries + 1) > 0.05) return [m];
  }
  return [];
}

/** Thanos's selectMetas. */
function selectLeveled(
  sorted: readonly Candidate[],
  excluded: ReadonlySet<string>,
  ranges: readonly number[],
): Candidate[] {
  if (ranges.length < 2 || sorted.length < 1) return [];
  const highTime = (sorted[sorted.length - 1] as Candidate).minTime;
  for (const range of ranges.slice(1)) {
    for (const part of splitByRange(sorted, range)) {
      if (part.some((c) => c.compactionFailed === true) || part.length < 2) continue;
      const mint = (part[0] as Candidate).minTime;
      const maxt = (part[part.length - 1] as Candidate).maxTime;
      // Complete (gaps allowed), or nothing newer can still land in it.
      if (maxt - mint !== range && maxt > highTime) continue;
      // No-compact blocks split the range into the runs between them; no gaps are bridged.
      let from = 0;
      for (let i = 0; i < part.length; i++) {
        if (!excluded.has((part[i] as Candidate).id)) continue;
        if (i - from > 1) return part.slice(from, i);
        from = i + 1;
      }
      if (part.length - from > 1) return part.slice(from);
    }
  }
  return [];
}
