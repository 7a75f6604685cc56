import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DecBuf, DecodeError, EncBuf, uvarintSize } from './buffers.js';

function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('hex');
}

function encoded(write: (e: EncBuf) => void): string {
  const e = new EncBuf(1); // tiny capacity so that growth is exercised
  write(e);
  return hex(e.get());
}

/** Go's encoding/binary PutUvarint, written independently over bigint as a reference. */
function goUvarint(x: bigint): string {
  const out: number[] = [];
  while (x >= 0x80n) {
    out.push(Number(x & 0x7fn) | 0x80);
    x >>= 7n;
  }
  out.push(Number(x));
  return hex(Uint8Array.from(out));
}

/** Go's PutVarint: ux = uint64(x) << 1, inverted when x < 0. */
function goVarint(x: bigint): string {
  let ux = BigInt.asUintN(64, x << 1n);
  if (x < 0n) ux = BigInt.asUintN(64, ~ux);
  return goUvarint(ux);
}

describe('EncBuf golden bytes', () => {
  it('writes fixed-width big-endian integers', () => {
    expect(encoded((e) => e.putByte(0x1ff))).toBe('ff');
    expect(encoded((e) => e.putBE16(0xabcd))).toBe('abcd');
    expect(encoded((e) => e.putBE32(0xdeadbeef))).toBe('deadbeef');
    expect(encoded((e) => e.putBE64(0x0102030405060708n))).toBe('0102030405060708');
    expect(encoded((e) => e.putBE64(2 ** 53 - 1))).toBe('001fffffffffffff');
    expect(encoded((e) => e.putBE64(-1))).toBe('ffffffffffffffff');
    expect(encoded((e) => e.putBE64(-1n))).toBe('ffffffffffffffff');
    expect(encoded((e) => e.putBE64((1n << 64n) - 2n))).toBe('fffffffffffffffe');
  });

  it('writes Go varints', () => {
    expect(encoded((e) => e.putUvarint(0))).toBe('00');
    expect(encoded((e) => e.putUvarint(300))).toBe('ac02'); // 300 = 0b10_0101100
    expect(encoded((e) => e.putVarint(-1))).toBe('01');
    expect(encoded((e) => e.putVarint(1))).toBe('02');
    expect(encoded((e) => e.putVarint(-65))).toBe('8101'); // zig-zag 129
    expect(encoded((e) => e.putUvarintBig((1n << 64n) - 1n))).toBe('ff'.repeat(9) + '01');
    expect(encoded((e) => e.putVarintBig(-(1n << 63n)))).toBe('ff'.repeat(9) + '01');
  });

  it('writes length-prefixed strings as UTF-8', () => {
    expect(encoded((e) => e.putUvarintStr(''))).toBe('00');
    expect(encoded((e) => e.putUvarintStr('job'))).toBe('036a6f62');
    // é is c3 a9, € is e2 82 ac, 😀 is f0 9f 98 80: 9 bytes.
    expect(encoded((e) => e.putUvarintStr('é€😀'))).toBe('09c3a9e282acf09f9880');
    expect(encoded((e) => e.putUvarintBytes(Uint8Array.of(1, 2)))).toBe('020102');
  });

  it('rejects values it cannot represent, naming them', () => {
    const e = new EncBuf();
    expect(() => e.putUvarint(-1)).toThrow(/non-negative safe integer, got -1/);
    expect(() => e.putUvarint(2 ** 53)).toThrow(/got 9007199254740992/);
    expect(() => e.putVarint(0.5)).toThrow(/safe integer, got 0.5/);
    expect(() => e.putBE64(1n << 64n)).toThrow(/fit in 64 bits/);
    expect(() => e.putUvarintBig(-1n)).toThrow(/uint64, got -1/);
    expect(() => e.putVarintBig(1n << 63n)).toThrow(/int64/);
  });

  it('reset keeps capacity but forgets content', () => {
    const e = new EncBuf();
    e.putBE32(7);
    e.reset();
    expect(e.len()).toBe(0);
    e.putByte(9);
    expect(hex(e.get())).toBe('09');
  });
});

describe('varints match Go', () => {
  it('number and bigint encoders agree with the reference for any safe integer', () => {
    fc.assert(
      fc.property(fc.maxSafeInteger(), (n) => {
        expect(encoded((e) => e.putVarint(n))).toBe(goVarint(BigInt(n)));
        expect(encoded((e) => e.putVarintBig(BigInt(n)))).toBe(goVarint(BigInt(n)));
        const u = Math.abs(n);
        expect(encoded((e) => e.putUvarint(u))).toBe(goUvarint(BigInt(u)));
        expect(uvarintSize(u)).toBe(goUvarint(BigInt(u)).length / 2);
      }),
      { numRuns: 2000 },
    );
  });

  it('bigint encoders agree with the reference over the whole 64-bit range', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(1n << 63n), max: (1n << 63n) - 1n }), (n) => {
        expect(encoded((e) => e.putVarintBig(n))).toBe(goVarint(n));
        expect(encoded((e) => e.putUvarintBig(BigInt.asUintN(64, n)))).toBe(
          goUvarint(BigInt.asUintN(64, n)),
        );
      }),
    );
  });
});

type Op =
  | { kind: 'byte'; v: number }
  | { kind: 'be16'; v: number }
  | { kind: 'be32'; v: number }
  | { kind: 'be64'; v: number }
  | { kind: 'be64int'; v: number }
  | { kind: 'be64big'; v: bigint }
  | { kind: 'uvarint'; v: number }
  | { kind: 'uvarintBig'; v: bigint }
  | { kind: 'varint'; v: number }
  | { kind: 'varintBig'; v: bigint }
  | { kind: 'str'; v: string }
  | { kind: 'bytes'; v: Uint8Array };

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.integer({ min: 0, max: 0xff }).map((v) => ({ kind: 'byte', v }) as const),
  fc.integer({ min: 0, max: 0xffff }).map((v) => ({ kind: 'be16', v }) as const),
  fc.integer({ min: 0, max: 0xffffffff }).map((v) => ({ kind: 'be32', v }) as const),
  fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }).map((v) => ({ kind: 'be64', v }) as const),
  fc.maxSafeInteger().map((v) => ({ kind: 'be64int', v }) as const),
  fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }).map((v) => ({ kind: 'be64big', v }) as const),
  fc
    .integer({ min: 0, max: Number.MAX_SAFE_INTEGER })
    .map((v) => ({ kind: 'uvarint', v }) as const),
  fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }).map((v) => ({ kind: 'uvarintBig', v }) as const),
  fc.maxSafeInteger().map((v) => ({ kind: 'varint', v }) as const),
  fc
    .bigInt({ min: -(1n << 63n), max: (1n << 63n) - 1n })
    .map((v) => ({ kind: 'varintBig', v }) as const),
  fc.string({ unit: 'grapheme' }).map((v) => ({ kind: 'str', v }) as const),
  fc.string().map((v) => ({ kind: 'str', v }) as const),
  fc.uint8Array({ maxLength: 40 }).map((v) => ({ kind: 'bytes', v }) as const),
);

function put(e: EncBuf, o: Op): void {
  switch (o.kind) {
    case 'byte':
      return e.putByte(o.v);
    case 'be16':
      return e.putBE16(o.v);
    case 'be32':
      return e.putBE32(o.v);
    case 'be64':
    case 'be64int':
    case 'be64big':
      return e.putBE64(o.v);
    case 'uvarint':
      return e.putUvarint(o.v);
    case 'uvarintBig':
      return e.putUvarintBig(o.v);
    case 'varint':
      return e.putVarint(o.v);
    case 'varintBig':
      return e.putVarintBig(o.v);
    case 'str':
      return e.putUvarintStr(o.v);
    case 'bytes':
      return e.putUvarintBytes(o.v);
  }
}

function get(d: DecBuf, o: Op): unknown {
  switch (o.kind) {
    case 'byte':
      return d.getByte();
    case 'be16':
      return d.getBE16();
    case 'be32':
      return d.getBE32();
    case 'be64':
      return d.getBE64();
    case 'be64int':
      return d.getBE64Int();
    case 'be64big':
      return d.getBE64Big();
    case 'uvarint':
      return d.getUvarint();
    case 'uvarintBig':
      return d.getUvarintBig();
    case 'varint':
      return d.getVarint();
    case 'varintBig':
      return d.getVarintBig();
    case 'str':
      return d.getUvarintStr();
    case 'bytes':
      return d.getUvarintBytes();
  }
}

describe('EncBuf/DecBuf round trip', () => {
  it('reads back any sequence of values in order, consuming every byte', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 30 }), (ops) => {
        const e = new EncBuf(1);
        for (const o of ops) put(e, o);
        const d = new DecBuf(e.get());
        for (const o of ops) expect(get(d, o)).toEqual(o.v);
        expect(d.err()).toBeNull();
        expect(d.len()).toBe(0);
      }),
      { numRuns: 500 },
    );
  });

  it('fails with a sticky DecodeError on truncation, naming the offset', () => {
    fc.assert(
      fc.property(fc.array(op, { minLength: 1, maxLength: 10 }), fc.nat(), (ops, cut) => {
        const e = new EncBuf();
        for (const o of ops) put(e, o);
        const full = e.get();
        const keep = cut % full.length;
        const d = new DecBuf(full.subarray(0, keep), 1000);
        for (const o of ops) get(d, o);
        // Every value takes at least one byte, so a shortened buffer always fails somewhere.
        const error = d.err();
        expect(error).toBeInstanceOf(DecodeError);
        expect(error?.offset).toBeGreaterThanOrEqual(1000);
        expect(error?.offset).toBeLessThanOrEqual(1000 + keep);
        expect(error?.message).toMatch(/at offset \d+$/);
        expect(d.getUvarint()).toBe(0); // sticky: later reads return zero values
        expect(d.err()).toBe(error);
      }),
    );
  });
});

describe('DecBuf errors', () => {
  it('reports a truncated uvarint at its start', () => {
    const d = new DecBuf(Uint8Array.of(0x05, 0x80, 0x80), 10);
    expect(d.getByte()).toBe(5);
    expect(d.getUvarint()).toBe(0);
    expect(d.err()?.message).toBe('unexpected end of data reading uvarint at offset 11');
    expect(d.err()?.offset).toBe(11);
    expect(() => d.throwIfError()).toThrow(DecodeError);
  });

  it('rejects a uvarint longer than 64 bits', () => {
    const d = new DecBuf(Uint8Array.from([...Array<number>(9).fill(0xff), 0x02]));
    d.getUvarintBig();
    expect(d.err()?.message).toBe('uvarint overflows 64 bits at offset 0');
  });

  it('refuses numbers beyond 2^53 in the number getters but reads them as bigint', () => {
    const e = new EncBuf();
    e.putUvarintBig(1n << 60n);
    e.putVarintBig(-(1n << 60n));
    e.putBE64(1n << 60n);
    e.putBE64(-(1n << 60n));
    const bytes = e.get();

    const strict = new DecBuf(bytes);
    strict.getUvarint();
    expect(strict.err()?.message).toBe('uvarint 1152921504606846976 exceeds 2^53-1 at offset 0');
    const atVarint = new DecBuf(bytes);
    atVarint.getUvarintBig();
    atVarint.getVarint();
    expect(atVarint.err()?.message).toMatch(/^varint -1152921504606846976 is outside/);
    const atBe64 = new DecBuf(bytes);
    atBe64.getUvarintBig();
    atBe64.getVarintBig();
    atBe64.getBE64();
    expect(atBe64.err()?.message).toMatch(/^be64 value 1152921504606846976 exceeds/);

    const big = new DecBuf(bytes);
    expect(big.getUvarintBig()).toBe(1n << 60n);
    expect(big.getVarintBig()).toBe(-(1n << 60n));
    expect(big.getBE64Big()).toBe(1n << 60n);
    expect(BigInt.asIntN(64, big.getBE64Big())).toBe(-(1n << 60n));
    expect(big.err()).toBeNull();
  });

  it('rejects invalid UTF-8 in strings', () => {
    const d = new DecBuf(Uint8Array.of(0x02, 0xc3, 0x28));
    expect(d.getUvarintStr()).toBe('');
    expect(d.err()?.message).toBe('string is not valid UTF-8 at offset 0');
  });

  it('reset re-targets the reader and clears the error', () => {
    const d = new DecBuf(new Uint8Array(0));
    d.getByte();
    expect(d.err()).not.toBeNull();
    d.reset(Uint8Array.of(7, 8));
    d.skip(1);
    expect(d.getByte()).toBe(8);
    expect(d.err()).toBeNull();
  });
});
