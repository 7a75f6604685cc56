import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DecodeError } from '../encoding/index.js';
import { BitStreamReader, BitStreamWriter } from './bstream.js';

function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('hex');
}

// A field of 1..64 bits as its (hi, lo) halves, masked to its width.
const field = fc
  .tuple(fc.integer({ min: 1, max: 64 }), fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }))
  .map(([nbits, raw]) => {
    const v = raw & ((1n << BigInt(nbits)) - 1n);
    return { nbits, hi: Number(v >> 32n), lo: Number(v & 0xffffffffn) };
  });

describe('BitStreamWriter', () => {
  it('packs bits most-significant first', () => {
    const w = new BitStreamWriter();
    w.writeBit(1);
    w.writeBit(0);
    w.writeBits(0b101, 3);
    w.writeByte(0xff); // straddles the byte boundary
    w.writeBits64(0x1, 0x80000001, 40);
    // 1 0 101 11111111 then the 40 bits of 0x0180000001 (53 bits, 3 padding):
    // 10101111 11111000 00001100 00000000 00000000 00000000 00001000
    expect(hex(w.bytes())).toBe('aff80c00000008');
    expect(w.bitLength()).toBe(53);
  });

  it('leaves an empty byte after a whole-byte write ending on a byte boundary, like Prometheus', () => {
    const w = new BitStreamWriter();
    w.writeBits(0xab, 8);
    expect(hex(w.bytes())).toBe('ab00');
    expect(w.bitLength()).toBe(8);
    w.writeBit(1); // goes into the empty byte
    expect(hex(w.bytes())).toBe('ab80');
    w.writeBits(0, 7); // a partial-byte write fills the byte without appending another
    expect(hex(w.bytes())).toBe('ab80');
    w.writeBits64(0, 1, 16);
    expect(hex(w.bytes())).toBe('ab80000100');
    w.writeBits64(0, 1, 15); // ends with single bits: no empty byte
    expect(hex(w.bytes())).toBe('ab8000010002'); // 8 bits fill the empty byte, 7 more follow

    // Resuming at a byte-aligned end keeps that empty byte, as the writer had it.
    const resumed = new BitStreamWriter(Uint8Array.of(0xab, 0x00));
    resumed.truncateBits(8);
    expect(hex(resumed.bytes())).toBe('ab00');
    resumed.writeBits(0b1, 1);
    expect(hex(resumed.bytes())).toBe('ab80');
  });

  it('truncates to a bit position and continues from there', () => {
    const w = new BitStreamWriter(Uint8Array.of(0xff, 0xff));
    w.truncateBits(11);
    expect(hex(w.bytes())).toBe('ffe0');
    w.writeBits(0, 2);
    w.writeBits(0b111, 3);
    expect(hex(w.bytes())).toBe('ffe7');
    expect(() => w.truncateBits(17)).toThrow(/cannot truncate to 17 bits/);
  });
});

describe('BitStreamReader', () => {
  it('keeps writing correctly after compact() shrank the buffer to its contents', () => {
    fc.assert(
      fc.property(
        fc.array(field, { maxLength: 6 }),
        fc.array(field, { minLength: 1, maxLength: 40 }),
        (before, after) => {
          const plain = new BitStreamWriter();
          const compacted = new BitStreamWriter();
          for (const f of before) {
            plain.writeBits64(f.hi, f.lo, f.nbits);
            compacted.writeBits64(f.hi, f.lo, f.nbits);
          }
          compacted.compact(); // may leave an empty or 1-byte buffer
          for (const f of after) {
            plain.writeBits64(f.hi, f.lo, f.nbits);
            compacted.writeBits64(f.hi, f.lo, f.nbits);
          }
          expect(hex(compacted.bytes())).toBe(hex(plain.bytes()));
        },
      ),
    );
  });

  it('reads back any sequence of fields written', () => {
    fc.assert(
      fc.property(fc.array(field, { maxLength: 100 }), (fields) => {
        const w = new BitStreamWriter();
        for (const f of fields) w.writeBits64(f.hi, f.lo, f.nbits);
        const r = new BitStreamReader();
        r.reset(w.bytes());
        for (const f of fields) {
          r.readBits64(f.nbits);
          expect([r.hi, r.lo]).toEqual([f.hi, f.lo]);
        }
        expect(r.bitPosition()).toBe(w.bitLength());
        // At most the padding of the last byte, or the empty byte a whole-byte write leaves.
        expect(r.remainingBits()).toBeLessThanOrEqual(8);
      }),
      { numRuns: 300 },
    );
  });

  it('throws a DecodeError naming the byte offset when reading past the end', () => {
    const r = new BitStreamReader();
    r.reset(Uint8Array.of(0xaa, 0xbb), 4);
    expect(r.readBits(8)).toBe(0xab);
    expect(() => r.readBits(5)).toThrow(DecodeError);
    expect(() => r.readBits(5)).toThrow(/reading 5 bits \(4 left\) at offset 1/);
    expect(r.readBits(4)).toBe(0xb);
    expect(() => r.readBit()).toThrow(/at offset 2/);
  });
});
