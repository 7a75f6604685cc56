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

import { DecBuf, DecodeError, putUvarintBigAt } from '../encoding/index.js';
import { BitStreamReader, BitStreamWriter } from './bstream.js';
import type { Chunk, ChunkAppender, ChunkIterator, FloatSample } from './chunk.js';
import { Encoding, ValueType } from './encoding.js';

/** Prometheus's hard cap on the bytes of one XOR chunk (chunkenc.MaxBytesPerXORChunk). */
export const MAX_BYTES_PER_XOR_CHUNK = 1024;

/** The most bytes one appended sample can add to an XOR chunk (4+64 bits time, 2+5+6+64 value). */
export const MAX_XOR_SAMPLE_BYTES = 19;

const HEADER_BYTES = 2;
const MAX_SAMPLES = 0xffff; // the header is a uint16
const TWO_POW_32 = 4294967296;
/** Marks "no previous leading/trailing window" (Prometheus uses 0xff as well). */
const NO_WINDOW = 0xff;

/** Trailing zero bits of a non-zero uint32. */
function ctz32(x: number): number {
  return 31 - Math.clz32(x & -x);
}

function isSafeBigInt(n: bigint): boolean {
  return n >= BigInt(Number.MIN_SAFE_INTEGER) && n <= BigInt(Number.MAX_SAFE_INTEGER);
}

/** The state an appender continues from (see XorIterator.appenderState). */
interface XorAppenderState {
  count: number;
  t: number;
  tDelta: number;
  tDeltaBig: bigint | null;
  vHi: number;
  vLo: number;
  leading: number;
  trailing: number;
}

const EMPTY_APPENDER_STATE: Readonly<XorAppenderState> = Object.freeze({
  count: 0,
  t: 0,
  tDelta: 0,
  tDeltaBig: null,
  vHi: 0,
  vLo: 0,
  leading: NO_WINDOW,
  trailing: 0,
});

/** An XOR-encoded chunk of float samples. */
export class XorChunk implements Chunk {
  // A chunk built here owns a writer; one wrapped from bytes reads them in place until an
  // appender is requested, which copies them into a writer.
  private writer: BitStreamWriter | null;
  private data: Uint8Array;

  /** An empty chunk, or (with `encoded`) the same as `XorChunk.fromBytes(encoded)`. */
  constructor(encoded?: Uint8Array) {
    if (encoded === undefined) {
      this.writer = new BitStreamWriter(new Uint8Array(HEADER_BYTES)); // sample count 0
      this.data = this.writer.bytes();
      return;
    }
    if (encoded.length < HEADER_BYTES) {
      throw new DecodeError(`XOR chunk too short: ${encoded.length} bytes`, 0);
    }
    this.writer = null;
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
    return this.writer === null ? this.data : this.writer.bytes();
  }

  numSamples(): number {
    const w = this.writer;
    if (w !== null) return (w.byteAt(0) << 8) | w.byteAt(1);
    return ((this.data[0] as number) << 8) | (this.data[1] as number);
  }

  numBytes(): number {
    return this.writer === null ? this.data.length : this.writer.byteLength();
  }

  appender(): XorAppender {
    if (this.writer !== null && this.numSamples() === 0) {
      return new XorAppender(this.writer, EMPTY_APPENDER_STATE);
    }
    const it = new XorIterator(this.bytes());
    while (it.next() !== ValueType.None) {
      // Decoding to the end rebuilds the state an appender would have after these samples.
    }
    const error = it.err();
    if (error !== null) throw error;
    if (this.writer === null) this.writer = new BitStreamWriter(this.data);
    // Continue right after the last encoded bit, not at the next byte boundary: a chunk
    // wrapped from bytes does not know how many bits of its last byte are used.
    this.writer.truncateBits(it.bitPosition());
    return new XorAppender(this.writer, it.appenderState());
  }

  iterator(reuse?: ChunkIterator): XorIterator {
    if (reuse instanceof XorIterator) {
      reuse.reset(this.bytes());
      return reuse;
    }
    return new XorIterator(this.bytes());
  }

  compact(): void {
    this.writer?.compact();
  }
}

/** Appends to an XorChunk; obtain it from `XorChunk.appender()`. */
export class XorAppender implements ChunkAppender {
  private readonly stream: BitStreamWriter;
  private count: number;
  private t: number;
  // Previous timestamp delta (Go's uint64 tDelta read as int64). `tDeltaBig` holds it only
  // when it is outside the safe-integer range; `tDelta` is then meaningless.
  private tDelta: number;
  private tDeltaBig: bigint | null;
  private vHi: number;
  private vLo: number;
  private leading: number;
  private trailing: number;
  // Allocated on first use only: the head appends value bits and has one appender per
  // series, so per-appender buffers would cost memory and an allocation per chunk.
  private floatView: DataView | null = null;
  private varintScratch: Uint8Array | null = null;

  /** @internal Built by XorChunk.appender() from the state after the chunk's last sample. */
  constructor(stream: BitStreamWriter, s: Readonly<XorAppenderState>) {
    this.stream = stream;
    this.count = s.count;
    this.t = s.t;
    this.tDelta = s.tDelta;
    this.tDeltaBig = s.tDeltaBig;
    this.vHi = s.vHi;
    this.vLo = s.vLo;
    this.leading = s.count === 0 ? NO_WINDOW : s.leading;
    this.trailing = s.trailing;
  }

  /** Bytes of the chunk being appended to (its numBytes(), without going through the chunk). */
  numBytes(): number {
    return this.stream.byteLength();
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
    if (this.count === MAX_SAMPLES) {
      throw new RangeError(`XOR chunk is full: it already holds ${MAX_SAMPLES} samples`);
    }
    if (this.count === 0) {
      writeVarint(this.stream, t);
      this.stream.writeBits(hi, 32);
      this.stream.writeBits(lo, 32);
    } else if (this.count === 1) {
      const delta = t - this.t;
      if (delta >= 0 && Number.isSafeInteger(delta)) {
        writeUvarint(this.stream, delta);
        this.tDelta = delta;
        this.tDeltaBig = null;
      } else {
        const deltaBig = BigInt(t) - BigInt(this.t);
        const n = putUvarintBigAt(this.scratch(), 0, BigInt.asUintN(64, deltaBig));
        this.writeVarintBytes(n);
        this.setDeltaBig(deltaBig);
      }
      this.writeValue(hi, lo);
    } else {
      const delta = t - this.t;
      // A safe result of subtracting safe integers is exact, so this test suffices.
      const dod = delta - this.tDelta;
      if (this.tDeltaBig === null && Number.isSafeInteger(delta) && Number.isSafeInteger(dod)) {
        this.writeDod(dod);
        this.tDelta = delta;
      } else {
        this.appendFarTimestamp(t);
      }
      this.writeValue(hi, lo);
    }

    this.t = t;
    this.vHi = hi;
    this.vLo = lo;
    this.count++;
    this.stream.setBE16(0, this.count);
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
      this.stream.writeBits(0b1111, 4);
      this.stream.writeBits64(Number(bits >> 32n), Number(bits & 0xffffffffn), 64);
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

  private scratch(): Uint8Array {
    return (this.varintScratch ??= new Uint8Array(10));
  }

  private writeVarintBytes(length: number): void {
    const scratch = this.scratch();
    for (let i = 0; i < length; i++) this.stream.writeByte(scratch[i] as number);
  }

  /** Delta-of-delta buckets; the ranges are Prometheus's bitRange(dod, n): [-(2^(n-1)-1), 2^(n-1)]. */
  private writeDod(dod: number): void {
    const s = this.stream;
    if (dod === 0) {
      s.writeBit(0);
    } else if (dod >= -8191 && dod <= 8192) {
      s.writeBits(0b10, 2);
      s.writeBits(dod & 0x3fff, 14);
    } else if (dod >= -65535 && dod <= 65536) {
      s.writeBits(0b110, 3);
      s.writeBits(dod & 0x1ffff, 17);
    } else if (dod >= -524287 && dod <= 524288) {
      s.writeBits(0b1110, 4);
      s.writeBits(dod & 0xfffff, 20);
    } else {
      s.writeBits(0b1111, 4);
      // Two's complement halves; exact for any safe integer.
      s.writeBits64(Math.floor(dod / TWO_POW_32) >>> 0, dod >>> 0, 64);
    }
  }

  private writeValue(hi: number, lo: number): void {
    const s = this.stream;
    const dHi = (hi ^ this.vHi) >>> 0;
    const dLo = (lo ^ this.vLo) >>> 0;
    if (dHi === 0 && dLo === 0) {
      s.writeBit(0);
      return;
    }
    let leading = dHi !== 0 ? Math.clz32(dHi) : 32 + Math.clz32(dLo);
    const trailing = dLo !== 0 ? ctz32(dLo) : 32 + ctz32(dHi);
    // The leading count has 5 bits in the format.
    if (leading >= 32) leading = 31;

    if (this.leading !== NO_WINDOW && leading >= this.leading && trailing >= this.trailing) {
      // '1' (changed) '0' (reuse the window), then the bits inside the previous window.
      s.writeBits(0b10, 2);
      writeShiftedRight(s, dHi, dLo, this.trailing, 64 - this.leading - this.trailing);
      return;
    }
    this.leading = leading;
    this.trailing = trailing;
    const significant = 64 - leading - trailing;
    // '1' (changed) '1' (new window), 5 bits leading, 6 bits significant count where 64
    // cannot occur as 0 significant bits would mean "unchanged", so 64 is written as 0.
    s.writeBits((0b11 << 11) | (leading << 6) | (significant & 0x3f), 13);
    writeShiftedRight(s, dHi, dLo, trailing, significant);
  }
}

/**
 * Writes a safe non-negative integer as a Go uvarint straight into the stream: the same
 * bytes as putUvarintAt, without a scratch buffer per appender.
 */
function writeUvarint(s: BitStreamWriter, n: number): void {
  // Division keeps this exact above 2^32, where bit operators would truncate.
  while (n > 0x7fffffff) {
    s.writeByte((n % 128) | 0x80);
    n = Math.floor(n / 128);
  }
  while (n >= 0x80) {
    s.writeByte((n & 0x7f) | 0x80);
    n >>>= 7;
  }
  s.writeByte(n);
}

/** A safe integer as Go's zig-zag varint (the bytes of putVarintAt), straight into the stream. */
function writeVarint(s: BitStreamWriter, x: number): void {
  const negative = x < 0;
  const magnitude = negative ? -x - 1 : x;
  const first = (magnitude % 64) * 2 + (negative ? 1 : 0);
  const rest = Math.floor(magnitude / 64);
  if (rest === 0) {
    s.writeByte(first);
    return;
  }
  s.writeByte(first | 0x80);
  writeUvarint(s, rest);
}

/** Writes the low `nbits` bits of (hi:lo >> shift). */
function writeShiftedRight(
  s: BitStreamWriter,
  hi: number,
  lo: number,
  shift: number,
  nbits: number,
): void {
  if (shift === 0) {
    s.writeBits64(hi, lo, nbits);
  } else if (shift < 32) {
    s.writeBits64(hi >>> shift, ((lo >>> shift) | (hi << (32 - shift))) >>> 0, nbits);
  } else {
    s.writeBits64(0, hi >>> (shift - 32), nbits);
  }
}

/** Iterates an XOR chunk. Reuse one across chunks with `XorChunk.iterator(reuse)`. */
export class XorIterator implements ChunkIterator {
  private readonly reader = new BitStreamReader();
  private readonly varints = new DecBuf(new Uint8Array(0));
  private readonly floatView = new DataView(new ArrayBuffer(8));
  private bytes: Uint8Array = new Uint8Array(0);
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
    this.floatView.setUint32(0, this.vHi);
    this.floatView.setUint32(4, this.vLo);
    return this.floatView.getFloat64(0);
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
