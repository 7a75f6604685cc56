// Prometheus's XOR float chunk (Gorilla compression with millisecond timestamps), written
// byte-for-byte as Prometheus's tsdb/chunkenc/xor.go writes it:
//
//   header   2 bytes, big-endian sample count
//   sample 0 timestamp as a zig-zag varint, value as its 64 raw bits
//   sample 1 timestamp delta as a uvarint, value XOR-encoded against sample 0
//   sample n delta-of-delta of the timestamp in a prefix-coded bucket:
//              '0' (dod = 0), '10' + 14 bits, '110' + 17 bits, '1110' + 20 bits, '1111' + 64 bits
//            then the value XOR-encoded against the previous one:
//              '0' (same bits), or '1' + either '0' + the significant bits inside the previous
//              leading/trailing-zero window, or '1' + 5 bits leading zeros (capped at 31)
//              + 6 bits significant-bit count (64 written as 0) + the significant bits.
//
// Timestamps are int64 in the format; here they are numbers restricted to the safe-integer
// range. Deltas of far-apart safe timestamps can exceed 2^53, so those rare cases take a
// bigint path; the common path stays in 32-bit integer arithmetic. Values move as the two
// uint32 halves of their IEEE-754 bits, so NaN payloads (the stale marker) survive exactly.

import { DecBuf, DecodeError } from '../encoding/index.js';
import { BitStreamReader } from './bstream.js';
import type { Chunk, ChunkIterator, FloatSample } from './chunk.js';
import { Encoding, ValueType } from './encoding.js';
import {
  XOR_HEADER_BYTES as HEADER_BYTES,
  isSafeBigInt,
  XorAppender,
  type XorAppenderState,
} from './xor_appender.js';

export { XorAppender } from './xor_appender.js';

/** Prometheus's hard cap on the bytes of one XOR chunk (chunkenc.MaxBytesPerXORChunk). */
export const MAX_BYTES_PER_XOR_CHUNK = 1024;

/** The most bytes one appended sample can add to an XOR chunk (4+64 bits time, 2+5+6+64 value). */
export const MAX_XOR_SAMPLE_BYTES = 19;

const TWO_POW_32 = 4294967296;
/** What a chunk wrapped from bytes keeps as `data` once it writes through its appender. */
const EMPTY_BYTES = new Uint8Array(0);

/** Index of a float64's high 32 bits among its two Uint32Array words on this platform. */
export const HI_WORD = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1 ? 1 : 0;

/** An XOR-encoded chunk of float samples. */
export class XorChunk implements Chunk {
  // A chunk built here writes through its appender, which owns the bytes; one wrapped from
  // bytes reads them in place until an appender is requested, which copies them.
  private app: XorAppender | null;
  private data: Uint8Array;

  /**
   * An empty chunk, or (with `encoded`) the same as `XorChunk.fromBytes(encoded)`. An empty
   * chunk may be given a `spare` buffer to write into (see `compact()`).
   */
  constructor(encoded?: Uint8Array, spare?: Uint8Array) {
    if (encoded === undefined) {
      this.app = XorAppender.empty(spare);
      this.data = EMPTY_BYTES;
      return;
    }
    if (encoded.length < HEADER_BYTES) {
      throw new DecodeError(`XOR chunk too short: ${encoded.length} bytes`, 0);
    }
    this.app = null;
    this.data = encoded;
  }

  /** Wraps encoded XOR chunk bytes (header included) without copying them. */
  static fromBytes(bytes: Uint8Array): XorChunk {
    return new XorChunk(bytes);
  }

  encoding(): Encoding {
    return Encoding.XOR;
  }

  bytes(): Uint8Array {
    return this.app === null ? this.data : this.app.bytes();
  }

  numSamples(): number {
    if (this.app !== null) return this.app.numSamples();
    return ((this.data[0] as number) << 8) | (this.data[1] as number);
  }

  numBytes(): number {
    return this.app === null ? this.data.length : this.app.numBytes();
  }

  /**
   * The chunk's appender. There is one per chunk: it holds the encoder state after the
   * chunk's last sample, so asking again returns the same object.
   */
  appender(): XorAppender {
    if (this.app !== null) return this.app;
    const it = new XorIterator(this.data);
    while (it.next() !== ValueType.None) {
      // Decoding to the end rebuilds the state an appender would have after these samples.
    }
    const error = it.err();
    if (error !== null) throw error;
    // Continue right after the last encoded bit, not at the next byte boundary: a chunk
    // wrapped from bytes does not know how many bits of its last byte are used.
    this.app = XorAppender.resume(this.data, it.bitPosition(), it.appenderState());
    return this.app;
  }

  iterator(reuse?: ChunkIterator): XorIterator {
    if (reuse instanceof XorIterator) {
      reuse.reset(this.bytes());
      return reuse;
    }
    return new XorIterator(this.bytes());
  }

  /**
   * Releases spare capacity once the chunk is complete. Returns the buffer the chunk wrote
   * into when it was replaced by an exact copy, so that the next chunk can write into it
   * (`new XorChunk(undefined, spare)`); only an owner that never handed out views of this
   * chunk's bytes may do that. `copy` places the exact bytes (see XorAppender.compact).
   */
  compact(copy?: (bytes: Uint8Array) => Uint8Array): Uint8Array | undefined {
    return this.app?.compact(copy);
  }
}

/** Iterates an XOR chunk. Reuse one across chunks with `XorChunk.iterator(reuse)`. */
export class XorIterator implements ChunkIterator {
  // Field initialisers run for every iterator (one per chunk a query reads): no allocation
  // here that the constructor's reset() replaces, and the float view only once a value is read.
  private readonly reader = new BitStreamReader();
  private readonly varints = new DecBuf(EMPTY_BYTES);
  /** The current value's bits as two words aliasing one float64 (made on the first read). */
  private floatWords: Uint32Array | null = null;
  private floatValue: Float64Array | null = null;
  private bytes: Uint8Array = EMPTY_BYTES;
  private numTotal = 0;
  private numRead = 0;
  private t = Number.MIN_SAFE_INTEGER;
  private tDelta = 0;
  private tDeltaBig: bigint | null = null;
  private vHi = 0;
  private vLo = 0;
  private leading = 0;
  private trailing = 0;
  private error: Error | null = null;

  constructor(bytes: Uint8Array) {
    this.reset(bytes);
  }

  /** Restarts on new chunk bytes (header included). */
  reset(bytes: Uint8Array): void {
    this.bytes = bytes;
    this.error = null;
    this.numRead = 0;
    this.t = Number.MIN_SAFE_INTEGER;
    this.tDelta = 0;
    this.tDeltaBig = null;
    this.vHi = 0;
    this.vLo = 0;
    this.leading = 0;
    this.trailing = 0;
    if (bytes.length < HEADER_BYTES) {
      this.numTotal = 0;
      this.error = new DecodeError(`XOR chunk too short: ${bytes.length} bytes`, 0);
      return;
    }
    this.numTotal = ((bytes[0] as number) << 8) | (bytes[1] as number);
    this.reader.reset(bytes, HEADER_BYTES * 8);
  }

  next(): ValueType {
    if (this.error !== null || this.numRead === this.numTotal) return ValueType.None;
    try {
      if (this.numRead === 0) {
        this.readFirst();
      } else if (this.numRead === 1) {
        this.readSecondTimestamp();
        this.readValue();
      } else {
        this.readTimestamp();
        this.readValue();
      }
    } catch (e) {
      if (!(e instanceof DecodeError)) throw e;
      this.error = e;
      return ValueType.None;
    }
    this.numRead++;
    return ValueType.Float;
  }

  seek(t: number): ValueType {
    if (this.error !== null) return ValueType.None;
    while (t > this.t || this.numRead === 0) {
      if (this.next() === ValueType.None) return ValueType.None;
    }
    return ValueType.Float;
  }

  at(): FloatSample {
    return { t: this.t, v: this.atF() };
  }

  atT(): number {
    return this.t;
  }

  atF(): number {
    let words = this.floatWords;
    if (words === null) {
      const value = (this.floatValue = new Float64Array(1));
      words = this.floatWords = new Uint32Array(value.buffer);
    }
    // Typed arrays use the platform's byte order: the high word is the second on little
    // endian machines. Aliased arrays are faster than a DataView on this per-sample path.
    words[HI_WORD] = this.vHi;
    words[1 - HI_WORD] = this.vLo;
    return (this.floatValue as Float64Array)[0] as number;
  }

  /** High 32 bits of the current value's IEEE-754 representation (bit-exact, NaN payloads kept). */
  atHi(): number {
    return this.vHi;
  }

  /** Low 32 bits of the current value's IEEE-754 representation. */
  atLo(): number {
    return this.vLo;
  }

  err(): Error | null {
    return this.error;
  }

  /** Bits consumed so far, header included. */
  bitPosition(): number {
    return this.reader.bitPosition();
  }

  /** @internal For XorAppender: the encoder state after the samples read so far. */
  appenderState(): XorAppenderState {
    return {
      count: this.numRead,
      t: this.t,
      tDelta: this.tDelta,
      tDeltaBig: this.tDeltaBig,
      vHi: this.vHi,
      vLo: this.vLo,
      leading: this.leading,
      trailing: this.trailing,
    };
  }

  private readFirst(): void {
    const d = this.varints;
    d.reset(this.bytes);
    d.skip(this.reader.byteOffsetIfAligned());
    const t = d.getVarint();
    const error = d.err();
    if (error !== null) throw error;
    this.reader.seekByte(d.position());
    this.t = t;
    this.vHi = this.reader.readBits(32);
    this.vLo = this.reader.readBits(32);
  }

  private readSecondTimestamp(): void {
    const d = this.varints;
    const start = this.reader.byteOffsetIfAligned();
    d.reset(this.bytes);
    d.skip(start);
    const delta = d.getUvarint();
    if (d.err() === null && Number.isSafeInteger(this.t + delta)) {
      this.tDelta = delta;
      this.tDeltaBig = null;
      this.t += delta;
    } else {
      // Huge or negative (wrapped) delta: redo it in exact 64-bit arithmetic.
      d.reset(this.bytes);
      d.skip(start);
      const raw = d.getUvarintBig();
      const error = d.err();
      if (error !== null) throw error;
      this.applyDeltaBig(BigInt.asIntN(64, raw), start);
    }
    this.reader.seekByte(d.position());
  }

  private readTimestamp(): void {
    const r = this.reader;
    // The bucket prefix: up to four bits, stopping at the first 0 ('0', '10', '110', '1110'
    // or '1111'); `ones` counts the 1s read.
    let ones = 0;
    while (ones < 4 && r.readBit() === 1) ones++;
    let dod = 0;
    switch (ones) {
      case 0:
        break;
      case 1:
        dod = r.readBits(14);
        if (dod > 1 << 13) dod -= 1 << 14;
        break;
      case 2:
        dod = r.readBits(17);
        if (dod > 1 << 16) dod -= 1 << 17;
        break;
      case 3:
        dod = r.readBits(20);
        if (dod > 1 << 19) dod -= 1 << 20;
        break;
      default: {
        const at = r.bitPosition() >>> 3;
        r.readBits64(64);
        dod = (r.hi | 0) * TWO_POW_32 + r.lo;
        if (!Number.isSafeInteger(dod)) {
          const dodBig = BigInt.asIntN(64, (BigInt(r.hi) << 32n) | BigInt(r.lo));
          this.applyDodBig(dodBig, at);
          return;
        }
      }
    }
    if (this.tDeltaBig === null) {
      const delta = this.tDelta + dod;
      const t = this.t + delta;
      if (Number.isSafeInteger(delta) && Number.isSafeInteger(t)) {
        this.tDelta = delta;
        this.t = t;
        return;
      }
    }
    this.applyDodBig(BigInt(dod), r.bitPosition() >>> 3);
  }

  private applyDodBig(dod: bigint, at: number): void {
    const previous = this.tDeltaBig ?? BigInt(this.tDelta);
    this.applyDeltaBig(BigInt.asIntN(64, previous + dod), at);
  }

  /** Advances by an exact int64 delta, as Go's wrapping uint64/int64 arithmetic would. */
  private applyDeltaBig(delta: bigint, at: number): void {
    const t = BigInt.asIntN(64, BigInt(this.t) + delta);
    if (!isSafeBigInt(t)) {
      throw new DecodeError(`sample timestamp ${t} is outside the safe integer range`, at);
    }
    this.t = Number(t);
    if (isSafeBigInt(delta)) {
      this.tDelta = Number(delta);
      this.tDeltaBig = null;
    } else {
      this.tDelta = 0;
      this.tDeltaBig = delta;
    }
  }

  private readValue(): void {
    const r = this.reader;
    if (r.readBit() === 0) return; // unchanged
    let trailing: number;
    let significant: number;
    if (r.readBit() === 0) {
      trailing = this.trailing;
      significant = 64 - this.leading - trailing;
    } else {
      const at = r.bitPosition() >>> 3;
      const header = r.readBits(11);
      const leading = header >>> 6;
      significant = header & 0x3f;
      if (significant === 0) significant = 64;
      trailing = 64 - leading - significant;
      if (trailing < 0) {
        throw new DecodeError(
          `invalid XOR value window: ${leading} leading zeros and ${significant} significant bits`,
          at,
        );
      }
      this.leading = leading;
      this.trailing = trailing;
    }
    r.readBits64(significant);
    let hi = r.hi;
    let lo = r.lo;
    if (trailing >= 32) {
      hi = lo << (trailing - 32);
      lo = 0;
    } else if (trailing > 0) {
      hi = (hi << trailing) | (lo >>> (32 - trailing));
      lo = lo << trailing;
    }
    this.vHi = (this.vHi ^ hi) >>> 0;
    this.vLo = (this.vLo ^ lo) >>> 0;
  }
}
