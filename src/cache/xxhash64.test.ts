import { describe, expect, it } from 'vitest';
import { xxhash64, xxhash64String } from './xxhash64.js';

/** A straightforward BigInt transcription of the specification, as the oracle. */
const MASK = 0xffff_ffff_ffff_ffffn;
const P1 = 0x9e3779b185ebca87n;
const P2 = 0xc2b2ae3d27d4eb4fn;
const P3 = 0x165667b19e3779f9n;
const P4 = 0x85ebca77c2b2ae63n;
const P5 = 0x27d4eb2f165667c5n;

const mul = (a: bigint, b: bigint): bigint => (a * b) & MASK;
const add = (a: bigint, b: bigint): bigint => (a + b) & MASK;
const rotl = (x: bigint, r: bigint): bigint => ((x << r) | (x >> (64n - r))) & MASK;

function read64(b: Uint8Array, i: number): bigint {
  const lo = (b[i]! | (b[i + 1]! << 8) | (b[i + 2]! << 16) | (b[i + 3]! << 24)) >>> 0;
  const hi = (b[i + 4]! | (b[i + 5]! << 8) | (b[i + 6]! << 16) | (b[i + 7]! << 24)) >>> 0;
  return (BigInt(hi) << 32n) | BigInt(lo);
}

function read32(b: Uint8Array, i: number): bigint {
  return BigInt((b[i]! | (b[i + 1]! << 8) | (b[i + 2]! << 16) | (b[i + 3]! << 24)) >>> 0);
}

function round(acc: bigint, lane: bigint): bigint {
  return mul(rotl(add(acc, mul(lane, P2)), 31n), P1);
}

function mergeRound(acc: bigint, v: bigint): bigint {
  return add(mul(acc ^ round(0n, v), P1), P4);
}

function oracle(input: Uint8Array): bigint {
  const len = input.length;
  let i = 0;
  let h: bigint;
  if (len >= 32) {
    let v1 = add(P1, P2);
    let v2 = P2;
    let v3 = 0n;
    let v4 = (0n - P1) & MASK;
    for (; i + 32 <= len; i += 32) {
      v1 = round(v1, read64(input, i));
      v2 = round(v2, read64(input, i + 8));
      v3 = round(v3, read64(input, i + 16));
      v4 = round(v4, read64(input, i + 24));
    }
    h = add(add(rotl(v1, 1n), rotl(v2, 7n)), add(rotl(v3, 12n), rotl(v4, 18n)));
    h = mergeRound(mergeRound(mergeRound(mergeRound(h, v1), v2), v3), v4);
  } else {
    h = P5;
  }
  h = add(h, BigInt(len));
  for (; i + 8 <= len; i += 8) {
    h = add(mul(rotl(h ^ round(0n, read64(input, i)), 27n), P1), P4);
  }
  if (i + 4 <= len) {
    h = add(mul(rotl(h ^ mul(read32(input, i), P1), 23n), P2), P3);
    i += 4;
  }
  for (; i < len; i++) {
    h = mul(rotl(h ^ mul(BigInt(input[i]!), P5), 11n), P1);
  }
  h = mul(h ^ (h >> 33n), P2);
  h = mul(h ^ (h >> 29n), P3);
  return h ^ (h >> 32n);
}

describe('xxhash64', () => {
  // Expected values from Debian's `xxhsum -H1` (the reference implementation).
  it.each([
    ['', 0xef46db3751d8e999n],
    ['a', 0xd24ec4f1a98c6e5bn],
    ['abc', 0x44bc2cf5ad770999n],
    ['The quick brown fox jumps over the lazy dog', 0x0b242d361fda71bcn],
    [`${'0123456789abcdef'.repeat(4)}!`, 0x2020b26dbc09cee8n],
  ])('hashes %j like the reference implementation', (input, expected) => {
    expect(xxhash64String(input)).toBe(expected);
  });

  it('hashes UTF-8 bytes of strings', () => {
    expect(xxhash64String('é')).toBe(xxhash64(new Uint8Array([0xc3, 0xa9])));
  });

  it('covers every tail length without collisions on short prefixes', () => {
    const seen = new Set<bigint>();
    const text = 'abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ';
    for (let n = 0; n <= text.length; n++) {
      const h = xxhash64String(text.slice(0, n));
      expect(h >= 0n && h < 1n << 64n).toBe(true);
      seen.add(h);
    }
    expect(seen.size).toBe(text.length + 1);
  });

  it('agrees with a BigInt transcription of the specification on every length up to 200', () => {
    let seed = 7;
    for (let n = 0; n <= 200; n++) {
      const bytes = new Uint8Array(n).map(
        () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) & 0xff,
      );
      expect(xxhash64(bytes)).toBe(oracle(bytes));
    }
  });
});
