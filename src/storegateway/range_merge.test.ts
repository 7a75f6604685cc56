import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AbortError } from '../runtime/index.js';
import { partitionRanges, runLimited } from './range_merge.js';

const parts = (ranges: Array<[number, number]>, gap: number) =>
  partitionRanges(
    ranges.map((r) => r[0]),
    ranges.map((r) => r[1]),
    gap,
  ).map((p) => [p.start, p.end, p.first, p.last]);

describe('partitionRanges', () => {
  // Cases in the style of Thanos's TestGapBasedPartitioner (gap 10).
  it('merges as Thanos does', () => {
    expect(parts([[1, 2]], 10)).toEqual([[1, 2, 0, 1]]);
    expect(
      parts(
        [
          [1, 2],
          [2, 3],
          [3, 4],
        ],
        10,
      ),
    ).toEqual([[1, 4, 0, 3]]);
    expect(
      parts(
        [
          [1, 2],
          [20, 30],
          [31, 32],
          [80, 81],
        ],
        10,
      ),
    ).toEqual([
      [1, 2, 0, 1],
      [20, 32, 1, 3],
      [80, 81, 3, 4],
    ]);
    // Overlapping and contained ranges; the gap is measured from the furthest end.
    expect(
      parts(
        [
          [1, 30],
          [1, 4],
          [3, 28],
          [30, 38],
          [49, 50],
          [49, 51],
          [70, 71],
        ],
        10,
      ),
    ).toEqual([
      [1, 38, 0, 4],
      [49, 51, 4, 6],
      [70, 71, 6, 7],
    ]);
    // A gap of exactly maxGap still merges (Thanos breaks only when end + gap < start).
    expect(
      parts(
        [
          [0, 10],
          [20, 30],
        ],
        10,
      ),
    ).toEqual([[0, 30, 0, 2]]);
    expect(parts([], 10)).toEqual([]);
  });

  it('rejects unsorted input and bad arguments', () => {
    expect(() => partitionRanges([5, 1], [6, 2], 0)).toThrow(/starts at 1, before range 0/);
    expect(() => partitionRanges([1], [2, 3], 0)).toThrow(/parallel/);
    expect(() => partitionRanges([1], [2], -1)).toThrow(/max gap/);
  });

  it('covers every range, in order, leaving only gaps wider than maxGap (property)', () => {
    const input = fc
      .array(fc.tuple(fc.nat(1000), fc.nat(200)), { maxLength: 60 })
      .map((rs) =>
        rs.map(([s, len]): [number, number] => [s, s + len]).sort((a, b) => a[0] - b[0]),
      );
    fc.assert(
      fc.property(input, fc.nat(100), (ranges, gap) => {
        const out = partitionRanges(
          ranges.map((r) => r[0]),
          ranges.map((r) => r[1]),
          gap,
        );
        let next = 0;
        for (const [i, p] of out.entries()) {
          expect(p.first).toBe(next);
          expect(p.last).toBeGreaterThan(p.first);
          next = p.last;
          for (let k = p.first; k < p.last; k++) {
            const [s, e] = ranges[k] as [number, number];
            expect(s).toBeGreaterThanOrEqual(p.start);
            expect(e).toBeLessThanOrEqual(p.end);
          }
          const following = out[i + 1];
          if (following !== undefined) expect(following.start - p.end).toBeGreaterThan(gap);
        }
        expect(next).toBe(ranges.length);
      }),
    );
  });
});

describe('runLimited', () => {
  it('keeps at most `limit` calls in flight and visits every item', async () => {
    let inFlight = 0;
    let peak = 0;
    const seen: number[] = [];
    await runLimited([1, 2, 3, 4, 5, 6, 7], 3, async (n) => {
      inFlight++;
      peak = Math.max(peak, inFlight);
      await Promise.resolve();
      await Promise.resolve();
      seen.push(n);
      inFlight--;
    });
    expect(peak).toBe(3);
    expect(seen.sort()).toEqual([1, 2, 3, 4, 5, 6, 7]);
  });

  it('stops starting calls after a failure or an abort, and rethrows', async () => {
    const started: number[] = [];
    await expect(
      runLimited([1, 2, 3, 4], 1, (n) => {
        started.push(n);
        return n === 2 ? Promise.reject(new Error('boom')) : Promise.resolve();
      }),
    ).rejects.toThrow('boom');
    expect(started).toEqual([1, 2]);

    const ac = new AbortController();
    const calls: number[] = [];
    await expect(
      runLimited(
        [1, 2, 3],
        1,
        (n) => {
          calls.push(n);
          ac.abort();
          return Promise.resolve();
        },
        ac.signal,
      ),
    ).rejects.toBeInstanceOf(AbortError);
    expect(calls).toEqual([1]);
  });
});
