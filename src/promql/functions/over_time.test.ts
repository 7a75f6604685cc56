// Edge cases of the *_over_time family beyond the script cases (script_cases.test.ts runs
// functions.test's float cases): NaN/Inf handling, Kahan accuracy, overflow of the running
// sum, single samples, name keeping and the quantile warning.
import { describe, expect, it } from 'vitest';
import {
  avgOverTime,
  funcAbsentOverTime,
  funcChanges,
  funcCountOverTime,
  funcFirstOverTime,
  funcLastOverTime,
  funcMadOverTime,
  funcMaxOverTime,
  funcMinOverTime,
  funcPresentOverTime,
  funcQuantileOverTime,
  funcResets,
  funcStddevOverTime,
  funcSumOverTime,
  funcTsOfMaxOverTime,
  funcTsOfMinOverTime,
  sumOverTime,
  varianceOverTime,
} from './over_time.js';
import { callRange, loadSeries } from './testing.js';

const S = 1000;
const pts = (...fs: number[]) => fs.map((f, i) => ({ t: i * S, f }));
const one = (
  fn: Parameters<typeof callRange>[0],
  spec: string,
  extra: Parameters<typeof callRange>[4] = {},
) =>
  callRange(fn, [loadSeries({ __name__: 'm', a: 'b' }, S, spec)], 100 * S, 1000 * S, extra)
    .results[0]?.f;

describe('sum and avg over time', () => {
  it('compensate rounding with Kahan summation', () => {
    // Naive summation gives 0 here; the compensated sum keeps the small terms.
    expect(sumOverTime(pts(1e100, 1, -1e100, 1))).toBe(2);
    expect(avgOverTime(pts(1e100, 1, -1e100, 1))).toBe(0.5);
  });

  it('switch to an incremental mean instead of overflowing', () => {
    expect(avgOverTime(pts(1.5e308, 1.5e308, 1.5e308))).toBe(1.5e308);
    expect(sumOverTime(pts(1.5e308, 1.5e308))).toBe(Infinity);
  });

  it('propagate NaN and infinities', () => {
    expect(avgOverTime(pts(1, NaN, 3))).toBeNaN();
    expect(avgOverTime(pts(1, Infinity))).toBe(Infinity);
    expect(sumOverTime(pts(Infinity, -Infinity))).toBeNaN();
    expect(avgOverTime(pts(Infinity, -Infinity))).toBeNaN();
  });

  it('handle a single sample', () => {
    expect(one(funcSumOverTime, '5')).toBe(5);
    expect(one(funcCountOverTime, '5')).toBe(1);
    expect(one(funcStddevOverTime, '5')).toBe(0);
  });
});

describe('variance over time', () => {
  it('matches the textbook population variance', () => {
    expect(varianceOverTime(pts(2, 4, 4, 4, 5, 5, 7, 9))).toBe(4);
    expect(varianceOverTime(pts(1, NaN))).toBeNaN();
  });
});

describe('min, max and their timestamps', () => {
  it('skip a leading NaN but never pick a later one', () => {
    expect(one(funcMaxOverTime, 'NaN 1 NaN 3 2')).toBe(3);
    expect(one(funcMinOverTime, 'NaN 1 NaN 3 -2')).toBe(-2);
    expect(one(funcMaxOverTime, 'NaN NaN')).toBeNaN();
  });

  it('report the last time the extreme value was seen', () => {
    expect(one(funcTsOfMaxOverTime, '1 3 2 3')).toBe(3);
    expect(one(funcTsOfMinOverTime, '1 0 2 0')).toBe(3);
  });
});

describe('first, last, present, absent', () => {
  it('keep the metric name for first/last only', () => {
    const s = loadSeries({ __name__: 'm' }, S, '1 2 3');
    const first = callRange(funcFirstOverTime, [s], 10 * S, 100 * S).results[0];
    const last = callRange(funcLastOverTime, [s], 10 * S, 100 * S).results[0];
    const present = callRange(funcPresentOverTime, [s], 10 * S, 100 * S).results[0];
    expect([first?.f, first?.dropName]).toEqual([1, false]);
    expect([last?.f, last?.dropName]).toEqual([3, false]);
    expect([present?.f, present?.dropName]).toEqual([1, true]);
    expect(callRange(funcAbsentOverTime, [s], 10 * S, 100 * S).results[0]?.f).toBe(1);
  });

  it('carry a subquery series’ pending name drop', () => {
    const s = { ...loadSeries({ __name__: 'm' }, S, '1 2'), dropName: true };
    expect(callRange(funcLastOverTime, [s], 10 * S, 100 * S).results[0]?.dropName).toBe(true);
  });
});

describe('quantile and mad over time', () => {
  it('interpolate between ranks and put NaN first', () => {
    expect(one(funcQuantileOverTime, '0 1 NaN', { before: [0.8] })).toBeCloseTo(0.6, 12);
    expect(one(funcQuantileOverTime, '0 1 NaN', { before: [0.2] })).toBeNaN();
  });

  it('warn about φ outside [0, 1] and answer ±Inf', () => {
    const s = loadSeries({ __name__: 'm' }, S, '1 2');
    const low = callRange(funcQuantileOverTime, [s], 10 * S, 100 * S, { before: [-1] });
    expect(low.results[0]?.f).toBe(-Infinity);
    expect(low.enh.annotations.warnings()).toEqual([
      'PromQL warning: quantile value should be between 0 and 1, got -1 (1:1)',
    ]);
    const nan = callRange(funcQuantileOverTime, [s], 10 * S, 100 * S, { before: [NaN] });
    expect(nan.results[0]?.f).toBeNaN();
    expect(nan.enh.annotations.warnings()[0]).toContain('got NaN');
  });

  it('mad is NaN as soon as one sample is NaN', () => {
    expect(one(funcMadOverTime, '1 2 NaN 4')).toBeNaN();
    expect(one(funcMadOverTime, '4 6 2 1 999 1 2')).toBe(1);
  });
});

describe('changes and resets', () => {
  it('count NaN-to-NaN as no change', () => {
    expect(one(funcChanges, 'NaN NaN NaN')).toBe(0);
    expect(one(funcChanges, '0 NaN 0')).toBe(2);
    expect(one(funcChanges, '5')).toBe(0);
  });

  it('count decreases as resets', () => {
    expect(one(funcResets, '1 2 3 0 1 0 0 1 2 0')).toBe(3);
    expect(one(funcResets, '1 NaN 0')).toBe(0);
  });
});
