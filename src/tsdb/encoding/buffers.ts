// Byte-level encoding helpers shared by every Prometheus on-disk format we read and write
// (index, chunks, WAL records, tombstones): a growable writer (EncBuf) and a bounds-checked
// reader (DecBuf), mirroring Prometheus's tsdb/encoding Encbuf/Decbuf.
//
// Integers: Prometheus stores int64/uint64. JavaScript numbers are exact only up to 2^53-1,
// so every 64-bit accessor has a `number` form (exact for safe integers, refusing anything
// else) and a `bigint` form (the full 64-bit range). Varints follow Go's encoding/binary:
// unsigned LEB128 of at most 10 bytes, signed values zig-zag encoded.

const TWO_POW_32 = 4294967296;
const MAX_UVARINT_LEN = 10;
const UINT64_MAX = (1n << 64n) - 1n;
const INT64_MIN = -(1n << 63n);
const INT64_MAX = (1n << 63n) - 1n;

// Stateless codecs; sharing them is safe. The decoder is fatal so that a label value
// with invalid UTF-8 is reported instead of being silently replaced by U+FFFD.
const utf8Encoder = new TextEncoder();
const utf8Decoder = new TextDecoder('utf-8', { fatal: true });

/** A malformed or truncated input; `offset` is where the bad value starts. */
export class DecodeError extends Error {
  override readonly name = 'DecodeError';
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(`${message} at offset ${offset}`);
  }
}

function assertSafeInteger(n: number, what: string): void {
  if (!Number.isSafeInteger(n)) {
    throw new RangeError(`${what} must be a safe integer, got ${n}`);
  }
}

/** Number of bytes `putUvarint(n)` writes. */
export function uvarintSize(n: number): number {
  let size = 1;
  while (n >= 0x80) {
    n = Math.floor(n / 128);
    size++;
  }
  return size;
}

/**
 * Writes `n` (a non-negative safe integer) as an unsigned LEB128 varint into `dst` at `off`
 * and returns the offset after it. `dst` must have room for 10 bytes.
 */
export function putUvarintAt(dst: Uint8Array, off: number, n: number): number {
  // Division keeps this exact above 2^32, where bit operators would truncate.
  while (n > 0x7fffffff) {
    dst[off++] = (n % 128) | 0x80;
    n = Math.floor(n / 128);
  }
  while (n >= 0x80) {
    dst[off++] = (n & 0x7f) | 0x80;
    n >>>= 7;
  }
  dst[off++] = n;
  return off;
}

/** Like putUvarintAt for any value in [0, 2^64). */
export function putUvarintBigAt(dst: Uint8Array, off: number, n: bigint): number {
  while (n >= 0x80n) {
    dst[off++] = Number(n & 0x7fn) | 0x80;
    n >>= 7n;
  }
  dst[off++] = Number(n);
  return off;
}

/**
 * Writes a safe integer as Go's zig-zag varint. The zig-zag value 2|x| (or 2|x|-1) can exceed
 * 2^53, so it is never formed: the first byte carries the sign and the low 6 bits, and the
 * remaining bits (|x| / 64) follow as a plain uvarint continuation.
 */
export function putVarintAt(dst: Uint8Array, off: number, x: number): number {
  const negative = x < 0;
  const magnitude = negative ? -x - 1 : x;
  const first = (magnitude % 64) * 2 + (negative ? 1 : 0);
  const rest = Math.floor(magnitude / 64);
  if (rest === 0) {
    dst[off++] = first;
    return off;
  }
  dst[off++] = first | 0x80;
  return putUvarintAt(dst, off, rest);
}

/** Like putVarintAt for any int64. */
export function putVarintBigAt(dst: Uint8Array, off: number, x: bigint): number {
  const zigzag = x < 0n ? ((-x - 1n) << 1n) | 1n : x << 1n;
  return putUvarintBigAt(dst, off, zigzag);
}

function assertUint64(n: bigint): void {
  if (n < 0n || n > UINT64_MAX) throw new RangeError(`value must be a uint64, got ${n}`);
}

function assertInt64(n: bigint): void {
  if (n < INT64_MIN || n > INT64_MAX) throw new RangeError(`value must be an int64, got ${n}`);
}

/** UTF-8 byte length of `s` without encoding it. */
function utf8Length(s: string): number {
  let bytes = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const next = s.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4;
        i++;
      } else {
        bytes += 3; // lone surrogate: TextEncoder writes U+FFFD (3 bytes)
      }
    } else bytes += 3;
  }
  return bytes;
}

/** Growable byte writer (Prometheus's Encbuf). `get()` returns a view, valid until the next put. */
export class EncBuf {
  private buf: Uint8Array;
  private length = 0;

  constructor(initialCapacity = 64) {
    this.buf = new Uint8Array(Math.max(16, initialCapacity));
  }

  /** Makes room for `extra` more bytes. */
  private reserve(extra: number): void {
    const needed = this.length + extra;
    if (needed <= this.buf.length) return;
    let capacity = this.buf.length * 2;
    while (capacity < needed) capacity *= 2;
    const grown = new Uint8Array(capacity);
    grown.set(this.buf.subarray(0, this.length));
    this.buf = grown;
  }

  putByte(b: number): void {
    this.reserve(1);
    this.buf[this.length++] = b & 0xff;
  }

  putBE16(n: number): void {
    this.reserve(2);
    this.buf[this.length++] = (n >>> 8) & 0xff;
    this.buf[this.length++] = n & 0xff;
  }

  putBE32(n: number): void {
    this.reserve(4);
    this.buf[this.length++] = (n >>> 24) & 0xff;
    this.buf[this.length++] = (n >>> 16) & 0xff;
    this.buf[this.length++] = (n >>> 8) & 0xff;
    this.buf[this.length++] = n & 0xff;
  }

  /**
   * 8 bytes big-endian. A number must be a safe integer; negative numbers are written in
   * two's complement (as Go's uint64(int64)). A bigint may be any int64 or uint64.
   */
  putBE64(n: number | bigint): void {
    let hi: number;
    let lo: number;
    if (typeof n === 'bigint') {
      if (n < INT64_MIN || n > UINT64_MAX) {
        throw new RangeError(`value must fit in 64 bits, got ${n}`);
      }
      const u = BigInt.asUintN(64, n);
      hi = Number(u >> 32n);
      lo = Number(u & 0xffffffffn);
    } else {
      assertSafeInteger(n, 'putBE64 value');
      hi = Math.floor(n / TWO_POW_32);
      lo = n - hi * TWO_POW_32;
    }
    this.putBE32(hi >>> 0);
    this.putBE32(lo >>> 0);
  }

  /** Unsigned varint of a non-negative safe integer. */
  putUvarint(n: number): void {
    if (!Number.isSafeInteger(n) || n < 0) {
      throw new RangeError(`uvarint must be a non-negative safe integer, got ${n}`);
    }
    this.reserve(MAX_UVARINT_LEN);
    this.length = putUvarintAt(this.buf, this.length, n);
  }

  /** Unsigned varint of any uint64. */
  putUvarintBig(n: bigint): void {
    assertUint64(n);
    this.reserve(MAX_UVARINT_LEN);
    this.length = putUvarintBigAt(this.buf, this.length, n);
  }

  /** Zig-zag varint of a safe integer. */
  putVarint(n: number): void {
    assertSafeInteger(n, 'varint');
    this.reserve(MAX_UVARINT_LEN);
    this.length = putVarintAt(this.buf, this.length, n);
  }

  /** Zig-zag varint of any int64. */
  putVarintBig(n: bigint): void {
    assertInt64(n);
    this.reserve(MAX_UVARINT_LEN);
    this.length = putVarintBigAt(this.buf, this.length, n);
  }

  /** UTF-8 bytes of `s` prefixed by their length as a uvarint. */
  putUvarintStr(s: string): void {
    const byteLength = utf8Length(s);
    this.putUvarint(byteLength);
    this.reserve(byteLength);
    if (byteLength === s.length) {
      // ASCII: cheaper than TextEncoder for the short strings that dominate label sets.
      for (let i = 0; i < s.length; i++) this.buf[this.length++] = s.charCodeAt(i);
      return;
    }
    const { written } = utf8Encoder.encodeInto(
      s,
      this.buf.subarray(this.length, this.length + byteLength),
    );
    this.length += written;
  }

  /** `bytes` prefixed by their length as a uvarint. */
  putUvarintBytes(bytes: Uint8Array): void {
    this.putUvarint(bytes.length);
    this.putBytes(bytes);
  }

  putBytes(bytes: Uint8Array): void {
    this.reserve(bytes.length);
    this.buf.set(bytes, this.length);
    this.length += bytes.length;
  }

  /** The bytes written so far (a view into the internal buffer). */
  get(): Uint8Array {
    return this.buf.subarray(0, this.length);
  }

  len(): number {
    return this.length;
  }

  /** Forgets the content but keeps the allocated capacity. */
  reset(): void {
    this.length = 0;
  }
}

/**
 * Bounds-checked byte reader (Prometheus's Decbuf). Like Decbuf it keeps a sticky error: the
 * first failure is recorded, every later getter returns 0 (or an empty value) without moving,
 * and the caller checks `err()` once after a batch of reads, or calls `throwIfError()`.
 * `baseOffset` is added to positions in error messages, so errors name the offset in the file
 * rather than in the slice being decoded.
 */
export class DecBuf {
  private buf: Uint8Array;
  private off = 0;
  private error: DecodeError | null = null;
  private base: number;

  constructor(bytes: Uint8Array, baseOffset = 0) {
    this.buf = bytes;
    this.base = baseOffset;
  }

  /** Re-targets this reader at new bytes, clearing any error (lets hot loops reuse one reader). */
  reset(bytes: Uint8Array, baseOffset = 0): void {
    this.buf = bytes;
    this.off = 0;
    this.base = baseOffset;
    this.error = null;
  }

  err(): DecodeError | null {
    return this.error;
  }

  throwIfError(): void {
    if (this.error !== null) throw this.error;
  }

  /** Bytes left to read. */
  len(): number {
    return this.buf.length - this.off;
  }

  /** Position of the next byte, relative to the start of the bytes given. */
  position(): number {
    return this.off;
  }

  /** The unread bytes (a view). */
  rest(): Uint8Array {
    return this.buf.subarray(this.off);
  }

  private fail(message: string, at: number): void {
    if (this.error === null) this.error = new DecodeError(message, this.base + at);
  }

  /** True if `n` more bytes are available; records an error otherwise. */
  private need(n: number, what: string): boolean {
    if (this.error !== null) return false;
    if (this.buf.length - this.off < n) {
      this.fail(
        `unexpected end of data reading ${what} (${n} bytes needed, ${this.len()} left)`,
        this.off,
      );
      return false;
    }
    return true;
  }

  skip(n: number): void {
    if (!this.need(n, 'skipped bytes')) return;
    this.off += n;
  }

  getByte(): number {
    if (!this.need(1, 'byte')) return 0;
    return this.buf[this.off++] as number;
  }

  getBE16(): number {
    if (!this.need(2, 'be16')) return 0;
    const b = this.buf;
    const o = this.off;
    this.off += 2;
    return (((b[o] as number) << 8) | (b[o + 1] as number)) >>> 0;
  }

  getBE32(): number {
    if (!this.need(4, 'be32')) return 0;
    const b = this.buf;
    const o = this.off;
    this.off += 4;
    return (
      (((b[o] as number) << 24) |
        ((b[o + 1] as number) << 16) |
        ((b[o + 2] as number) << 8) |
        (b[o + 3] as number)) >>>
      0
    );
  }

  /** Unsigned 64-bit big-endian value; an error if it exceeds 2^53-1 (use getBE64Big). */
  getBE64(): number {
    const start = this.off;
    const hi = this.getBE32();
    const lo = this.getBE32();
    if (this.error !== null) return 0;
    if (hi > 0x1fffff) {
      this.fail(`be64 value ${(BigInt(hi) << 32n) | BigInt(lo)} exceeds 2^53-1`, start);
      return 0;
    }
    return hi * TWO_POW_32 + lo;
  }

  /** Signed (two's complement) 64-bit big-endian value; an error outside the safe range. */
  getBE64Int(): number {
    const start = this.off;
    const hi = this.getBE32();
    const lo = this.getBE32();
    if (this.error !== null) return 0;
    const value = (hi | 0) * TWO_POW_32 + lo;
    if (!Number.isSafeInteger(value)) {
      this.fail(
        `be64 value ${BigInt.asIntN(64, (BigInt(hi) << 32n) | BigInt(lo))} is outside the safe integer range`,
        start,
      );
      return 0;
    }
    return value;
  }

  /** Unsigned 64-bit big-endian value, full range. */
  getBE64Big(): bigint {
    const hi = this.getBE32();
    const lo = this.getBE32();
    if (this.error !== null) return 0n;
    return (BigInt(hi) << 32n) | BigInt(lo);
  }

  /** Unsigned varint; an error if malformed or above 2^53-1 (use getUvarintBig). */
  getUvarint(): number {
    if (this.error !== null) return 0;
    const start = this.off;
    const b = this.buf;
    let value = 0;
    let multiplier = 1;
    for (let i = 0; ; i++) {
      if (this.off >= b.length) {
        this.fail('unexpected end of data reading uvarint', start);
        return 0;
      }
      const byte = b[this.off++] as number;
      if (i === MAX_UVARINT_LEN - 1 && byte > 1) {
        this.fail('uvarint overflows 64 bits', start);
        return 0;
      }
      // Exact while the sum stays below 2^53; past that the result is rejected below.
      value += (byte & 0x7f) * multiplier;
      if (byte < 0x80) break;
      multiplier *= 128;
    }
    if (value > Number.MAX_SAFE_INTEGER) {
      this.off = start;
      this.fail(`uvarint ${this.peekUvarintBig()} exceeds 2^53-1`, start);
      return 0;
    }
    return value;
  }

  /** Re-reads the uvarint at the current position as a bigint without failing (for messages). */
  private peekUvarintBig(): bigint {
    let value = 0n;
    let shift = 0n;
    for (let i = this.off; i < this.buf.length && i - this.off < MAX_UVARINT_LEN; i++) {
      const byte = this.buf[i] as number;
      value |= BigInt(byte & 0x7f) << shift;
      if (byte < 0x80) break;
      shift += 7n;
    }
    return value;
  }

  /** Unsigned varint, full uint64 range. */
  getUvarintBig(): bigint {
    if (this.error !== null) return 0n;
    const start = this.off;
    const b = this.buf;
    let value = 0n;
    let shift = 0n;
    for (let i = 0; ; i++) {
      if (this.off >= b.length) {
        this.fail('unexpected end of data reading uvarint', start);
        return 0n;
      }
      const byte = b[this.off++] as number;
      if (i === MAX_UVARINT_LEN - 1 && byte > 1) {
        this.fail('uvarint overflows 64 bits', start);
        return 0n;
      }
      value |= BigInt(byte & 0x7f) << shift;
      if (byte < 0x80) return value;
      shift += 7n;
    }
  }

  /** Zig-zag varint; an error if malformed or outside the safe integer range. */
  getVarint(): number {
    if (this.error !== null) return 0;
    const start = this.off;
    const b = this.buf;
    if (this.off >= b.length) {
      this.fail('unexpected end of data reading varint', start);
      return 0;
    }
    // Decoded without forming the zig-zag value (which may exceed 2^53): the first byte holds
    // the sign and the low 6 bits of the magnitude, the rest follows in 7-bit groups.
    const first = b[this.off++] as number;
    const negative = (first & 1) === 1;
    let magnitude = (first >>> 1) & 0x3f;
    if (first >= 0x80) {
      let multiplier = 64;
      for (let i = 1; ; i++) {
        if (this.off >= b.length) {
          this.fail('unexpected end of data reading varint', start);
          return 0;
        }
        const byte = b[this.off++] as number;
        if (i === MAX_UVARINT_LEN - 1 && byte > 1) {
          this.fail('varint overflows 64 bits', start);
          return 0;
        }
        magnitude += (byte & 0x7f) * multiplier;
        if (byte < 0x80) break;
        multiplier *= 128;
      }
    }
    const value = negative ? -magnitude - 1 : magnitude;
    if (!Number.isSafeInteger(value)) {
      // Re-read in full precision only to name the value in the error.
      this.off = start;
      const big = this.getVarintBig();
      this.off = start;
      this.fail(`varint ${big} is outside the safe integer range`, start);
      return 0;
    }
    return value;
  }

  /** Zig-zag varint, full int64 range. */
  getVarintBig(): bigint {
    const zigzag = this.getUvarintBig();
    if (this.error !== null) return 0n;
    return (zigzag & 1n) === 1n ? -(zigzag >> 1n) - 1n : zigzag >> 1n;
  }

  /** `n` raw bytes (a view, no copy). */
  getBytes(n: number): Uint8Array {
    if (!this.need(n, 'bytes')) return new Uint8Array(0);
    const out = this.buf.subarray(this.off, this.off + n);
    this.off += n;
    return out;
  }

  /** Bytes prefixed by their uvarint length (a view, no copy). */
  getUvarintBytes(): Uint8Array {
    const n = this.getUvarint();
    if (this.error !== null) return new Uint8Array(0);
    return this.getBytes(n);
  }

  /** A UTF-8 string prefixed by its uvarint byte length; invalid UTF-8 is an error. */
  getUvarintStr(): string {
    const start = this.off;
    const bytes = this.getUvarintBytes();
    if (this.error !== null) return '';
    if (bytes.length <= 64) {
      let ascii = '';
      let i = 0;
      for (; i < bytes.length; i++) {
        const c = bytes[i] as number;
        if (c >= 0x80) break;
        ascii += String.fromCharCode(c);
      }
      if (i === bytes.length) return ascii;
    }
    try {
      return utf8Decoder.decode(bytes);
    } catch {
      this.fail('string is not valid UTF-8', start);
      return '';
    }
  }
}
