// Bit streams for the chunk encodings (Prometheus's bstream and bstreamReader): bits are
// packed most-significant first into bytes. Values wider than 32 bits travel as (hi, lo)
// pairs of uint32 so that no bigint or object is allocated per sample.

import { DecodeError } from '../encoding/index.js';

const INITIAL_CAPACITY = 128;

/** Low `n` bits set, for 0 <= n <= 32. */
function lowMask(n: number): number {
  return n >= 32 ? 0xffffffff : (1 << n) - 1;
}

/** Bytes a writer continues in place (not copied) after their first `bitCount` bits. */
export interface AdoptedBits {
  readonly bytes: Uint8Array;
  readonly bitCount: number;
}

/**
 * Appends bits to a growable byte buffer. The public writes make room themselves; the
 * protected `put*` methods do not, so an encoder that writes many fields per sample (the XOR
 * appender extends this class) reserves room once per sample and then writes unchecked.
 */
export class BitStreamWriter {
  protected buf: Uint8Array;
  protected length: number;
  // Unused bits at the end of the last byte (0..8); 0 means the next bit opens a new byte,
  // 8 that the last byte is an empty one appended eagerly (see padAfterWholeBytes).
  protected free: number;

  /**
   * Starts empty, continues after the whole bytes of `prefix` (copied), or writes on in
   * `adopted.bytes` after its first `bitCount` bits (kept, not copied).
   */
  constructor(init?: Uint8Array | AdoptedBits) {
    if (init === undefined || init instanceof Uint8Array) {
      const size = init?.length ?? 0;
      this.buf = new Uint8Array(Math.max(INITIAL_CAPACITY, size * 2));
      if (init !== undefined) this.buf.set(init);
      this.length = size;
      this.free = 0;
    } else {
      this.buf = init.bytes;
      this.length = Math.ceil(init.bitCount / 8);
      this.free = this.length * 8 - init.bitCount;
    }
  }

  /** Makes room for `n` more bytes. */
  protected reserve(n: number): void {
    if (this.length + n <= this.buf.length) return;
    // compact() may have left a tiny (even empty) buffer: never grow by less than 16 bytes.
    const grown = new Uint8Array(Math.max(16, this.buf.length * 2, this.length + n));
    grown.set(this.buf.subarray(0, this.length));
    this.buf = grown;
  }

  writeBit(bit: boolean | 0 | 1): void {
    this.reserve(1);
    this.put(bit === true || bit === 1 ? 1 : 0, 1);
  }

  /** Writes the low `nbits` (0..32) bits of `value`, most significant first. */
  writeBits(value: number, nbits: number): void {
    this.reserve(6);
    this.putPadded(value, nbits);
  }

  /** Writes the low `nbits` (0..64) bits of the 64-bit value hi:lo. */
  writeBits64(hi: number, lo: number, nbits: number): void {
    this.reserve(10);
    this.putBits64(hi, lo, nbits);
  }

  writeByte(byte: number): void {
    this.writeBits(byte & 0xff, 8);
  }

  /**
   * Writes the low `nbits` (0..32) bits of `value` into room reserved beforehand (at most 5
   * bytes): fills the open byte, then whole bytes, then the rest. No eager byte.
   */
  protected put(value: number, nbits: number): void {
    const buf = this.buf;
    let length = this.length;
    let free = this.free;
    if (nbits <= free) {
      free -= nbits;
      buf[length - 1] = (buf[length - 1] as number) | ((value & lowMask(nbits)) << free);
      this.free = free;
      return;
    }
    if (free > 0) {
      nbits -= free;
      buf[length - 1] = (buf[length - 1] as number) | ((value >>> nbits) & lowMask(free));
    }
    while (nbits >= 8) {
      nbits -= 8;
      buf[length++] = (value >>> nbits) & 0xff;
    }
    if (nbits > 0) {
      buf[length++] = (value << (8 - nbits)) & 0xff;
      free = 8 - nbits;
    } else {
      free = 0;
    }
    this.length = length;
    this.free = free;
  }

  /** `put` followed by Prometheus's eager empty byte (room reserved beforehand: 6 bytes). */
  protected putPadded(value: number, nbits: number): void {
    this.put(value, nbits);
    this.padAfterWholeBytes(nbits);
  }

  /** The 64-bit form of `putPadded` (room reserved beforehand: 10 bytes). */
  protected putBits64(hi: number, lo: number, nbits: number): void {
    if (nbits > 32) {
      this.put(hi & lowMask(nbits - 32), nbits - 32);
      this.put(lo, 32);
    } else {
      this.put(lo & lowMask(nbits), nbits);
    }
    this.padAfterWholeBytes(nbits);
  }

  /**
   * Prometheus's bstream writes the whole bytes of a value with writeByte, which always
   * appends the next (empty) byte, and the rest with writeBit, which appends lazily. So a
   * write that ends with a whole byte on a byte boundary leaves an empty byte at the end of
   * the stream, and it shows in the chunk's bytes (and in the 1024-byte cut rule).
   */
  private padAfterWholeBytes(nbits: number): void {
    if (nbits >= 8 && (nbits & 7) === 0 && this.free === 0) {
      this.buf[this.length++] = 0;
      this.free = 8;
    }
  }

  /** Overwrites two whole bytes at `offset` (the chunk headers live there). */
  setBE16(offset: number, value: number): void {
    this.buf[offset] = (value >>> 8) & 0xff;
    this.buf[offset + 1] = value & 0xff;
  }

  /**
   * Drops everything after the first `bitCount` bits (used to resume appending mid-byte).
   * A single empty byte right after a byte-aligned end is kept: that is the byte Prometheus's
   * writeByte appends eagerly, and keeping it reproduces the writer state exactly.
   */
  truncateBits(bitCount: number): void {
    const bytes = Math.ceil(bitCount / 8);
    if (bytes > this.length) {
      throw new RangeError(`cannot truncate to ${bitCount} bits: stream has ${this.bitLength()}`);
    }
    if (bitCount % 8 === 0 && this.length === bytes + 1 && this.buf[bytes] === 0) {
      this.free = 8;
      return;
    }
    this.length = bytes;
    this.free = bytes * 8 - bitCount;
    if (this.free > 0) {
      const last = this.buf[bytes - 1] as number;
      this.buf[bytes - 1] = last & ~((1 << this.free) - 1) & 0xff;
    }
  }

  bitLength(): number {
    return this.length * 8 - this.free;
  }

  /** The bytes written so far (a view; later writes may change or replace it). */
  bytes(): Uint8Array {
    return this.buf.subarray(0, this.length);
  }

  /** Bytes written so far, without creating a view (the head asks on every append). */
  byteLength(): number {
    return this.length;
  }

  /** The byte at `i` (< byteLength()), without creating a view. */
  byteAt(i: number): number {
    return this.buf[i] as number;
  }

  /** Releases spare capacity once the stream is complete. */
  compact(): void {
    if (this.buf.length > this.length) this.buf = this.buf.slice(0, this.length);
  }
}

/** A reader's bytes before its first reset (shared: nothing can be written to no bytes). */
const NO_BYTES = new Uint8Array(0);

/**
 * Reads bits from a byte array. Reads past the end throw a DecodeError naming the byte
 * offset; iterators catch it once per sample instead of testing after every field.
 */
export class BitStreamReader {
  // Not a fresh array: a reader is made for every chunk iterator, which resets it at once.
  private buf: Uint8Array = NO_BYTES;
  private pos = 0; // in bits
  private end = 0; // in bits
  /** High and low 32 bits of the last readBits64 result (avoids allocating a pair). */
  hi = 0;
  lo = 0;

  /** Reads `bytes` from bit `startBit` to the end of the last byte. */
  reset(bytes: Uint8Array, startBit = 0): void {
    this.buf = bytes;
    this.pos = startBit;
    this.end = bytes.length * 8;
  }

  bitPosition(): number {
    return this.pos;
  }

  remainingBits(): number {
    return this.end - this.pos;
  }

  private underflow(nbits: number): never {
    throw new DecodeError(
      `unexpected end of bit stream reading ${nbits} bits (${this.end - this.pos} left)`,
      this.pos >>> 3,
    );
  }

  readBit(): number {
    if (this.pos >= this.end) this.underflow(1);
    const byte = this.buf[this.pos >>> 3] as number;
    const bit = (byte >>> (7 - (this.pos & 7))) & 1;
    this.pos++;
    return bit;
  }

  /** Reads `nbits` (0..32) bits as an unsigned number. */
  readBits(nbits: number): number {
    if (this.end - this.pos < nbits) this.underflow(nbits);
    const b = this.buf;
    const i = this.pos >>> 3;
    if (nbits > 0 && i + 5 <= b.length) {
      // Up to 32 bits at any bit offset lie within five bytes: the 32 bits from the offset,
      // then the wanted ones from the top (one load path for every width, no recursion).
      const o = this.pos & 7;
      const word =
        ((b[i] as number) << 24) |
        ((b[i + 1] as number) << 16) |
        ((b[i + 2] as number) << 8) |
        (b[i + 3] as number);
      const top = o === 0 ? word : (word << o) | ((b[i + 4] as number) >>> (8 - o));
      this.pos += nbits;
      return nbits === 32 ? top >>> 0 : top >>> (32 - nbits);
    }
    return this.readBitsSlow(nbits);
  }

  /** Bit-by-byte path for the last few bytes of the stream. */
  private readBitsSlow(nbits: number): number {
    let result = 0;
    let remaining = nbits;
    while (remaining > 0) {
      const bitOffset = this.pos & 7;
      const available = 8 - bitOffset;
      const take = remaining < available ? remaining : available;
      const byte = this.buf[this.pos >>> 3] as number;
      const chunk = (byte >>> (available - take)) & ((1 << take) - 1);
      // Intermediate results may set bit 31 of an int32; the final >>> 0 restores the sign.
      result = (result << take) | chunk;
      this.pos += take;
      remaining -= take;
    }
    return result >>> 0;
  }

  /** Reads `nbits` (0..64) bits into `hi`/`lo`. */
  readBits64(nbits: number): void {
    if (nbits > 32) {
      this.hi = this.readBits(nbits - 32);
      this.lo = this.readBits(32);
    } else {
      this.hi = 0;
      this.lo = this.readBits(nbits);
    }
  }

  /** The byte containing the next bit must be aligned; used for varint fields. */
  byteOffsetIfAligned(): number {
    if ((this.pos & 7) !== 0) {
      throw new DecodeError(`bit stream not byte-aligned (bit ${this.pos})`, this.pos >>> 3);
    }
    return this.pos >>> 3;
  }

  /** Moves to a byte offset (after reading a byte-aligned field by other means). */
  seekByte(offset: number): void {
    this.pos = offset * 8;
  }
}
