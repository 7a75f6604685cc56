import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Crc32c, crc32c } from './crc32c.js';

const ascii = (s: string): Uint8Array => new TextEncoder().encode(s);

/** Bit-by-bit reference implementation, independent of the table code. */
function bitwiseCrc32c(data: Uint8Array): number {
  let c = 0xffffffff;
  for (const b of data) {
    c ^= b;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0x82f63b78 : c >>> 1;
  }
  return ~c >>> 0;
}

describe('crc32c', () => {
  it('matches the standard check value', () => {
    expect(crc32c(ascii('123456789'))).toBe(0xe3069283);
  });

  it('matches published test vectors (RFC 3720 B.4 and others)', () => {
    expect(crc32c(new Uint8Array(0))).toBe(0);
    expect(crc32c(ascii('a'))).toBe(0xc1d04330);
    expect(crc32c(new Uint8Array(32))).toBe(0x8a9136aa);
    expect(crc32c(new Uint8Array(32).fill(0xff))).toBe(0x62a8ab43);
    expect(crc32c(Uint8Array.from({ length: 32 }, (_, i) => i))).toBe(0x46dd794e);
    expect(crc32c(Uint8Array.from({ length: 32 }, (_, i) => 31 - i))).toBe(0x113fdb5c);
    expect(crc32c(ascii('The quick brown fox jumps over the lazy dog'))).toBe(0x22620404);
  });

  it('agrees with a bitwise reference for arbitrary data', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (data) => {
        expect(crc32c(data)).toBe(bitwiseCrc32c(data));
      }),
    );
  });

  it('continues from a seed like Go crc32.Update and matches the incremental class', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 100 }), fc.uint8Array({ maxLength: 100 }), (a, b) => {
        const joined = new Uint8Array(a.length + b.length);
        joined.set(a);
        joined.set(b, a.length);
        const whole = crc32c(joined);
        expect(crc32c(b, crc32c(a))).toBe(whole);
        expect(new Crc32c().update(a).update(b).digest()).toBe(whole);
        expect(new Crc32c().update(joined, 0, a.length).update(joined, a.length).digest()).toBe(
          whole,
        );
      }),
    );
  });

  it('resets and rejects ranges outside the data', () => {
    const c = new Crc32c().update(ascii('garbage'));
    expect(c.reset().update(ascii('123456789')).digest()).toBe(0xe3069283);
    expect(() => c.update(new Uint8Array(4), 2, 6)).toThrow(/\[2, 6\).*length 4/);
  });
});
