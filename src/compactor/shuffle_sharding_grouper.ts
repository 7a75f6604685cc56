/**
 * The shuffle-sharding grouper (Cortex's ShuffleShardingGrouper): several compactors of a
 * tenant's shard compact disjoint groups of its blocks at the same time.
 *
 * Blocks (no-compact ones left out) are split by Thanos group key (resolution and labels),
 * then cut into groups by aligned range, smallest range first; a larger range is not grouped
 * while it overlaps a smaller range that still has blocks to merge, and a group reaching the
 * newest block is kept only if it spans its whole range or its range ended a range ago. The
 * groups are ordered by length, then start, then key, so every compactor ranks them alike.
 *
 * Going down that list, a group with a block carrying a fresh visit marker of another
 * compactor is skipped (as is one whose markers cannot be read); the first
 * `compaction_concurrency` others get this compactor's markers and are returned. The planner
 * (shuffle_sharding_planner.ts) re-reads the markers before anything is downloaded.
 */
import type { NoCompactMark } from '../bucket/index.js';
import type { Clock, Logger } from '../runtime/index.js';
import type { BlockMeta } from '../tsdb/index.js';
import { errorMessage } from './compaction_errors.js';
import { byMinTime, defaultGroupKey, type CompactionGroup, type Grouper } from './grouper.js';
import { fnv32a } from './ownership.js';
import {
  isVisitFresh,
  markBlocksVisited,
  readBlockVisitMarker,
  type VisitMarkerDeps,
} from './visit_marker.js';

/** Blocks of one aligned range: [rangeStart, rangeEnd). */
export interface RangeGroup {
  rangeStart: number;
  rangeEnd: number;
  /** Sorted by minTime. */
  metas: BlockMeta[];
}

/** Start of the aligned range of length `range` holding `minTime` (Prometheus's rule). */
export function rangeStartFor(minTime: number, range: number): number {
  return minTime >= 0
    ? range * Math.trunc(minTime / range)
    : range * Math.trunc((minTime - range + 1) / range);
}

/**
 * Splits blocks sorted by minTime into aligned ranges of length `range`; a block crossing its
 * range's end belongs to none (Cortex's groupBlocksByRange).
 */
export function groupBlocksByRange(sorted: readonly BlockMeta[], range: number): RangeGroup[] {
  const out: RangeGroup[] = [];
  for (let i = 0; i < sorted.length;) {
    const first = sorted[i] as BlockMeta;
    const rangeStart = rangeStartFor(first.minTime, range);
    const rangeEnd = rangeStart + range;
    if (first.maxTime > rangeEnd) {
      i++;
      continue;
    }
    const metas: BlockMeta[] = [];
    for (; i < sorted.length; i++) {
      const m = sorted[i] as BlockMeta;
      if (m.minTime >= rangeEnd) break;
      if (m.maxTime > rangeEnd) continue;
      metas.push(m);
    }
    if (metas.length > 0) out.push({ rangeStart, rangeEnd, metas });
  }
  return out;
}

const groupMinTime = (g: RangeGroup): number => (g.metas[0] as BlockMeta).minTime;
const groupMaxTime = (g: RangeGroup): number => Math.max(...g.metas.map((m) => m.maxTime));

/**
 * Cortex's groupBlocksByCompactableRanges: groups of two or more blocks, smaller ranges first,
 * never overlapping a group of a smaller range, and not compacting the newest blocks early.
 */
export function groupBlocksByCompactableRanges(
  metas: readonly BlockMeta[],
  rangesMs: readonly number[],
  nowMs: number,
): RangeGroup[] {
  if (metas.length === 0) return [];
  const sorted = [...metas].sort(byMinTime);
  const groups: RangeGroup[] = [];
  for (const range of rangesMs) {
    for (const g of groupBlocksByRange(sorted, range)) {
      if (g.metas.length < 2) continue;
      const overlaps = groups.some((c) => g.rangeStart < c.rangeEnd && c.rangeStart < g.rangeEnd);
      if (!overlaps) groups.push(g);
    }
  }
  const highestMinTime = (sorted[sorted.length - 1] as BlockMeta).minTime;
  return groups.filter((g) => {
    const length = g.rangeEnd - g.rangeStart;
    return (
      g.rangeEnd <= highestMinTime ||
      groupMaxTime(g) - groupMinTime(g) === length ||
      // Its range ended a whole range ago: nothing more should arrive for it.
      nowMs > groupMaxTime(g) + length
    );
  });
}

export interface ShuffleShardingGrouperConfig {
  tenant: string;
  /** This compactor's ring instance ID, written into the visit markers. */
  compactorId: string;
  blockRangesMs: readonly number[];
  /** At most this many groups per pass (`compaction_concurrency`). */
  compactionConcurrency: number;
  /** `block_visit_marker_timeout`. */
  visitMarkerTimeoutMs: number;
}

export interface ShuffleShardingGrouperDeps extends VisitMarkerDeps {
  clock: Clock;
  logger: Logger;
}

export class ShuffleShardingGrouper implements Grouper {
  constructor(
    private readonly config: ShuffleShardingGrouperConfig,
    private readonly deps: ShuffleShardingGrouperDeps,
  ) {}

  async groups(
    metas: ReadonlyMap<string, BlockMeta>,
    noCompact?: ReadonlyMap<string, NoCompactMark>,
  ): Promise<CompactionGroup[]> {
    const { tenant } = this.config;
    const byKey = new Map<string, BlockMeta[]>();
    for (const m of metas.values()) {
      if (noCompact?.has(m.ulid) === true) continue;
      const key = thanosGroupKey(m);
      byKey.set(key, [...(byKey.get(key) ?? []), m]);
    }
    const now = this.deps.clock.now();
    const candidates: { key: string; group: RangeGroup }[] = [];
    for (const [thanosKey, blocks] of byKey) {
      for (const group of groupBlocksByCompactableRanges(blocks, this.config.blockRangesMs, now)) {
        const hash = fnv32a(`${tenant}${group.rangeStart}${group.rangeEnd}`);
        candidates.push({ key: `${hash}${thanosKey}`, group });
      }
    }
    candidates.sort((a, b) => {
      const la = groupMaxTime(a.group) - groupMinTime(a.group);
      const lb = groupMaxTime(b.group) - groupMinTime(b.group);
      if (la !== lb) return la - lb;
      const ma = groupMinTime(a.group);
      const mb = groupMinTime(b.group);
      if (ma !== mb) return ma - mb;
      return a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
    });

    const out: CompactionGroup[] = [];
    for (const { key, group } of candidates) {
      const ids = group.metas.map((m) => m.ulid);
      const log = this.deps.logger.child({ group: key, blocks: ids.join(',') });
      let visited: boolean;
      try {
        visited = await this.visitedByAnother(ids);
      } catch (err) {
        log.warn('unable to check if blocks in group are visited', { err: errorMessage(err) });
        continue;
      }
      if (visited) {
        log.info('skipping group because at least one block in group is visited');
        continue;
      }
      log.info('found compactable group for user', {
        range_start: group.rangeStart,
        range_end: group.rangeEnd,
      });
      await markBlocksVisited(tenant, ids, this.config.compactorId, this.deps);
      const first = group.metas[0] as BlockMeta;
      out.push({
        key,
        labels: { ...(first.thanos?.labels ?? {}) },
        resolution: first.thanos?.downsample.resolution ?? 0,
        metas: group.metas,
      });
      if (out.length === this.config.compactionConcurrency) break;
    }
    this.deps.logger.info(`total groups for compaction: ${out.length}`);
    return out;
  }

  /** Whether a block of the group has a fresh marker of another compactor (Cortex's isGroupVisited). */
  private async visitedByAnother(blocks: readonly string[]): Promise<boolean> {
    const now = this.deps.clock.now();
    for (const block of blocks) {
      const marker = await readBlockVisitMarker(
        this.deps.bucket,
        this.config.tenant,
        block,
        this.deps.metrics,
      );
      if (marker === undefined) continue;
      if (
        marker.compactorID !== this.config.compactorId &&
        isVisitFresh(marker, now, this.config.visitMarkerTimeoutMs)
      ) {
        return true;
      }
    }
    return false;
  }
}

/** Thanos's Meta.GroupKey: resolution and external labels. */
function thanosGroupKey(m: BlockMeta): string {
  return defaultGroupKey(m.thanos?.downsample.resolution ?? 0, m.thanos?.labels ?? {});
}
