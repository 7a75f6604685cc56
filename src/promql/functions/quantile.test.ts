import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { almostEqual, quantile } from './quantile.js';

/** test.go's defaultEpsilon, the tolerance these cases were written for. */
const DEFAULT_EPSILON = 0.000001;

describe('almostEqual (Prometheus util/almost)', () => {
  it('treats NaN as equal to NaN and infinities by identity', () => {
    expect(almostEqual(NaN, NaN, DEFAULT_EPSILON)).toBe(true);
    expect(almostEqual(NaN, 1, DEFAULT_EPSILON)).toBe(false);
    expect(almostEqual(Infinity, Infinity, DEFAULT_EPSILON)).toBe(true);
    expect(almostEqual(Infinity, -Infinity, DEFAULT_EPSILON)).toBe(false);
    expect(almostEqual(Number.MAX_VALUE, Infinity, DEFAULT_EPSILON)).toBe(false);
  });

  it('allows a relative error below 1e-6', () => {
    expect(almostEqual(1, 1 + 1e-7, DEFAULT_EPSILON)).toBe(true);
    expect(almostEqual(1, 1 + 1e-5, DEFAULT_EPSILON)).toBe(false);
    expect(almostEqual(1e20, 1e20 + 1e13, DEFAULT_EPSILON)).toBe(true);
  });

  it('compares against zero with an absolute bound near the smallest normal', () => {
    expect(almostEqual(0, 1e-300, DEFAULT_EPSILON)).toBe(false);
    expect(almostEqual(0, Number.MIN_VALUE, DEFAULT_EPSILON)).toBe(true);
    expect(almostEqual(0, -0, DEFAULT_EPSILON)).toBe(true);
  });

  it('is symmetric and reflexive (property)', () => {
    fc.assert(
      fc.property(fc.double(), fc.double(), (a, b) => {
        expect(almostEqual(a, b, DEFAULT_EPSILON)).toBe(almostEqual(b, a, DEFAULT_EPSILON));
        expect(almostEqual(a, a, DEFAULT_EPSILON)).toBe(true);
      }),
    );
  });
});

/** Prometheus's quantile written out: sort ascending with NaN first, interpolate ranks. */
function referenceQuantile(q: number, values: readonly number[]): number {
  if (values.length === 0 || Number.isNaN(q)) return NaN;
  if (q < 0) return -Infinity;
  if (q > 1) return Infinity;
  const v = [...values].sort((a, b) =>
    Number.isNaN(a) ? (Number.isNaN(b) ? 0 : -1) : Number.isNaN(b) ? 1 : a - b,
  );
  const rank = q * (v.length - 1);
  const lower = Math.max(0, Math.floor(rank));
  const upper = Math.min(v.length - 1, lower + 1);
  const weight = rank - Math.floor(rank);
  return v[lower]! * (1 - weight) + v[upper]! * weight;
}

describe('quantile (Prometheus promql/quantile.go)', () => {
  it('interpolates between closest ranks; NaN ranks first; bounds of q', () => {
    expect(quantile(0.5, [3, 1, 2])).toBe(2);
    expect(quantile(0.25, [4, 1, 3, 2])).toBe(1.75);
    expect(quantile(0, [NaN, 5, 1])).toBeNaN();
    expect(quantile(1, [NaN, 5, 1])).toBe(5);
    expect(quantile(0.5, [NaN, 5, 1])).toBe(1);
    expect(quantile(0.5, [])).toBeNaN();
    expect(quantile(NaN, [1])).toBeNaN();
    expect(quantile(-0.1, [1])).toBe(-Infinity);
    expect(quantile(1.1, [1])).toBe(Infinity);
  });

  it('leaves its input unsorted', () => {
    const values = [3, NaN, 1];
    quantile(0.5, values);
    expect(values).toEqual([3, NaN, 1]);
  });

  it('answers as the comparator sort does (property, with NaN and infinities)', () => {
    const value = fc.oneof(
      fc.double({ noNaN: true }),
      fc.constantFrom(NaN, Infinity, -Infinity, 0, 1, -1),
    );
    fc.assert(
      fc.property(
        fc.double({ min: -0.1, max: 1.1 }),
        fc.array(value, { maxLength: 40 }),
        (q, v) => {
          expect(quantile(q, v)).toBe(referenceQuantile(q, v));
          expect(quantile(q, Float64Array.from(v))).toBe(referenceQuantile(q, v));
        },
      ),
    );
  });
});
