// The XOR chunk's encoder (Prometheus's xorAppender) together with the chunk's bit stream.
// The appender IS the bit writer (it extends BitStreamWriter) rather than holding one: the
// head appends to thousands of open chunks in turn, and each object between a series and
// its bytes is one more likely cache miss per sample. Room is reserved once per sample and
// the fields are written unchecked; the sample-count header is written when the bytes are
// read rather than on every append.

import { putUvarintBigAt } from '../encoding/index.js';
import { BitStreamWriter } from './bstream.js';
import type { ChunkAppender } from './chunk.js';

/** Bytes of the XOR chunk header (big-endian sample count). */
export const XOR_HEADER_BYTES = 2;
/** The most samples an XOR chunk can hold (the header is a uint16). */
export const XOR_MAX_SAMPLES = 0xffff;
/** Marks "no previous leading/trailing window" (Prometheus uses 0xff as well). */
export const NO_WINDOW = 0xff;

const INITIAL_CAPACITY = 128;
/**
 * Room made before each sample: the largest sample is the second one (a 10-byte uvarint,
 * then 2 + 11 + 64 value bits and an eager byte), well under 32 bytes.
 */
const SAMPLE_RESERVE = 32;
const TWO_POW_32 = 4294967296;

/** The state an appender continues from (see XorIterator.appenderState). */
export interface XorAppenderState {
  count: number;
  t: number;
  tDelta: number;
  tDeltaBig: bigint | null;
  vHi: number;
  vLo: number;
  leading: number;
  trailing: number;
}

export const EMPTY_XOR_APPENDER_STATE: Readonly<XorAppenderState> = Object.freeze({
  count: 0,
  t: 0,
  tDelta: 0,
  tDeltaBig: null,
  vHi: 0,
  vLo: 0,
  leading: NO_WINDOW,
  trailing: 0,
});

/** Trailing zero bits of a non-zero uint32. */
function ctz32(x: number): number {
  return 31 - Math.clz32(x & -x);
}

/** Whether an exact int64 fits a JS number without loss. */
export function isSafeBigInt(n: bigint): boolean {
  return n >= BigInt(Number.MIN_SAFE_INTEGER) && n <= BigInt(Number.MAX_SAFE_INTEGER);
}

/** Appends to an XorChunk; obtain it from `XorChunk.appender()`. */
export class XorAppender extends BitStreamWriter implements ChunkAppender {
  private count: number;
  private t: number;
  // Previous timestamp delta (Go's uint64 tDelta read as int64). `tDeltaBig` holds it only
  // when it is outside the safe-integer range; `tDelta` is then meaningless.
  private tDelta: number;
  private tDeltaBig: bigint | null;
  // The previous value's bits as int32 (small integers stay unboxed in V8 object fields).
  private vHi: number;
  private vLo: number;
  private leading: number;
  private trailing: number;
  // Allocated on first use only (the head appends value bits, never numbers).
  private floatView: DataView | null = null;

  /**
   * @internal Built by XorChunk: writes after the first `bitCount` bits of `bytes` (kept, not
   * copied; its header must hold state.count), continuing from `state`.
   */
  constructor(bytes: Uint8Array, bitCount: number, s: Readonly<XorAppenderState>) {
    super({ bytes, bitCount });
    this.count = s.count;
    this.t = s.t;
    this.tDelta = s.tDelta;
    this.tDeltaBig = s.tDeltaBig;
    this.vHi = s.vHi | 0;
    this.vLo = s.vLo | 0;
    this.leading = s.count === 0 ? NO_WINDOW : s.leading;
    this.trailing = s.trailing;
  }

  /** An appender of an empty chunk, writing into `spare` if given (its contents are ignored). */
  static empty(spare?: Uint8Array): XorAppender {
    const buf =
      spare !== undefined && spare.length >= INITIAL_CAPACITY
        ? spare
        : new Uint8Array(INITIAL_CAPACITY);
    buf[0] = 0;
    buf[1] = 0;
    return new XorAppender(buf, XOR_HEADER_BYTES * 8, EMPTY_XOR_APPENDER_STATE);
  }

  /**
   * An appender continuing encoded chunk bytes after their first `bitCount` bits (copied).
   * An empty byte right after a byte-aligned end is kept: that is the byte Prometheus's
   * writeByte appends eagerly, and keeping it reproduces the writer state exactly.
   */
  static resume(
    encoded: Uint8Array,
    bitCount: number,
    state: Readonly<XorAppenderState>,
  ): XorAppender {
    const bytes = Math.ceil(bitCount / 8);
    if (bytes > encoded.length) {
      throw new RangeError(`cannot resume at bit ${bitCount}: chunk has ${encoded.length * 8}`);
    }
    const buf = new Uint8Array(Math.max(INITIAL_CAPACITY, encoded.length * 2));
    buf.set(encoded);
    if (bitCount % 8 === 0 && encoded.length === bytes + 1 && encoded[bytes] === 0) {
      const app = new XorAppender(buf, bitCount, state);
      app.length = bytes + 1;
      app.free = 8;
      return app;
    }
    const free = bytes * 8 - bitCount;
    if (free > 0) buf[bytes - 1] = (buf[bytes - 1] as number) & ~((1 << free) - 1) & 0xff;
    return new XorAppender(buf, bitCount, state);
  }

  /** Bytes of the chunk (its numBytes(), without going through the chunk). */
  numBytes(): number {
    return this.length;
  }

  /** Samples appended to the chunk so far. */
  numSamples(): number {
    return this.count;
  }

  /** Timestamp of the newest sample (0 without samples). */
  lastTimestamp(): number {
    return this.t;
  }

  /** High 32 bits of the newest sample's value bits, as a uint32 (0 without samples). */
  lastValueHi(): number {
    return this.vHi >>> 0;
  }

  /** Low 32 bits of the newest sample's value bits, as a uint32 (0 without samples). */
  lastValueLo(): number {
    return this.vLo >>> 0;
  }

  /** The chunk's bytes, header included (a view; later appends may change or replace it). */
  override bytes(): Uint8Array {
    const buf = this.buf;
    buf[0] = this.count >>> 8;
    buf[1] = this.count & 0xff;
    // A compacted (complete) chunk is its whole buffer: no view to allocate per read.
    return buf.length === this.length ? buf : buf.subarray(0, this.length);
  }

  /**
   * Releases spare capacity once the chunk is complete. Returns the buffer written so far
   * when it was replaced by an exact copy, for a new chunk to write into (`empty(spare)`);
   * callers that pass it on must not have handed out views of these bytes. `copy` places
   * the exact bytes (e.g. in shared memory, which it then does even for a full buffer).
   */
  override compact(copy?: (bytes: Uint8Array) => Uint8Array): Uint8Array | undefined {
    const bytes = this.bytes(); // the header, too
    if (copy === undefined && this.buf.length === this.length) return undefined;
    const old = this.buf;
    this.buf = copy === undefined ? old.slice(0, this.length) : copy(bytes);
    return old;
  }

  append(t: number, v: number): void {
    const view = (this.floatView ??= new DataView(new ArrayBuffer(8)));
    view.setFloat64(0, v);
    this.appendBits(t, view.getUint32(0), view.getUint32(4));
  }

  /**
   * Appends a sample whose value is given as its IEEE-754 bits (high and low 32-bit words):
   * callers that hold values as words (the head) skip a round trip through a number.
   */
  appendBits(t: number, hi: number, lo: number): void {
    if (!Number.isSafeInteger(t)) {
      throw new RangeError(`sample timestamp must be a safe integer, got ${t}`);
    }
    const count = this.count;
    if (count === XOR_MAX_SAMPLES) {
      throw new RangeError(`XOR chunk is full: it already holds ${XOR_MAX_SAMPLES} samples`);
    }
    this.reserve(SAMPLE_RESERVE);
    if (count >= 2) {
      const delta = t - this.t;
      // A safe result of subtracting safe integers is exact, so this test suffices.
      const dod = delta - this.tDelta;
      if (dod === 0 && this.tDeltaBig === null) {
        this.put(0, 1);
      } else if (
        this.tDeltaBig === null &&
        Number.isSafeInteger(delta) &&
        Number.isSafeInteger(dod)
      ) {
        this.writeDod(dod);
        this.tDelta = delta;
      } else {
        this.appendFarTimestamp(t);
      }
      this.writeValue(hi, lo);
    } else if (count === 0) {
      this.writeVarint(t);
      this.putPadded(hi, 32);
      this.putPadded(lo, 32);
    } else {
      const delta = t - this.t;
      if (delta >= 0 && Number.isSafeInteger(delta)) {
        this.writeUvarint(delta);
        this.tDelta = delta;
        this.tDeltaBig = null;
      } else {
        const deltaBig = BigInt(t) - BigInt(this.t);
        const scratch = new Uint8Array(10); // rare: a negative or huge first delta
        const n = putUvarintBigAt(scratch, 0, BigInt.asUintN(64, deltaBig));
        for (let i = 0; i < n; i++) this.putPadded(scratch[i] as number, 8);
        this.setDeltaBig(deltaBig);
      }
      this.writeValue(hi, lo);
    }
    this.t = t;
    this.vHi = hi | 0;
    this.vLo = lo | 0;
    this.count = count + 1;
  }

  /** Delta or delta-of-delta outside the safe range: exact arithmetic in bigint. */
  private appendFarTimestamp(t: number): void {
    const deltaBig = BigInt(t) - BigInt(this.t);
    const previous = this.tDeltaBig ?? BigInt(this.tDelta);
    // Go computes int64(tDelta - a.tDelta) in wrapping uint64 arithmetic.
    const dodBig = BigInt.asIntN(64, deltaBig - previous);
    if (dodBig >= -524287n && dodBig <= 524288n) {
      this.writeDod(Number(dodBig));
    } else {
      const bits = BigInt.asUintN(64, dodBig);
      this.putPadded(0b1111, 4);
      this.putBits64(Number(bits >> 32n), Number(bits & 0xffffffffn), 64);
    }
    this.setDeltaBig(deltaBig);
  }

  private setDeltaBig(delta: bigint): void {
    if (isSafeBigInt(delta)) {
      this.tDelta = Number(delta);
      this.tDeltaBig = null;
    } else {
      this.tDelta = 0;
      this.tDeltaBig = delta;
    }
  }

  /** Delta-of-delta buckets; the ranges are Prometheus's bitRange(dod, n): [-(2^(n-1)-1), 2^(n-1)]. */
  private writeDod(dod: number): void {
    if (dod === 0) {
      this.put(0, 1);
    } else if (dod >= -8191 && dod <= 8192) {
      // '10' then 14 bits in one write; no eager byte, as neither of Prometheus's writes is
      // a whole byte.
      this.put((0b10 << 14) | (dod & 0x3fff), 16);
    } else if (dod >= -65535 && dod <= 65536) {
      this.put(0b110, 3);
      this.put(dod & 0x1ffff, 17);
    } else if (dod >= -524287 && dod <= 524288) {
      this.put((0b1110 << 20) | (dod & 0xfffff), 24);
    } else {
      this.put(0b1111, 4);
      // Two's complement halves; exact for any safe integer.
      this.putBits64(Math.floor(dod / TWO_POW_32) >>> 0, dod >>> 0, 64);
    }
  }

  private writeValue(hi: number, lo: number): void {
    const dHi = (hi ^ this.vHi) >>> 0;
    const dLo = (lo ^ this.vLo) >>> 0;
    if (dHi === 0 && dLo === 0) {
      this.put(0, 1);
      return;
    }
    let leading = dHi !== 0 ? Math.clz32(dHi) : 32 + Math.clz32(dLo);
    const trailing = dLo !== 0 ? ctz32(dLo) : 32 + ctz32(dHi);
    // The leading count has 5 bits in the format.
    if (leading >= 32) leading = 31;

    if (this.leading !== NO_WINDOW && leading >= this.leading && trailing >= this.trailing) {
      // '1' (changed) '0' (reuse the window), then the bits inside the previous window.
      this.put(0b10, 2);
      this.writeShiftedRight(dHi, dLo, this.trailing, 64 - this.leading - this.trailing);
      return;
    }
    this.leading = leading;
    this.trailing = trailing;
    const significant = 64 - leading - trailing;
    // '1' (changed) '1' (new window), 5 bits leading, 6 bits significant count where 64
    // cannot occur as 0 significant bits would mean "unchanged", so 64 is written as 0.
    this.put((0b11 << 11) | (leading << 6) | (significant & 0x3f), 13);
    this.writeShiftedRight(dHi, dLo, trailing, significant);
  }

  /** Writes the low `nbits` bits of (hi:lo >> shift). */
  private writeShiftedRight(hi: number, lo: number, shift: number, nbits: number): void {
    if (shift === 0) {
      this.putBits64(hi, lo, nbits);
    } else if (shift < 32) {
      this.putBits64(hi >>> shift, ((lo >>> shift) | (hi << (32 - shift))) >>> 0, nbits);
    } else {
      this.putBits64(0, hi >>> (shift - 32), nbits);
    }
  }

  /**
   * Writes a safe non-negative integer as a Go uvarint (the bytes of putUvarintAt), each
   * byte as Prometheus's writeByte writes it.
   */
  private writeUvarint(n: number): void {
    // Division keeps this exact above 2^32, where bit operators would truncate.
    while (n > 0x7fffffff) {
      this.putPadded((n % 128) | 0x80, 8);
      n = Math.floor(n / 128);
    }
    while (n >= 0x80) {
      this.putPadded((n & 0x7f) | 0x80, 8);
      n >>>= 7;
    }
    this.putPadded(n, 8);
  }

  /** A safe integer as Go's zig-zag varint (the bytes of putVarintAt). */
  private writeVarint(x: number): void {
    const negative = x < 0;
    const magnitude = negative ? -x - 1 : x;
    const first = (magnitude % 64) * 2 + (negative ? 1 : 0);
    const rest = Math.floor(magnitude / 64);
    if (rest === 0) {
      this.putPadded(first, 8);
      return;
    }
    this.putPadded(first | 0x80, 8);
    this.writeUvarint(rest);
  }
}
