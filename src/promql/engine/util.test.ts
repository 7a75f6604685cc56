import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Labels } from '../../model/index.js';
import { containsSameLabelset, goPow, StaleMarkerTest } from './util.js';
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

describe('containsSameLabelset', () => {
  const l = (...pairs: string[]): { metric: Labels } => ({ metric: Labels.fromStrings(...pairs) });

  it('finds two elements with equal label sets, among any number', () => {
    expect(containsSameLabelset([])).toBe(false);
    expect(containsSameLabelset([l('a', '1'), l('a', '1')])).toBe(true);
    expect(containsSameLabelset([l('a', '1'), l('a', '2'), l('b', '1')])).toBe(false);
    expect(containsSameLabelset([l('a', '1'), l('a', '2'), l('b', '1'), l('a', '2')])).toBe(true);
  });

  it('tells apart different sets whose NUL-joined forms are the same', () => {
    // Both join to "a\0b\0c\0d\0e\0f".
    const x = l('a', 'b\0c', 'd', 'e\0f');
    const y = l('a', 'b', 'c\0d', 'e\0f');
    expect(x.metric.joined()).toBe(y.metric.joined());
    expect(containsSameLabelset([x, y, l('z', '1')])).toBe(false);
    expect(containsSameLabelset([x, y, l('z', '1'), l('a', 'b', 'c\0d', 'e\0f')])).toBe(true);
  });

  it('agrees with comparing every pair (property, with NUL in values)', () => {
    const value = fc.constantFrom('', 'b', 'b\0c', 'c', '\0', 'c\0d');
    const set = fc
      .uniqueArray(fc.tuple(fc.constantFrom('a', 'b', 'c\0d', 'e'), value), {
        selector: ([name]) => name,
        maxLength: 3,
      })
      .map((pairs) => ({ metric: Labels.fromPairs(pairs) }));
    fc.assert(
      fc.property(fc.array(set, { maxLength: 8 }), (items) => {
        const pairwise = items.some((a, i) =>
          items.some((b, j) => i < j && a.metric.equals(b.metric)),
        );
        expect(containsSameLabelset(items)).toBe(pairwise);
      }),
    );
  });
});
