import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createSeededRandom } from './prng.js';

describe('createSeededRandom', () => {
  it('gives the same sequence for the same seed and stream name', () => {
    const a = createSeededRandom('42').stream('network');
    const b = createSeededRandom('42').stream('network');
    const xs = Array.from({ length: 100 }, () => a.uint32());
    const ys = Array.from({ length: 100 }, () => b.uint32());
    expect(xs).toEqual(ys);
  });

  it('keeps streams independent of each other and of first-use order', () => {
    const r1 = createSeededRandom('7');
    const r2 = createSeededRandom('7');
    r1.stream('disk').uint32(); // drawing from another stream first must not shift 'network'
    const n1 = Array.from({ length: 10 }, () => r1.stream('network').uint32());
    const n2 = Array.from({ length: 10 }, () => r2.stream('network').uint32());
    expect(n1).toEqual(n2);
    expect(r1.stream('disk').uint32()).not.toEqual(r1.stream('network').uint32());
  });

  it('differs across seeds', () => {
    const a = Array.from(
      { length: 8 },
      (() => {
        const s = createSeededRandom('1').stream('x');
        return () => s.uint32();
      })(),
    );
    const b = Array.from(
      { length: 8 },
      (() => {
        const s = createSeededRandom('2').stream('x');
        return () => s.uint32();
      })(),
    );
    expect(a).not.toEqual(b);
  });

  it('keeps next() in [0,1) and int() in range', () => {
    fc.assert(
      fc.property(fc.string(), fc.integer({ min: 1, max: 2 ** 40 }), (seed, max) => {
        const s = createSeededRandom(seed).stream('p');
        for (let i = 0; i < 20; i++) {
          const f = s.next();
          expect(f >= 0 && f < 1).toBe(true);
          const n = s.int(max);
          expect(Number.isInteger(n) && n >= 0 && n < max).toBe(true);
        }
      }),
    );
  });

  it('draws int() roughly uniformly', () => {
    const s = createSeededRandom('uniform').stream('u');
    const counts = new Array<number>(10).fill(0);
    for (let i = 0; i < 100_000; i++) counts[s.int(10)]! += 1;
    for (const c of counts) expect(Math.abs(c - 10_000)).toBeLessThan(600);
  });

  it('rejects a non-positive bound with a message naming it', () => {
    expect(() => createSeededRandom('x').stream('y').int(0)).toThrow(/got 0/);
  });

  it('forks into independent deterministic streams', () => {
    const f1 = createSeededRandom('s').stream('a').fork('child');
    const f2 = createSeededRandom('s').stream('a').fork('child');
    expect(f1.bytes(16)).toEqual(f2.bytes(16));
  });
});
