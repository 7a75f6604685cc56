/**
 * Bulk decoding of XOR chunks: every sample of a chunk inside a time window written
 * straight into typed arrays, by one function that keeps the decoder's state in locals.
 *
 * Queries read whole series, and the sample-at-a-time XorIterator behind the engines'
 * iterator protocol costs several calls and field writes per sample. This path is for the
 * common shape of a chunk (timestamps and deltas within safe integers, deltas of deltas of
 * at most 20 bits, well-formed bits); anything else — a 64-bit delta of deltas, a varint
 * longer than 7 bytes, a truncated or corrupt chunk — makes it answer `FALLBACK`, and the
 * caller decodes that chunk with XorIterator, which handles every case exactly and names
 * the error. Values are written as their two IEEE-754 words, so NaN payloads (stale
 * markers) survive bit for bit.
 */
import { HI_WORD, XorIterator } from './xor.js';

/** What the fast path returns when the chunk needs the general decoder. */
const FALLBACK = -1;

/** Bytes read past a sample's start at most (4 + 64 timestamp bits, 2 + 11 + 64 value bits). */
const MAX_SAMPLE_BYTES = 19;
/** Zero bytes after the copied chunk, so reads near its end need no bounds checks. */
const PAD = MAX_SAMPLE_BYTES + 8;
const LO_WORD = 1 - HI_WORD;

/**
 * `n` (1..32) bits from bit `pos` of `b` as an unsigned number (`b` padded past `pos`; `v`
 * views it: one big-endian word load instead of four byte loads).
 */
function bitsAt(b: Uint8Array, v: DataView, pos: number, n: number): number {
  const i = pos >>> 3;
  const o = pos & 7;
  const word = v.getInt32(i);
  const top = o === 0 ? word : (word << o) | ((b[i + 4] as number) >>> (8 - o));
  return n === 32 ? top >>> 0 : top >>> (32 - n);
}

/** Sample arrays a decoder writes into: `words` aliases `fs`'s buffer as 32-bit words. */
export interface SampleColumns {
  readonly ts: Float64Array;
  readonly fs: Float64Array;
  readonly words: Uint32Array;
}

/** Columns for `capacity` samples. */
export function sampleColumns(capacity: number): SampleColumns {
  const fs = new Float64Array(capacity);
  return { ts: new Float64Array(capacity), fs, words: new Uint32Array(fs.buffer) };
}

/** The number of samples an XOR chunk's header announces (0 when it has no header). */
export function xorSampleCount(data: Uint8Array): number {
  return data.length < 2 ? 0 : ((data[0] as number) << 8) | (data[1] as number);
}

/**
 * Decodes XOR chunks in bulk, reusing one padded copy buffer across chunks (one decoder per
 * walk over many chunks, as XorIterator is reset per chunk).
 */
export class XorBulkDecoder {
  private scratch = new Uint8Array(256);
  private view = new DataView(this.scratch.buffer);

  /**
   * Writes the chunk's samples with mint ≤ t ≤ maxt into `out` from index `at` (the caller
   * sized it by the header's count) and returns the index after the last one written.
   * Throws the general decoder's error for a chunk it cannot read.
   */
  decodeInto(data: Uint8Array, mint: number, maxt: number, out: SampleColumns, at: number): number {
    const n = this.decodeFast(data, mint, maxt, out, at);
    return n === FALLBACK ? decodeExactly(data, mint, maxt, out, at) : n;
  }

  /** Where the last uvarint read ended (byte offset). */
  private varintEnd = 0;

  /**
   * The unsigned varint at byte `p` of `b` (`len` bytes of chunk), or -1 when it is cut off
   * or longer than 7 bytes (49 bits: past any timestamp this path takes); sets varintEnd.
   */
  private uvarint(b: Uint8Array, p: number, len: number): number {
    let x = 0;
    let mul = 1;
    for (let i = 0; i < 7 && p < len; i++) {
      const byte = b[p++] as number;
      x += (byte & 0x7f) * mul;
      if (byte < 0x80) {
        this.varintEnd = p;
        return x;
      }
      mul *= 128;
    }
    return -1;
  }

  /** The fast path, or FALLBACK (whatever it wrote from `at` on is then to be overwritten). */
  private decodeFast(
    data: Uint8Array,
    mint: number,
    maxt: number,
    out: SampleColumns,
    at: number,
  ): number {
    const len = data.length;
    if (len < 2) return FALLBACK;
    const total = ((data[0] as number) << 8) | (data[1] as number);
    if (total === 0) return at;
    let b = this.scratch;
    if (b.length < len + PAD) {
      b = this.scratch = new Uint8Array(2 * (len + PAD));
      this.view = new DataView(b.buffer);
    }
    const v = this.view;
    b.set(data);
    b.fill(0, len, len + PAD);
    const { ts, words } = out;
    const endBits = len * 8;

    // First sample: the timestamp as a zig-zag varint, then the value's 64 bits.
    let x = this.uvarint(b, 2, len);
    if (x < 0) return FALLBACK;
    let t = x % 2 === 0 ? x / 2 : -(x + 1) / 2;
    let pos = this.varintEnd * 8;
    let vHi = bitsAt(b, v, pos, 32);
    let vLo = bitsAt(b, v, pos + 32, 32);
    pos += 64;
    if (pos > endBits) return FALLBACK;
    let n = at;
    if (t > maxt) return n;
    if (t >= mint) {
      ts[n] = t;
      words[2 * n + HI_WORD] = vHi;
      words[2 * n + LO_WORD] = vLo;
      n++;
    }
    if (total === 1) return n;

    // Second timestamp: the delta as an unsigned varint (byte-aligned after 64 value bits).
    x = this.uvarint(b, pos >>> 3, len);
    if (x < 0) return FALLBACK;
    let tDelta = x;
    t += tDelta;
    if (t > Number.MAX_SAFE_INTEGER) return FALLBACK;
    pos = this.varintEnd * 8;
    let leading = 0;
    let trailing = 0;

    for (let k = 1; k < total; k++) {
      if (pos > endBits) return FALLBACK;
      // One 32-bit look at the sample's first bits serves the timestamp's prefix and delta
      // of deltas and, when they leave room, the value's control bits and window header.
      let w = bitsAt(b, v, pos, 32) | 0;
      if (k > 1) {
        // The delta of deltas behind a prefix of up to four bits ('0', '10', '110', '1110';
        // '1111' announces 64 bits, left to the general decoder).
        let dod = 0;
        let used: number;
        if (w >= 0) {
          used = 1;
        } else if ((w & 0x40000000) === 0) {
          dod = (w >>> 16) & 0x3fff;
          if (dod > 1 << 13) dod -= 1 << 14;
          used = 16;
        } else if ((w & 0x20000000) === 0) {
          dod = (w >>> 12) & 0x1ffff;
          if (dod > 1 << 16) dod -= 1 << 17;
          used = 20;
        } else if ((w & 0x10000000) === 0) {
          dod = (w >>> 8) & 0xfffff;
          if (dod > 1 << 19) dod -= 1 << 20;
          used = 24;
        } else {
          return FALLBACK;
        }
        pos += used;
        tDelta += dod;
        t += tDelta;
        if (
          t > Number.MAX_SAFE_INTEGER ||
          t < Number.MIN_SAFE_INTEGER ||
          tDelta > Number.MAX_SAFE_INTEGER ||
          tDelta < Number.MIN_SAFE_INTEGER
        ) {
          return FALLBACK;
        }
        // The value needs up to 13 bits of look-ahead (control and header).
        w = used <= 19 ? w << used : bitsAt(b, v, pos, 32) | 0;
      }
      // The value: '0' unchanged, '10' XOR in the previous window, '11' a new window.
      if (w >= 0) {
        pos += 1;
      } else {
        if ((w & 0x40000000) === 0) {
          pos += 2;
        } else {
          const header = (w >>> 19) & 0x7ff;
          pos += 13;
          let significant = header & 0x3f;
          if (significant === 0) significant = 64;
          leading = header >>> 6;
          trailing = 64 - leading - significant;
          if (trailing < 0) return FALLBACK;
        }
        const significant = 64 - leading - trailing;
        let hi = 0;
        let lo: number;
        if (significant > 32) {
          hi = bitsAt(b, v, pos, significant - 32);
          lo = bitsAt(b, v, pos + significant - 32, 32);
        } else {
          lo = bitsAt(b, v, pos, significant);
        }
        pos += significant;
        if (trailing >= 32) {
          hi = lo << (trailing - 32);
          lo = 0;
        } else if (trailing > 0) {
          hi = (hi << trailing) | (lo >>> (32 - trailing));
          lo = lo << trailing;
        }
        vHi = (vHi ^ hi) >>> 0;
        vLo = (vLo ^ lo) >>> 0;
      }
      if (t > maxt) return pos > endBits ? FALLBACK : n;
      if (t >= mint) {
        ts[n] = t;
        words[2 * n + HI_WORD] = vHi;
        words[2 * n + LO_WORD] = vLo;
        n++;
      }
    }
    return pos > endBits ? FALLBACK : n;
  }
}

/** The general decoder's reading of one chunk (every edge case, and the chunk's error). */
function decodeExactly(
  data: Uint8Array,
  mint: number,
  maxt: number,
  out: SampleColumns,
  at: number,
): number {
  const it = new XorIterator(data);
  let n = at;
  while (it.next() !== 0) {
    const t = it.atT();
    if (t > maxt) break;
    if (t < mint) continue;
    out.ts[n] = t;
    out.words[2 * n + HI_WORD] = it.atHi();
    out.words[2 * n + LO_WORD] = it.atLo();
    n++;
  }
  const err = it.err();
  if (err !== null) throw err;
  return n;
}
