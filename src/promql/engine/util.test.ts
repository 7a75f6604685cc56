import { describe, expect, it } from 'vitest';
import { goPow, StaleMarkerTest } from './util.js';
import { staleNaN } from './test_helpers.js';

describe('Go math', () => {
  it('math.Pow special cases', () => {
    expect(goPow(1, NaN)).toBe(1);
    expect(goPow(NaN, 0)).toBe(1);
    expect(goPow(-1, Infinity)).toBe(1);
    expect(goPow(2, 0.5)).toBe(Math.SQRT2);
    expect(goPow(-8, 1 / 3)).toBeNaN();
  });
});

describe('stale markers', () => {
  it('recognises the marker, quieted or not, and nothing else', () => {
    const t = new StaleMarkerTest();
    expect(t.isStale(staleNaN())).toBe(true);
    const quiet = new DataView(new ArrayBuffer(8));
    quiet.setBigUint64(0, 0x7ff8000000000002n);
    expect(t.isStale(quiet.getFloat64(0))).toBe(true);
    expect(t.isStale(NaN)).toBe(false);
    quiet.setBigUint64(0, 0x7ff8000000000001n);
    expect(t.isStale(quiet.getFloat64(0))).toBe(false);
    expect(t.isStale(2)).toBe(false);
  });
});
