/**
 * XXH64 (seed 0), the hash Prometheus uses for labels.Labels.Hash, so that our series hashes
 * equal Prometheus's for the same label set. BigInt arithmetic keeps it short and exact; it
 * is not on a per-sample path (callers cache a series' hash).
 */
const MASK = 0xffffffffffffffffn;
const P1 = 0x9e3779b185ebca87n;
const P2 = 0xc2b2ae3d27d4eb4fn;
const P3 = 0x165667b19e3779f9n;
const P4 = 0x85ebca77c2b2ae63n;
const P5 = 0x27d4eb2f165667c5n;

function rotl(x: bigint, r: bigint): bigint {
  return ((x << r) | (x >> (64n - r))) & MASK;
}

function round(acc: bigint, lane: bigint): bigint {
  return (rotl((acc + lane * P2) & MASK, 31n) * P1) & MASK;
}

function mergeRound(acc: bigint, val: bigint): bigint {
  return (((acc ^ round(0n, val)) * P1) & MASK) + P4;
}

function read64(b: Uint8Array, i: number): bigint {
  const lo =
    (b[i] as number) |
    ((b[i + 1] as number) << 8) |
    ((b[i + 2] as number) << 16) |
    ((b[i + 3] as number) << 24);
  const hi =
    (b[i + 4] as number) |
    ((b[i + 5] as number) << 8) |
    ((b[i + 6] as number) << 16) |
    ((b[i + 7] as number) << 24);
  return (BigInt(hi >>> 0) << 32n) | BigInt(lo >>> 0);
}

function read32(b: Uint8Array, i: number): bigint {
  return BigInt(
    ((b[i] as number) |
      ((b[i + 1] as number) << 8) |
      ((b[i + 2] as number) << 16) |
      ((b[i + 3] as number) << 24)) >>>
      0,
  );
}

/** XXH64 of `data` with seed 0, as an unsigned 64-bit bigint. */
export function xxhash64(data: Uint8Array): bigint {
  const len = data.length;
  let i = 0;
  let h: bigint;
  if (len >= 32) {
    let v1 = (P1 + P2) & MASK;
    let v2 = P2;
    let v3 = 0n;
    let v4 = -P1 & MASK;
    for (; i + 32 <= len; i += 32) {
      v1 = round(v1, read64(data, i));
      v2 = round(v2, read64(data, i + 8));
      v3 = round(v3, read64(data, i + 16));
      v4 = round(v4, read64(data, i + 24));
    }
    h = (rotl(v1, 1n) + rotl(v2, 7n) + rotl(v3, 12n) + rotl(v4, 18n)) & MASK;
    h = mergeRound(h, v1) & MASK;
    h = mergeRound(h, v2) & MASK;
    h = mergeRound(h, v3) & MASK;
    h = mergeRound(h, v4) & MASK;
  } else {
    h = P5;
  }
  h = (h + BigInt(len)) & MASK;
  for (; i + 8 <= len; i += 8) {
    h ^= round(0n, read64(data, i));
    h = (rotl(h, 27n) * P1 + P4) & MASK;
  }
  if (i + 4 <= len) {
    h ^= (read32(data, i) * P1) & MASK;
    h = (rotl(h, 23n) * P2 + P3) & MASK;
    i += 4;
  }
  for (; i < len; i++) {
    h ^= (BigInt(data[i] as number) * P5) & MASK;
    h = (rotl(h, 11n) * P1) & MASK;
  }
  h ^= h >> 33n;
  h = (h * P2) & MASK;
  h ^= h >> 29n;
  h = (h * P3) & MASK;
  h ^= h >> 32n;
  return h;
}
