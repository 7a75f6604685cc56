/**
 * Compaction groups (Thanos's Grouper): sets of a tenant's blocks that may be compacted with
 * each other and independently of every other set. The default grouper is Thanos's
 * DefaultGrouper: one group per downsampling resolution and external label set. Once
 * `__ingester_id__` is gone, every replica of a tenant's range carries the same labels
 * (`__org_id__`), so a tenant has one group and the planner decides what merges.
 *
 * A sharding strategy plugs in here: the shuffle-sharding grouper (shuffle_sharding_grouper.ts)
 * cuts the same blocks into per-range groups and keeps only those this compactor wins (visit
 * markers).
 */
import type { NoCompactMark } from '../bucket/index.js';
import { Labels } from '../model/index.js';
import type { BlockMeta } from '../tsdb/index.js';

/** Blocks compacted with each other; `metas` sorted by minTime (then ULID). */
export interface CompactionGroup {
  /** Thanos's group key, `<resolution>@<labels hash>`; also the group's work directory name. */
  readonly key: string;
  /** External labels of the group's blocks, given to the blocks it produces. */
  readonly labels: Readonly<Record<string, string>>;
  /** Downsampling resolution (0: raw). */
  readonly resolution: number;
  readonly metas: readonly BlockMeta[];
}

/** Cuts a tenant's synced blocks into compaction groups. */
export interface Grouper {
  /** `noCompact`: the sync's no-compact marks (the shuffle-sharding grouper leaves those blocks out). */
  groups(
    metas: ReadonlyMap<string, BlockMeta>,
    noCompact?: ReadonlyMap<string, NoCompactMark>,
  ): Promise<CompactionGroup[]>;
}

/** Thanos's DefaultGroupKey: resolution and the hash Prometheus gives the label set. */
export function defaultGroupKey(
  resolution: number,
  labels: Readonly<Record<string, string>>,
): string {
  return `${resolution}@${Labels.fromObject(labels).hash()}`;
}

/** Sorts by minTime, ties by ULID, so plans do not depend on listing order. */
export function byMinTime(a: BlockMeta, b: BlockMeta): number {
  return a.minTime - b.minTime || (a.ulid < b.ulid ? -1 : a.ulid > b.ulid ? 1 : 0);
}

export class DefaultGrouper implements Grouper {
  groups(metas: ReadonlyMap<string, BlockMeta>): Promise<CompactionGroup[]> {
    const groups = new Map<
      string,
      { labels: Record<string, string>; res: number; metas: BlockMeta[] }
    >();
    for (const m of metas.values()) {
      const labels = { ...(m.thanos?.labels ?? {}) };
      const res = m.thanos?.downsample.resolution ?? 0;
      const key = defaultGroupKey(res, labels);
      const g = groups.get(key) ?? { labels, res, metas: [] };
      g.metas.push(m);
      groups.set(key, g);
    }
    const out: CompactionGroup[] = [...groups].map(([key, g]) => ({
      key,
      labels: g.labels,
      resolution: g.res,
      metas: g.metas.sort(byMinTime),
    }));
    // Thanos sorts groups by key.
    out.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    return Promise.resolve(out);
  }
}
