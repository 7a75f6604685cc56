import { describe, expect, it } from 'vitest';
import { kahanInc } from './common.js';

describe('kahanInc (util/kahansum.Inc)', () => {
  it('recovers lost low-order bits', () => {
    let sum = 0;
    let c = 0;
    for (const v of [1e100, 1, -1e100]) [sum, c] = kahanInc(v, sum, c);
    expect(sum + c).toBe(1);
  });

  it('resets the compensation once the sum is infinite', () => {
    expect(kahanInc(Infinity, 1, 0.5)).toEqual([Infinity, 0]);
    expect(kahanInc(-Infinity, 1, 0.5)).toEqual([-Infinity, 0]);
  });
});
