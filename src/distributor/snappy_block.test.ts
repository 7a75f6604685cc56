import fc from 'fast-check';
import { compress } from 'snappyjs';
import { describe, expect, it } from 'vitest';
import { SnappyCorruptError, snappyDecode } from './snappy_block.js';

describe('snappyDecode', () => {
  it('inverts snappyjs compression (Go-compatible block format)', () => {
    const data = fc.oneof(
      fc.uint8Array({ maxLength: 3000 }),
      // repetitive data exercises copies, including overlapping ones
      fc
        .tuple(fc.uint8Array({ minLength: 1, maxLength: 8 }), fc.integer({ min: 1, max: 2000 }))
        .map(([unit, n]) =>
          Uint8Array.from({ length: unit.length * n }, (_, i) => unit[i % unit.length] as number),
        ),
    );
    fc.assert(
      fc.property(data, (d) => {
        expect(Buffer.from(snappyDecode(compress(d))).equals(Buffer.from(d))).toBe(true);
      }),
      { numRuns: 200 },
    );
  });

  it('rejects short output, overlong literals, bad offsets and a bad preamble', () => {
    // announces 5 bytes, produces 1
    expect(() => snappyDecode(Uint8Array.of(5, 0x00, 1))).toThrow(SnappyCorruptError);
    // literal of 2 bytes with 1 byte present
    expect(() => snappyDecode(Uint8Array.of(2, 0x04, 1))).toThrow('snappy: corrupt input');
    // copy with offset 1 before anything was written
    expect(() => snappyDecode(Uint8Array.of(4, 0x01, 0x01))).toThrow(SnappyCorruptError);
    // output longer than announced
    expect(() => snappyDecode(Uint8Array.of(1, 0x04, 1, 2))).toThrow(SnappyCorruptError);
    expect(() => snappyDecode(Uint8Array.of(0xff, 0xff, 0xff, 0xff, 0xff, 0x01))).toThrow(
      SnappyCorruptError,
    );
    expect(Array.from(snappyDecode(Uint8Array.of(6, 0x04, 7, 8, 0x01, 0x02)))).toEqual([
      7, 8, 7, 8, 7, 8,
    ]);
  });

  it('never throws anything but SnappyCorruptError on random input', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 40 }), (b) => {
        try {
          snappyDecode(b);
        } catch (e) {
          expect(e).toBeInstanceOf(SnappyCorruptError);
        }
      }),
      { numRuns: 500 },
    );
  });
});
