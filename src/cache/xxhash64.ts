/**
 * XXH64 (seed 0) of a byte string, the hash Thanos' and Cortex's memcached selectors apply to
 * a key (`xxhash.Sum64String`) before the jump hash. Written from the xxHash specification.
 * 64-bit words are pairs of unsigned 32-bit halves (`h`, `l`) because BigInt arithmetic
 * costs ~20 µs per key, too much on multi-gets of thousands of keys.
 */
interface U64 {
  readonly h: number;
  readonly l: number;
}

const P1: U64 = { h: 0x9e3779b1, l: 0x85ebca87 };
const P2: U64 = { h: 0xc2b2ae3d, l: 0x27d4eb4f };
const P3: U64 = { h: 0x165667b1, l: 0x9e3779f9 };
const P4: U64 = { h: 0x85ebca77, l: 0xc2b2ae63 };
const P5: U64 = { h: 0x27d4eb2f, l: 0x165667c5 };
const ZERO: U64 = { h: 0, l: 0 };

function add(a: U64, b: U64): U64 {
  const lo = a.l + b.l;
  return { h: (a.h + b.h + (lo > 0xffffffff ? 1 : 0)) >>> 0, l: lo >>> 0 };
}

function xor(a: U64, b: U64): U64 {
  return { h: (a.h ^ b.h) >>> 0, l: (a.l ^ b.l) >>> 0 };
}

/** Rotation left by 0 < r < 32 (all XXH64 rotations are). */
function rotl(a: U64, r: number): U64 {
  return {
    h: ((a.h << r) | (a.l >>> (32 - r))) >>> 0,
    l: ((a.l << r) | (a.h >>> (32 - r))) >>> 0,
  };
}

/** Shift right by 0 < r < 64. */
function shr(a: U64, r: number): U64 {
  if (r >= 32) return { h: 0, l: a.h >>> (r - 32) };
  return { h: a.h >>> r, l: ((a.l >>> r) | (a.h << (32 - r))) >>> 0 };
}

/**
 * Product modulo 2^64. The low word is Math.imul's; the carry out of the low 32x32 product
 * is computed from 16-bit halves so every intermediate stays exact in a double (< 2^53).
 */
function mul(a: U64, b: U64): U64 {
  const t = (a.l & 0xffff) * b.l;
  const u = (a.l >>> 16) * b.l;
  const carry = Math.floor(u / 0x10000) + Math.floor(((u % 0x10000) * 0x10000 + t) / 0x100000000);
  return {
    h: (carry + Math.imul(a.h, b.l) + Math.imul(a.l, b.h)) >>> 0,
    l: Math.imul(a.l, b.l) >>> 0,
  };
}

function read32(b: Uint8Array, i: number): number {
  return (b[i]! | (b[i + 1]! << 8) | (b[i + 2]! << 16) | (b[i + 3]! << 24)) >>> 0;
}

function read64(b: Uint8Array, i: number): U64 {
  return { h: read32(b, i + 4), l: read32(b, i) };
}

function round(acc: U64, lane: U64): U64 {
  return mul(rotl(add(acc, mul(lane, P2)), 31), P1);
}

function mergeRound(acc: U64, v: U64): U64 {
  return add(mul(xor(acc, round(ZERO, v)), P1), P4);
}

export function xxhash64(input: Uint8Array): bigint {
  const len = input.length;
  let i = 0;
  let h: U64;
  if (len >= 32) {
    let v1 = add(P1, P2);
    let v2 = P2;
    let v3 = ZERO;
    let v4 = { h: (~P1.h + (P1.l === 0 ? 1 : 0)) >>> 0, l: -P1.l >>> 0 }; // -P1 mod 2^64
    for (; i + 32 <= len; i += 32) {
      v1 = round(v1, read64(input, i));
      v2 = round(v2, read64(input, i + 8));
      v3 = round(v3, read64(input, i + 16));
      v4 = round(v4, read64(input, i + 24));
    }
    h = add(add(rotl(v1, 1), rotl(v2, 7)), add(rotl(v3, 12), rotl(v4, 18)));
    h = mergeRound(mergeRound(mergeRound(mergeRound(h, v1), v2), v3), v4);
  } else {
    h = P5;
  }
  h = add(h, { h: Math.floor(len / 0x100000000), l: len >>> 0 });
  for (; i + 8 <= len; i += 8) {
    h = add(mul(rotl(xor(h, round(ZERO, read64(input, i))), 27), P1), P4);
  }
  if (i + 4 <= len) {
    h = add(mul(rotl(xor(h, mul({ h: 0, l: read32(input, i) }, P1)), 23), P2), P3);
    i += 4;
  }
  for (; i < len; i++) {
    h = mul(rotl(xor(h, mul({ h: 0, l: input[i]! }, P5)), 11), P1);
  }
  h = mul(xor(h, shr(h, 33)), P2);
  h = mul(xor(h, shr(h, 29)), P3);
  h = xor(h, shr(h, 32));
  return (BigInt(h.h) << 32n) | BigInt(h.l);
}

const encoder = new TextEncoder();

/** XXH64 of the UTF-8 bytes of `s`, as Go's `xxhash.Sum64String`. */
export function xxhash64String(s: string): bigint {
  return xxhash64(encoder.encode(s));
}
