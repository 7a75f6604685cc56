import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Labels } from './labels.js';
import { countingPause } from '../runtime/testing/index.js';
import { sortByLabelsInSlices } from './labels_sort.js';

describe('sortByLabelsInSlices', () => {
  it('orders as Labels.compare does, stably, across runs and merges', async () => {
    // Up to ~5 runs of 1024: several merge levels, with many equal label sets.
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 5000 }),
        fc.integer({ min: 1, max: 1 << 20 }),
        fc.integer({ min: 1, max: 50 }),
        fc.constantFrom('', '\0', '\uE000', '\uD83D\uDE00'),
        async (n, seed, every, odd) => {
          // Few distinct values: many equal label sets, whose order must be kept. `odd` in
          // some values makes the sort compare label sets instead of joined strings.
          const items = Array.from({ length: n }, (_, i) => ({
            labels: Labels.fromStrings(
              'a',
              `v${(i * seed) % 301}${i % 5 === 0 ? odd : ''}`,
              'b',
              String((i ^ seed) % 4),
            ),
            i,
          }));
          const want = [...items].sort((x, y) => Labels.compare(x.labels, y.labels));
          await sortByLabelsInSlices(items, (x) => x.labels, countingPause(every));
          expect(items.map((x) => x.i)).toEqual(want.map((x) => x.i));
        },
      ),
      { numRuns: 40 },
    );
  });

  it('pauses while it sorts a long list, and not for a short one', async () => {
    const long = Array.from({ length: 5000 }, (_, i) =>
      Labels.fromStrings('a', String((i * 7919) % 5000)),
    );
    const pause = countingPause(100);
    await sortByLabelsInSlices(long, (l) => l, pause);
    expect(pause.pauses).toBeGreaterThan(10);
    expect(long.map((l) => Number(l.get('a')))).toEqual(
      Array.from({ length: 5000 }, (_, i) => i).sort((x, y) => (String(x) < String(y) ? -1 : 1)),
    );
    const short = [Labels.fromStrings('a', 'b'), Labels.fromStrings('a', 'a')];
    const none = countingPause(1);
    await sortByLabelsInSlices(short, (l) => l, none);
    expect(none.pauses).toBe(0);
    expect(short.map((l) => l.get('a'))).toEqual(['a', 'b']);
  });
});
