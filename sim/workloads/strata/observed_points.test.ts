import { describe, expect, it } from 'vitest';
import { observedIn, observedPoints, type ObservedIndex } from './observed_points.js';
import type { FinalRead } from './read_log.js';

const read = (): FinalRead => ({
  tenant: 't',
  startedAt: 0,
  answeredAt: 1,
  attempts: 1,
  series: [
    { key: '{a="1"}', labels: [['a', '1']], timestamps: [10, 20], values: [1, 2] },
    // The same series again (a querier that failed to deduplicate), one point repeated.
    { key: '{a="1"}', labels: [['a', '1']], timestamps: [20, 30], values: [5, 3] },
    { key: '{a="2"}', labels: [['a', '2']], timestamps: [10], values: [7] },
  ],
});

describe('observedPoints', () => {
  it('groups a read by series and timestamp, keeping every value read', () => {
    expect(observedPoints(read())).toEqual(
      new Map([
        [
          '{a="1"}',
          new Map([
            [10, [1]],
            [20, [2, 5]],
            [30, [3]],
          ]),
        ],
        ['{a="2"}', new Map([[10, [7]]])],
      ]),
    );
  });

  it('indexes each read once when given an index, and per call without one', () => {
    const r = read();
    const index: ObservedIndex = new WeakMap();
    const first = observedIn(index, r);
    expect(observedIn(index, r)).toBe(first);
    expect(observedIn(index, read())).not.toBe(first);
    expect(observedIn(undefined, r)).not.toBe(observedIn(undefined, r));
    expect(observedIn(undefined, r)).toEqual(first);
  });
});
