import { describe, expect, it } from 'vitest';
import { MAX_FOLD, MIN_FOLD, equalFold, foldKey, foldOrbit } from './case_fold.js';

describe('case folding (Go unicode.SimpleFold orbits)', () => {
  it('groups the RE2 special cases', () => {
    expect(foldOrbit(0x6b)).toEqual([0x4b, 0x6b, 0x212a]); // K k Kelvin
    expect(foldOrbit(0x73)).toEqual([0x53, 0x73, 0x17f]); // S s long s
    expect(foldOrbit(0x3c3)).toEqual([0x3a3, 0x3c2, 0x3c3]); // Σ ς σ
    expect(foldOrbit(0xb5)).toEqual([0xb5, 0x39c, 0x3bc]); // µ Μ μ
    expect(foldOrbit(0xdf)).toEqual([0xdf, 0x1e9e]); // ß ẞ
    expect(foldOrbit(0x10400)).toEqual([0x10400, 0x10428]); // Deseret
  });

  it('does not apply Turkic dotted/dotless i folding', () => {
    expect(foldOrbit(0x131)).toEqual([0x131]);
    expect(foldOrbit(0x130)).toEqual([0x130]);
    expect(foldOrbit(0x69)).toEqual([0x49, 0x69]);
  });

  it('leaves characters without case alone', () => {
    expect(foldOrbit(0x31)).toEqual([0x31]);
    expect(foldOrbit(0x6c49)).toEqual([0x6c49]);
    expect(foldKey(0x31)).toBe(0x31);
  });

  it('is a consistent partition within Go fold bounds', () => {
    for (let cp = 0; cp <= 0x1ffff; cp++) {
      const orbit = foldOrbit(cp);
      expect(orbit.includes(cp)).toBe(true);
      if (orbit.length > 1) {
        expect(cp).toBeGreaterThanOrEqual(MIN_FOLD);
        expect(cp).toBeLessThanOrEqual(MAX_FOLD);
        for (const m of orbit) expect(foldOrbit(m)).toBe(orbit);
      }
    }
  });

  it('compares strings like strings.EqualFold', () => {
    expect(equalFold('Kelvin', '\u212aELVIN')).toBe(true);
    expect(equalFold('straße', 'STRAẞE')).toBe(true);
    expect(equalFold('strasse', 'straße')).toBe(false);
    expect(equalFold('ab', 'abc')).toBe(false);
    expect(equalFold('', '')).toBe(true);
  });
});
