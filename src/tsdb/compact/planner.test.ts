import { describe, expect, it } from 'vitest';
import {
  CompactionError,
  exponentialBlockRanges,
  planBlockOf,
  planCompaction,
  splitByRange,
  type PlanBlock,
} from './index.js';

function block(
  id: string,
  minTime: number,
  maxTime: number,
  stats?: { numSeries: number; numTombstones: number },
): PlanBlock {
  return stats === undefined ? { id, minTime, maxTime } : { id, minTime, maxTime, stats };
}

// Transcribed from Prometheus's TestLeveledCompactor_plan (tsdb/compact_test.go): the default
// exponential ranges with a minimum block size of 20.
const RANGES = [20, 60, 180, 540, 1620];

const CASES: Array<{ name: string; blocks: PlanBlock[]; expected: string[] }> = [
  { name: 'a single block is outside any range', blocks: [block('1', 0, 20)], expected: [] },
  {
    name: 'waits for the parent range to fill',
    blocks: [block('1', 0, 20), block('2', 20, 40)],
    expected: [],
  },
  {
    name: 'three blocks but the newest (fresh from the WAL) is ignored',
    blocks: [block('1', 0, 20), block('2', 20, 40), block('3', 40, 60)],
    expected: [],
  },
  {
    name: 'a block filling the parent range appeared: compact it',
    blocks: [block('1', 0, 20), block('2', 20, 40), block('3', 40, 60), block('4', 60, 80)],
    expected: ['1', '2', '3'],
  },
  {
    name: 'next parent range started with a gap, but its only block is the fresh one',
    blocks: [block('1', 0, 20), block('2', 20, 40), block('3', 60, 80)],
    expected: [],
  },
  {
    name: 'next parent range has a non-fresh block: the gapped range is done',
    blocks: [block('1', 0, 20), block('2', 20, 40), block('3', 60, 80), block('4', 80, 100)],
    expected: ['1', '2'],
  },
  {
    name: '20, 20, 20, 60, 60 with the last as the fresh one',
    blocks: [
      block('1', 0, 20),
      block('2', 20, 40),
      block('3', 40, 60),
      block('4', 60, 120),
      block('5', 120, 180),
    ],
    expected: ['1', '2', '3'],
  },
  {
    name: '20, 60, 60, 240 and a fresh 20 (unsorted input): compact 20 + 60 + 60',
    blocks: [
      block('2', 20, 40),
      block('4', 60, 120),
      block('5', 960, 980),
      block('6', 120, 180),
      block('7', 720, 960),
    ],
    expected: ['2', '4', '6'],
  },
  {
    name: 'a large tombstoned block alone is not selected (it is the fresh one)',
    blocks: [block('1', 0, 540, { numSeries: 10, numTombstones: 3 })],
    expected: [],
  },
  {
    name: 'a large block with many tombstones is selected once a fresh block appears',
    blocks: [block('1', 0, 540, { numSeries: 10, numTombstones: 3 }), block('2', 540, 560)],
    expected: ['1'],
  },
  {
    name: 'small blocks are not rewritten for tombstones',
    blocks: [block('1', 0, 60, { numSeries: 10, numTombstones: 3 }), block('2', 60, 80)],
    expected: [],
  },
  {
    name: 'no loop on a block with zero series and zero tombstones',
    blocks: [block('1', 0, 540, { numSeries: 0, numTombstones: 0 }), block('2', 540, 560)],
    expected: [],
  },
  {
    name: 'the fresh block is the one with the highest minTime, not the newest ULID',
    blocks: [block('5', 0, 360), block('6', 540, 560), block('7', 360, 420), block('8', 420, 540)],
    expected: ['7', '8'],
  },
  {
    name: 'overlapping blocks 1',
    blocks: [block('1', 0, 20), block('2', 19, 40), block('3', 40, 60)],
    expected: ['1', '2'],
  },
  {
    name: 'overlapping blocks 2',
    blocks: [block('1', 0, 20), block('2', 20, 40), block('3', 30, 50)],
    expected: ['2', '3'],
  },
  {
    name: 'overlapping blocks 3',
    blocks: [block('1', 0, 20), block('2', 10, 40), block('3', 30, 50)],
    expected: ['1', '2', '3'],
  },
  {
    name: 'overlapping blocks 4',
    blocks: [block('5', 0, 360), block('6', 340, 560), block('7', 360, 420), block('8', 420, 540)],
    expected: ['5', '6', '7', '8'],
  },
  {
    name: 'overlapping blocks 5: only the first overlapping run',
    blocks: [block('1', 0, 10), block('2', 9, 20), block('3', 30, 40), block('4', 39, 50)],
    expected: ['1', '2'],
  },
];

describe('planCompaction (Prometheus TestLeveledCompactor_plan)', () => {
  for (const c of CASES) {
    it(c.name, () => {
      expect(planCompaction(c.blocks, RANGES)).toEqual(c.expected);
    });
  }
});

describe('planCompaction: other rules', () => {
  // Prometheus's TestRangeWithFailedCompactionWontGetSelected, ranges 20, 60, 240, 720, 2160.
  const FAILED_RANGES = [20, 60, 240, 720, 2160];
  const failedSets: PlanBlock[][] = [
    [block('1', 0, 20), block('2', 20, 40), block('3', 40, 60), block('4', 60, 80)],
    [block('1', 0, 20), block('2', 20, 40), block('3', 60, 80), block('4', 80, 100)],
    [
      block('1', 0, 20),
      block('2', 20, 40),
      block('3', 40, 60),
      block('4', 60, 120),
      block('5', 120, 180),
      block('6', 180, 200),
    ],
  ];
  for (const [i, set] of failedSets.entries()) {
    it(`a range holding a block whose compaction failed is not selected (set ${i + 1})`, () => {
      expect(planCompaction(set, FAILED_RANGES)).not.toEqual([]);
      const marked = set.map((b, j) => (j === 1 ? { ...b, compactionFailed: true } : b));
      expect(planCompaction(marked, FAILED_RANGES)).toEqual([]);
    });
  }

  it('a small block whose every series is tombstoned is rewritten', () => {
    const blocks = [block('1', 0, 60, { numSeries: 4, numTombstones: 4 }), block('2', 60, 80)];
    expect(planCompaction(blocks, RANGES)).toEqual(['1']);
  });

  it('a single range never plans a leveled compaction, only overlaps', () => {
    const blocks = [block('1', 0, 20), block('2', 20, 40), block('3', 40, 60)];
    expect(planCompaction(blocks, [20])).toEqual([]);
    expect(planCompaction([block('1', 0, 20), block('2', 10, 30)], [20])).toEqual(['1', '2']);
  });

  it('aligns negative times down, as Prometheus does', () => {
    const blocks = [
      block('1', -60, -40),
      block('2', -40, -20),
      block('3', -20, 0),
      block('4', 0, 20),
    ];
    expect(planCompaction(blocks, RANGES)).toEqual(['1', '2', '3']);
  });

  it('rejects unusable ranges, naming the value', () => {
    expect(() => planCompaction([], [])).toThrow(CompactionError);
    expect(() => planCompaction([], [20, 0])).toThrow(/block range 0 at index 1/);
    expect(() => planCompaction([], [60, 20])).toThrow(/20 at index 1 follows 60/);
  });

  it('plans from block metas with planBlockOf', () => {
    const meta = (ulid: string, minTime: number, maxTime: number) => ({
      ulid,
      minTime,
      maxTime,
      stats: { numSamples: 1, numSeries: 1, numChunks: 1, numTombstones: 0 },
      compaction: { level: 1, sources: [ulid] },
      version: 1,
    });
    const blocks = [
      planBlockOf('/d/a', meta('A', 0, 20)),
      planBlockOf('/d/b', meta('B', 20, 40)),
      planBlockOf('/d/c', meta('C', 40, 60)),
      planBlockOf('/d/d', meta('D', 60, 80)),
    ];
    expect(planCompaction(blocks, RANGES)).toEqual(['/d/a', '/d/b', '/d/c']);
  });
});

describe('splitByRange (Prometheus TestSplitByRange examples)', () => {
  const ids = (groups: PlanBlock[][]) => groups.map((g) => g.map((b) => b.id));
  it('groups blocks by aligned range and skips blocks that do not fit', () => {
    const blocks = [block('a', 0, 10), block('b', 10, 20), block('c', 50, 60), block('d', 90, 100)];
    expect(ids(splitByRange(blocks, 30))).toEqual([['a', 'b'], ['c'], ['d']]);
    // A block spanning two aligned ranges belongs to neither.
    expect(ids(splitByRange([block('x', 20, 40), block('y', 60, 70)], 30))).toEqual([['y']]);
  });
});

describe('exponentialBlockRanges', () => {
  it('multiplies by the step size', () => {
    expect(exponentialBlockRanges(20, 5, 3)).toEqual([20, 60, 180, 540, 1620]);
    const h = 3_600_000;
    expect(exponentialBlockRanges(2 * h, 3, 3)).toEqual([2 * h, 6 * h, 18 * h]);
  });
  it('rejects a bad size naming it', () => {
    expect(() => exponentialBlockRanges(0, 3, 3)).toThrow(/min size 0/);
  });
});
