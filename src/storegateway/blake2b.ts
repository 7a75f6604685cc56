/**
 * BLAKE2b-256 (RFC 7693 with a 32-byte digest, Go's `blake2b.Sum256`), which Thanos uses to
 * name postings and expanded-postings entries in the index cache. node:crypto only offers the
 * 64-byte variant, and a BLAKE2b digest's length is a parameter of the hash (it changes the
 * initial state), so truncating `blake2b512` would give different keys than Cortex's.
 *
 * 64-bit words are held as (low, high) pairs of 32-bit halves in a Uint32Array: a query
 * hashes one key per label value it looks up, so this must be fast (BigInt is ~20x slower).
 */

/** The BLAKE2b IV (SHA-512's), as (low, high) 32-bit halves. */
const IV = Uint32Array.of(
  0xf3bcc908,
  0x6a09e667,
  0x84caa73b,
  0xbb67ae85,
  0xfe94f82b,
  0x3c6ef372,
  0x5f1d36f1,
  0xa54ff53a,
  0xade682d1,
  0x510e527f,
  0x2b3e6c1f,
  0x9b05688c,
  0xfb41bd6b,
  0x1f83d9ab,
  0x137e2179,
  0x5be0cd19,
);

const SIGMA_WORDS: readonly (readonly number[])[] = [
  [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15],
  [14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3],
  [11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4],
  [7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8],
  [9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13],
  [2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9],
  [12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11],
  [13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10],
  [6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5],
  [10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0],
];

/** SIGMA as indexes of the message words' low halves. */
const SIGMA = SIGMA_WORDS.map((row) => row.map((i) => 2 * i));

const BLOCK = 128;
const OUT = 32;

/** v[a] += v[b] (64-bit, indexes of low halves). */
function add(v: Uint32Array, a: number, b: number): void {
  const lo = (v[a] as number) + (v[b] as number);
  v[a + 1] = (v[a + 1] as number) + (v[b + 1] as number) + (lo >= 0x100000000 ? 1 : 0);
  v[a] = lo;
}

/** v[a] += (hi:lo). */
function addWord(v: Uint32Array, a: number, lo: number, hi: number): void {
  const l = (v[a] as number) + lo;
  v[a + 1] = (v[a + 1] as number) + hi + (l >= 0x100000000 ? 1 : 0);
  v[a] = l;
}

/** The mixing function G on words a, b, c, d (low-half indexes) with message words x, y. */
function mix(
  v: Uint32Array,
  m: Uint32Array,
  a: number,
  b: number,
  c: number,
  d: number,
  x: number,
  y: number,
): void {
  add(v, a, b);
  addWord(v, a, m[x] as number, m[x + 1] as number);
  // d = (d ^ a) >>> 32: swap the halves.
  let lo = (v[d] as number) ^ (v[a] as number);
  let hi = (v[d + 1] as number) ^ (v[a + 1] as number);
  v[d] = hi;
  v[d + 1] = lo;
  add(v, c, d);
  // b = (b ^ c) >>> 24
  lo = (v[b] as number) ^ (v[c] as number);
  hi = (v[b + 1] as number) ^ (v[c + 1] as number);
  v[b] = (lo >>> 24) | (hi << 8);
  v[b + 1] = (hi >>> 24) | (lo << 8);
  add(v, a, b);
  addWord(v, a, m[y] as number, m[y + 1] as number);
  // d = (d ^ a) >>> 16
  lo = v[d] ^ (v[a] as number);
  hi = (v[d + 1] as number) ^ (v[a + 1] as number);
  v[d] = (lo >>> 16) | (hi << 16);
  v[d + 1] = (hi >>> 16) | (lo << 16);
  add(v, c, d);
  // b = (b ^ c) >>> 63, i.e. rotated left by one.
  lo = v[b] ^ (v[c] as number);
  hi = (v[b + 1] as number) ^ (v[c + 1] as number);
  v[b] = (lo << 1) | (hi >>> 31);
  v[b + 1] = (hi << 1) | (lo >>> 31);
}

function compress(h: Uint32Array, block: Uint8Array, counter: number, last: boolean): void {
  const m = new Uint32Array(32);
  for (let i = 0, j = 0; i < 32; i++, j += 4) {
    m[i] =
      (block[j] as number) |
      ((block[j + 1] as number) << 8) |
      ((block[j + 2] as number) << 16) |
      ((block[j + 3] as number) << 24);
  }
  const v = new Uint32Array(32);
  v.set(h, 0);
  v.set(IV, 16);
  // Inputs here are far below 2^32 bytes: the counter's high words stay zero.
  v[24] = (v[24] as number) ^ counter;
  if (last) {
    v[28] = ~(v[28] as number);
    v[29] = ~(v[29] as number);
  }
  for (let r = 0; r < 12; r++) {
    const s = SIGMA[r % 10] as readonly number[];
    mix(v, m, 0, 8, 16, 24, s[0] as number, s[1] as number);
    mix(v, m, 2, 10, 18, 26, s[2] as number, s[3] as number);
    mix(v, m, 4, 12, 20, 28, s[4] as number, s[5] as number);
    mix(v, m, 6, 14, 22, 30, s[6] as number, s[7] as number);
    mix(v, m, 0, 10, 20, 30, s[8] as number, s[9] as number);
    mix(v, m, 2, 12, 22, 24, s[10] as number, s[11] as number);
    mix(v, m, 4, 14, 16, 26, s[12] as number, s[13] as number);
    mix(v, m, 6, 8, 18, 28, s[14] as number, s[15] as number);
  }
  for (let i = 0; i < 16; i++) h[i] = (h[i] as number) ^ (v[i] as number) ^ (v[i + 16] as number);
}

/** The 32-byte BLAKE2b digest of `data` (unkeyed). */
export function blake2b256(data: Uint8Array): Uint8Array {
  if (data.length >= 0x100000000) throw new RangeError('blake2b256: input too large');
  const h = IV.slice();
  // Parameter block word 0: digest length, key length 0, fanout 1, depth 1.
  h[0] = (h[0] as number) ^ (0x01010000 | OUT);
  const block = new Uint8Array(BLOCK);
  let offset = 0;
  // Every full block but the last is compressed as not-final; an empty input is one final block.
  while (data.length - offset > BLOCK) {
    block.set(data.subarray(offset, offset + BLOCK));
    offset += BLOCK;
    compress(h, block, offset, false);
  }
  block.fill(0);
  block.set(data.subarray(offset));
  compress(h, block, data.length, true);
  const out = new Uint8Array(OUT);
  const view = new DataView(out.buffer);
  for (let i = 0; i < OUT / 4; i++) view.setUint32(i * 4, h[i] as number, true);
  return out;
}
