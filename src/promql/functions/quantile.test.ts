import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { almostEqual } from './quantile.js';

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
