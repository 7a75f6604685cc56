import { describe, expect, it } from 'vitest';
import type { NoCompactMark, NoCompactReason } from '../bucket/index.js';
import { testUlid } from '../bucket/testing.js';
import type { BlockMeta } from '../tsdb/index.js';
import { findDuplicateBlocks } from './dedup_filter.js';
import { DefaultGrouper, byMinTime, defaultGroupKey, type CompactionGroup } from './grouper.js';
import { DefaultPlanner, planMetas, type PlanContext } from './planner.js';

const H = 3_600_000;
const RANGES = [2 * H, 12 * H, 24 * H];

function meta(n: number, minH: number, maxH: number, extra: Partial<BlockMeta> = {}): BlockMeta {
  const ulid = testUlid(1_700_000_000_000, n);
  return {
    ulid,
    minTime: minH * H,
    maxTime: maxH * H,
    stats: { numSamples: 1, numSeries: 100, numChunks: 1, numTombstones: 0 },
    compaction: { level: 1, sources: [ulid] },
    version: 1,
    thanos: { labels: { __org_id__: 't' }, downsample: { resolution: 0 }, source: 'receive' },
    ...extra,
  };
}

const plan = (metas: BlockMeta[], excluded: number[] = []): string[] =>
  planMetas(
    [...metas].sort(byMinTime),
    new Set(excluded.map((i) => (metas[i] as BlockMeta).ulid)),
    RANGES,
  ).map((m) => metas.indexOf(m).toString());

describe('planMetas (Thanos tsdbBasedPlanner)', () => {
  it('plans overlapping blocks first, all of them', () => {
    const metas = [meta(1, 0, 2), meta(2, 0, 2), meta(3, 0, 2), meta(4, 2, 4)];
    expect(plan(metas)).toEqual(['0', '1', '2']);
  });

  it('leaves no-compact blocks out of a vertical compaction', () => {
    const metas = [meta(1, 0, 2), meta(2, 0, 2), meta(3, 0, 2)];
    expect(plan(metas, [1])).toEqual(['0', '2']);
    expect(plan(metas, [0, 1])).toEqual([]);
  });

  it('never plans the newest block, even when its range is complete', () => {
    const metas = Array.from({ length: 6 }, (_, i) => meta(i + 1, 2 * i, 2 * i + 2));
    expect(plan(metas)).toEqual([]);
    const more = [...metas, meta(7, 12, 14)];
    expect(plan(more)).toEqual(['0', '1', '2', '3', '4', '5']);
  });

  it('cuts ranges at multiples of the range, not at the first block', () => {
    // [10h, 12h) is alone in the first 12h range; [12h, 24h) is full and compacted without it.
    const metas = [10, 12, 14, 16, 18, 20, 22, 24].map((h, i) => meta(i + 1, h, h + 2));
    expect(plan(metas)).toEqual(['1', '2', '3', '4', '5', '6']);
  });

  it('compacts an incomplete range only once a block after it (the newest aside) exists', () => {
    // Left out: the newest block [12h, 14h). [0h, 12h) holds the latest remaining block, so
    // another one may still land in it.
    const waiting = [meta(1, 8, 10), meta(2, 10, 12), meta(3, 12, 14)];
    expect(plan(waiting)).toEqual([]);
    // With [12h, 14h) no longer the newest, [8h, 12h) lies before it and is compacted.
    expect(plan([...waiting, meta(4, 14, 16)])).toEqual(['0', '1']);
  });

  it('splits a range at no-compact blocks into the runs between them', () => {
    const metas = [
      ...Array.from({ length: 6 }, (_, i) => meta(i + 1, 2 * i, 2 * i + 2)),
      meta(9, 12, 14),
    ];
    expect(plan(metas, [2])).toEqual(['0', '1']);
    expect(plan(metas, [1])).toEqual(['2', '3', '4', '5']);
    expect(plan(metas, [1, 3])).toEqual(['4', '5']);
  });

  it('does not select a range that holds a block whose compaction failed', () => {
    const metas = [
      meta(1, 0, 2),
      meta(2, 2, 4, { compaction: { level: 1, sources: ['x'], failed: true } }),
      meta(3, 4, 6),
      meta(4, 12, 14),
    ];
    expect(plan(metas)).toEqual([]);
  });

  it('rewrites a big block whose tombstones exceed 5% of its series', () => {
    const big = meta(1, 0, 24, {
      stats: { numSamples: 1, numSeries: 100, numChunks: 1, numTombstones: 6 },
    });
    expect(plan([big, meta(2, 24, 26)])).toEqual(['0']);
    expect(plan([big, meta(2, 24, 26)], [0])).toEqual([]);
  });
});

describe('DefaultPlanner with an index size limit', () => {
  it('marks the biggest index of a plan no-compact and plans again without it', async () => {
    const metas = [meta(1, 0, 2), meta(2, 0, 2), meta(3, 0, 2)];
    const sizes = new Map(metas.map((m, i) => [m.ulid, [300, 700, 200][i] as number]));
    const marked: Array<[string, NoCompactReason]> = [];
    const ctx: PlanContext = {
      tenant: 't',
      noCompact: new Map<string, NoCompactMark>(),
      markNoCompact: (block, reason) => {
        marked.push([block, reason]);
        return Promise.resolve();
      },
      indexSize: (m) => Promise.resolve(sizes.get(m.ulid) as number),
    };
    const group: CompactionGroup = { key: 'k', labels: {}, resolution: 0, metas };
    const planner = new DefaultPlanner({ blockRangesMs: RANGES, maxBlockIndexSizeBytes: 1000 });
    const out = await planner.plan(group, ctx);
    expect(marked).toEqual([[(metas[1] as BlockMeta).ulid, 'index-size-exceeding']]);
    expect(out.map((m) => m.ulid)).toEqual([
      (metas[0] as BlockMeta).ulid,
      (metas[2] as BlockMeta).ulid,
    ]);
    const unlimited = new DefaultPlanner({ blockRangesMs: RANGES });
    expect(await unlimited.plan(group, ctx)).toHaveLength(3);
  });
});

describe('findDuplicateBlocks (Thanos DeduplicateFilter)', () => {
  const withSources = (n: number, sources: number[], res = 0): BlockMeta => {
    const m = meta(n, 0, 2);
    m.compaction = { level: 2, sources: sources.map((s) => testUlid(1, s)) };
    (m.thanos as { downsample: { resolution: number } }).downsample.resolution = res;
    return m;
  };

  it('drops blocks whose sources another block covers, keeping the lowest ULID of equals', () => {
    const a = withSources(1, [1, 2, 3]);
    const b = withSources(2, [1, 2, 3]);
    const c = withSources(3, [1, 2]);
    const d = withSources(4, [3, 4]);
    const e = withSources(5, [5]);
    expect(findDuplicateBlocks([e, d, c, b, a])).toEqual([b.ulid, c.ulid]);
  });

  it('compares blocks of one resolution only', () => {
    const raw = withSources(1, [1, 2]);
    const downsampled = withSources(2, [1], 300_000);
    expect(findDuplicateBlocks([raw, downsampled])).toEqual([]);
  });

  it('finds a level-1 source left behind next to the block compacted from it', () => {
    const out = withSources(1, [7, 8, 9]);
    const left = withSources(2, [8]);
    expect(findDuplicateBlocks([left, out])).toEqual([left.ulid]);
  });
});

describe('DefaultGrouper (Thanos DefaultGrouper)', () => {
  it('keys groups as Thanos does: resolution @ Prometheus labels hash', () => {
    // The values of Thanos's TestGroupKey.
    expect(defaultGroupKey(0, {})).toBe('0@17241709254077376921');
    expect(defaultGroupKey(0, { foo: 'bar', foo1: 'bar2' })).toBe('0@2124638872457683483');
    expect(
      defaultGroupKey(0, {
        'foo/some..thing/some.thing/../': 'a_b_c/bar-something-a\\metric/a\\x',
      }),
    ).toBe('0@16590761456214576373');
  });

  it('puts blocks of one label set and resolution in one group, by minTime', async () => {
    const a1 = meta(1, 2, 4);
    const a2 = meta(2, 0, 2);
    const b = meta(3, 0, 2, {
      thanos: { labels: { __org_id__: 'u' }, downsample: { resolution: 0 }, source: 'receive' },
    });
    const groups = await new DefaultGrouper().groups(new Map([a1, b, a2].map((m) => [m.ulid, m])));
    expect(groups.map((g) => [g.key, g.metas.map((m) => m.ulid)])).toEqual(
      [
        [defaultGroupKey(0, { __org_id__: 't' }), [a2.ulid, a1.ulid]],
        [defaultGroupKey(0, { __org_id__: 'u' }), [b.ulid]],
      ].sort((x, y) => ((x[0] as string) < (y[0] as string) ? -1 : 1)),
    );
  });
});
