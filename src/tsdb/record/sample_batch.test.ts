import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SampleBatch } from './index.js';

describe('SampleBatch', () => {
  it('keeps value bits exactly through growth, copies and filtering', () => {
    const row = fc.tuple(fc.nat(1000), fc.integer(), fc.nat(0xffffffff), fc.nat(0xffffffff));
    fc.assert(
      fc.property(fc.array(row, { maxLength: 100 }), fc.nat(1000), (rows, cut) => {
        const batch = new SampleBatch(1);
        for (const [ref, t, hi, lo] of rows) batch.pushBits(ref, t, hi, lo);
        const copy = new SampleBatch(1);
        for (let i = 0; i < batch.length; i++) copy.pushFrom(batch, i);
        const dropped = copy.retain((ref) => ref >= cut);
        const want = rows
          .filter(([ref]) => ref >= cut)
          .map(([ref, t, hi, lo]) => [ref, t, (BigInt(hi) << 32n) | BigInt(lo)]);
        expect(dropped).toBe(rows.length - want.length);
        expect(
          Array.from({ length: copy.length }, (_, i) => [
            copy.refs[i],
            copy.timestamps[i],
            copy.valueBits(i),
          ]),
        ).toEqual(want);
      }),
    );
  });

  it('stores plain numbers readable from values and keeps capacity on clear', () => {
    const batch = new SampleBatch(2);
    batch.push(1, 10, 0.5);
    batch.push(2, 20, -Infinity);
    batch.push(3, 30, 1e300);
    expect(Array.from(batch.values.subarray(0, batch.length))).toEqual([0.5, -Infinity, 1e300]);
    expect(batch.valueBits(0)).toBe(0x3fe0000000000000n);
    const capacity = batch.refs.length;
    batch.clear();
    expect(batch.length).toBe(0);
    expect(batch.refs.length).toBe(capacity);
  });
});
