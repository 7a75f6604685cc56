/**
 * Protocol Buffers wire-format reading over one request buffer. Every failure is a
 * `ProtoDecodeError` that names the byte offset where the problem starts, so a client (or a
 * test) can find the bad byte.
 */

/** A malformed protobuf body; `offset` is the byte where decoding failed. */
export class ProtoDecodeError extends Error {
  override name = 'ProtoDecodeError';
  constructor(
    readonly offset: number,
    readonly problem: string,
  ) {
    super(`proto: ${problem} at offset ${offset}`);
  }
}

export const WIRE_VARINT = 0;
export const WIRE_FIXED64 = 1;
export const WIRE_BYTES = 2;
export const WIRE_START_GROUP = 3;
export const WIRE_END_GROUP = 4;
export const WIRE_FIXED32 = 5;

const TWO_32 = 4294967296;
/** Nesting of groups we are willing to skip (protobufjs and Go both cap recursion at 100). */
const MAX_GROUP_DEPTH = 100;

/**
 * A cursor over `buf[pos, end)`. Nested messages are read by narrowing `end` (`pushLimit`)
 * so that a field can never run past its enclosing message, as protobufjs and Go enforce.
 */
export class ProtoReader {
  pos: number;
  end: number;
  private readonly view: DataView;

  constructor(readonly buf: Uint8Array) {
    this.pos = 0;
    this.end = buf.length;
    this.view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  }

  fail(problem: string, offset = this.pos): never {
    throw new ProtoDecodeError(offset, problem);
  }

  /** A field tag: at most 5 bytes and 32 bits; field number 0 is illegal. */
  tag(): number {
    const start = this.pos;
    if (start < this.end) {
      const b = this.buf[start] as number;
      if (b < 0x80 && b >= 8) {
        this.pos = start + 1;
        return b;
      }
    }
    const v = this.varint32('tag');
    if (this.pos - start === 5 && (this.buf[start + 4] as number) > 0x0f) {
      this.fail('invalid tag encoding', start);
    }
    if (v >>> 3 === 0) this.fail('illegal tag: field number 0', start);
    return v;
  }

  /** A length prefix: non-negative and below 2^31. */
  length(): number {
    const start = this.pos;
    if (start < this.end) {
      const b = this.buf[start] as number;
      if (b < 0x80) {
        this.pos = start + 1;
        return b;
      }
    }
    const v = this.varint32('length');
    if (this.pos - start === 5 && (this.buf[start + 4] as number) > 7) {
      this.fail('invalid length encoding', start);
    }
    return v;
  }

  /** Reads a length prefix and returns the end of the delimited range, checked against `end`. */
  delimitedEnd(): number {
    const start = this.pos;
    const len = this.length();
    const stop = this.pos + len;
    if (stop > this.end) this.fail(`length ${len} runs past the end of its message`, start);
    return stop;
  }

  /** Varint truncated to 32 bits (int32/uint32/enum), at most 10 bytes. */
  uint32(): number {
    const start = this.pos;
    const buf = this.buf;
    let value = 0;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= this.end) this.fail('truncated varint', start);
      const b = buf[this.pos++] as number;
      if (i < 5) value = (value | ((b & 0x7f) << (7 * i))) >>> 0;
      if (b < 0x80) return value;
    }
    return this.fail('invalid varint encoding', start);
  }

  int32(): number {
    return this.uint32() | 0;
  }

  sint32(): number {
    const v = this.uint32();
    return (v >>> 1) ^ -(v & 1);
  }

  /** int64 as a number: exact below 2^53, otherwise the nearest double. */
  int64(): number {
    this.varint64();
    return longToNumber(this.lo, this.hi, false);
  }

  uint64(): number {
    this.varint64();
    return longToNumber(this.lo, this.hi, true);
  }

  sint64(): number {
    this.varint64();
    // zig-zag on the 64-bit pair
    const mask = -(this.lo & 1);
    const lo = ((this.lo >>> 1) | (this.hi << 31)) ^ mask;
    const hi = (this.hi >>> 1) ^ mask;
    return longToNumber(lo >>> 0, hi >>> 0, false);
  }

  bool(): boolean {
    this.varint64();
    return this.lo !== 0 || this.hi !== 0;
  }

  double(): number {
    if (this.pos + 8 > this.end) this.fail('truncated double');
    const v = this.view.getFloat64(this.pos, true);
    this.pos += 8;
    return v;
  }

  /** Skips a field's payload (unknown fields, and known fields sent with another wire type). */
  skip(wireType: number, fieldNumber: number, depth = 0): void {
    const start = this.pos;
    switch (wireType) {
      case WIRE_VARINT:
        this.varint64();
        return;
      case WIRE_FIXED64:
        this.advance(8, start);
        return;
      case WIRE_BYTES: {
        const stop = this.delimitedEnd();
        this.pos = stop;
        return;
      }
      case WIRE_START_GROUP: {
        if (depth >= MAX_GROUP_DEPTH) this.fail('max depth exceeded', start);
        for (;;) {
          const tagStart = this.pos;
          if (this.pos >= this.end) this.fail('missing end group', tagStart);
          const t = this.tag();
          const wt = t & 7;
          if (wt === WIRE_END_GROUP) {
            if (t >>> 3 !== fieldNumber) this.fail('invalid end group tag', tagStart);
            return;
          }
          this.skip(wt, t >>> 3, depth + 1);
        }
      }
      case WIRE_FIXED32:
        this.advance(4, start);
        return;
      default:
        this.fail(`invalid wire type ${wireType}`, start);
    }
  }

  /** Last 64-bit varint read, as two unsigned 32-bit halves (avoids allocating a BigInt). */
  private lo = 0;
  private hi = 0;

  private varint64(): void {
    const start = this.pos;
    const buf = this.buf;
    let lo = 0;
    let hi = 0;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= this.end) this.fail('truncated varint', start);
      const b = buf[this.pos++] as number;
      const bits = b & 0x7f;
      if (i < 4) {
        lo |= bits << (7 * i);
      } else if (i === 4) {
        lo |= bits << 28;
        hi |= bits >>> 4;
      } else {
        hi |= bits << (7 * i - 32);
      }
      if (b < 0x80) {
        this.lo = lo >>> 0;
        this.hi = hi >>> 0;
        return;
      }
    }
    this.fail('invalid varint encoding', start);
  }

  private varint32(what: string): number {
    const start = this.pos;
    const buf = this.buf;
    let value = 0;
    for (let i = 0; i < 5; i++) {
      if (this.pos >= this.end) this.fail(`truncated ${what}`, start);
      const b = buf[this.pos++] as number;
      value = (value | ((b & 0x7f) << (7 * i))) >>> 0;
      if (b < 0x80) return value;
    }
    return this.fail(`invalid ${what} encoding`, start);
  }

  private advance(n: number, start: number): void {
    if (this.pos + n > this.end) this.fail(`truncated ${n}-byte field`, start);
    this.pos += n;
  }
}

function longToNumber(lo: number, hi: number, unsigned: boolean): number {
  if (!unsigned && hi >>> 31 === 1) {
    // negative two's complement: negate, convert, and flip the sign
    const nlo = (~lo + 1) >>> 0;
    const nhi = (~hi + (nlo === 0 ? 1 : 0)) >>> 0;
    return -longToNumber(nlo, nhi, true);
  }
  if (hi < 0x200000) return hi * TWO_32 + lo;
  // Beyond 2^53: round exactly as Number(BigInt) does, not via a lossy sum.
  return Number((BigInt(hi) << 32n) | BigInt(lo));
}
