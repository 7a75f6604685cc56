// The comparison rules of the differential test, on hand-made answers: a harness that
// accepted wrong answers would make the whole differential test meaningless.
import { describe, expect, it } from 'vitest';
import { Labels } from '../../src/model/index.js';
import {
  diffResults,
  floatsMatch,
  keyOfLabels,
  keyOfObject,
  normalizeApi,
  normalizeStrata,
  parseApiFloat,
  type NormResult,
} from './results.js';
import { chooseTimes, farthestPhase, fillTemplate } from './times.js';

const vec = (...s: [string, number][]): NormResult => ({
  resultType: 'vector',
  series: s.map(([key, v]) => ({ key, points: [[1000, v]] })),
});

describe('parseApiFloat', () => {
  it('reads Go float text, NaN and the infinities', () => {
    expect(parseApiFloat('1.5')).toBe(1.5);
    expect(parseApiFloat('-0')).toBe(-0);
    expect(parseApiFloat('1e+300')).toBe(1e300);
    expect(parseApiFloat('+Inf')).toBe(Infinity);
    expect(parseApiFloat('-Inf')).toBe(-Infinity);
    expect(parseApiFloat('NaN')).toBeNaN();
    expect(() => parseApiFloat('abc')).toThrow(/not a float/);
  });
});

describe('floatsMatch', () => {
  it('accepts NaN == NaN, equal infinities and relative noise; rejects the rest', () => {
    expect(floatsMatch(NaN, NaN)).toBe(true);
    expect(floatsMatch(NaN, 0)).toBe(false);
    expect(floatsMatch(Infinity, Infinity)).toBe(true);
    expect(floatsMatch(Infinity, -Infinity)).toBe(false);
    expect(floatsMatch(1e9, 1e9 * (1 + 1e-12))).toBe(true);
    expect(floatsMatch(1, 1 + 1e-6)).toBe(false);
    expect(floatsMatch(0, 1e-13)).toBe(true);
    expect(floatsMatch(0, 1e-6)).toBe(false);
  });
});

describe('normalization', () => {
  it('gives API and engine answers the same form', () => {
    const api = normalizeApi({
      resultType: 'vector',
      result: [{ metric: { job: 'a', __name__: 'up' }, value: [1700000000.123, '+Inf'] }],
    });
    const strata = normalizeStrata({
      type: 'vector',
      vector: [
        { metric: Labels.fromObject({ __name__: 'up', job: 'a' }), t: 1700000000123, f: Infinity },
      ],
    });
    expect(api).toEqual(strata);
    expect(diffResults(api, strata)).toEqual([]);
  });

  it('quotes label values the same way for both sides', () => {
    const l = Labels.fromObject({ a: 'x"y\nz', b: '' });
    expect(keyOfLabels(l)).toBe(keyOfObject({ b: '', a: 'x"y\nz' }));
  });

  it('reads scalars, strings and matrices', () => {
    expect(normalizeApi({ resultType: 'scalar', result: [2.5, 'NaN'] }).series[0]?.points).toEqual([
      [2500, NaN],
    ]);
    expect(normalizeApi({ resultType: 'string', result: [1, 'hi'] }).text).toBe('hi');
    const m = normalizeApi({
      resultType: 'matrix',
      result: [
        {
          metric: {},
          values: [
            [1, '1'],
            [2, '2'],
          ],
        },
      ],
    });
    expect(m.series[0]).toEqual({
      key: '{}',
      points: [
        [1000, 1],
        [2000, 2],
      ],
    });
  });
});

describe('diffResults', () => {
  it('ignores vector order but reports missing, extra and different series', () => {
    expect(diffResults(vec(['a', 1], ['b', 2]), vec(['b', 2], ['a', 1]))).toEqual([]);
    const d = diffResults(vec(['a', 1], ['b', 2]), vec(['a', 1.5], ['c', 2]));
    expect(d).toHaveLength(3);
    expect(d.join('\n')).toMatch(/a: point 0: prometheus 1@1000, strata 1.5@1000/);
    expect(d.join('\n')).toMatch(/missing in strata: b/);
    expect(d.join('\n')).toMatch(/extra in strata: c/);
  });

  it('reports a different result type, timestamps and point counts', () => {
    expect(diffResults(vec(['a', 1]), { ...vec(['a', 1]), resultType: 'matrix' })).toHaveLength(1);
    const shifted: NormResult = {
      resultType: 'vector',
      series: [{ key: 'a', points: [[2000, 1]] }],
    };
    expect(diffResults(vec(['a', 1]), shifted)).toHaveLength(1);
    const two: NormResult = {
      resultType: 'matrix',
      series: [
        {
          key: 'a',
          points: [
            [1000, 1],
            [2000, 1],
          ],
        },
      ],
    };
    expect(diffResults({ ...vec(['a', 1]), resultType: 'matrix' }, two)).toHaveLength(1);
  });

  it('checks the order of sorted answers, NaN last', () => {
    const p = vec(['a', 1], ['b', 2], ['c', NaN]);
    expect(diffResults(p, vec(['a', 1], ['b', 2], ['c', NaN]), 'asc')).toEqual([]);
    expect(diffResults(p, vec(['b', 2], ['a', 1], ['c', NaN]), 'asc')).toHaveLength(1);
    expect(diffResults(p, vec(['c', NaN], ['a', 1], ['b', 2]), 'asc')).toHaveLength(1);
    expect(diffResults(p, vec(['b', 2], ['a', 1], ['c', NaN]), 'desc')).toEqual([]);
  });
});

describe('evaluation times', () => {
  it('keep the farthest phase from every sample', () => {
    expect(farthestPhase([1000, 2000, 3500])).toEqual({ phase: 250, margin: 250 });
    const t = chooseTimes([10_000_100, 10_001_100, 10_040_100], 10_000_100, 10_040_100);
    expect(t.phase).toBe(600);
    for (const x of [...t.instants, t.at, t.rangeStart, t.rangeEnd]) expect(x % 1000).toBe(600);
    expect(t.gridHazard).toBe(false);
    expect(chooseTimes([5_000], 5_000, 5_000).gridHazard).toBe(true);
    expect(fillTemplate('x @ {AT} + y @ {AT}', t)).toBe(
      `x @ ${(t.at / 1000).toFixed(3)} + y @ ${(t.at / 1000).toFixed(3)}`,
    );
  });
});
