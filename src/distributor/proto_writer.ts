/**
 * Protocol Buffers wire-format writing into one growing buffer. A submessage is written with a
 * one-byte length placeholder and moved right only when its length needs more bytes, so
 * encoding stays single-pass without computing sizes up front.
 */

const utf8 = new TextEncoder();

export class ProtoWriter {
  private buf = new Uint8Array(4096);
  private view = new DataView(this.buf.buffer);
  pos = 0;

  finish(): Uint8Array {
    return this.buf.slice(0, this.pos);
  }

  tag(field: number, wireType: number): void {
    this.varint32(((field << 3) | wireType) >>> 0);
  }

  varint32(v: number): void {
    this.ensure(5);
    let x = v >>> 0;
    while (x >= 0x80) {
      this.buf[this.pos++] = (x & 0x7f) | 0x80;
      x >>>= 7;
    }
    this.buf[this.pos++] = x;
  }

  /** A signed 32-bit value as a varint (negatives take 10 bytes, as in Go). */
  int32(v: number): void {
    if (v >= 0) this.varint32(v);
    else this.int64(v);
  }

  sint32(v: number): void {
    this.varint32(((v << 1) ^ (v >> 31)) >>> 0);
  }

  /** An integral number in the int64/uint64 range as a two's complement varint. */
  int64(v: number): void {
    if (v >= 0 && v <= 0xffffffff) {
      this.varint32(v);
      return;
    }
    // Millisecond timestamps land here on every sample: write safe non-negative integers
    // with float arithmetic (exact below 2^53) instead of allocating BigInts.
    if (v > 0 && v <= Number.MAX_SAFE_INTEGER && Number.isInteger(v)) {
      this.ensure(10);
      let x = v;
      while (x >= 0x80) {
        this.buf[this.pos++] = (x % 0x80) | 0x80;
        x = Math.floor(x / 0x80);
      }
      this.buf[this.pos++] = x;
      return;
    }
    this.writeUnsigned64(BigInt.asUintN(64, BigInt(v)));
  }

  sint64(v: number): void {
    if (v >= -0x40000000 && v < 0x40000000 && Number.isInteger(v)) {
      this.varint32(((v << 1) ^ (v >> 31)) >>> 0);
      return;
    }
    const b = BigInt(v);
    this.writeUnsigned64(BigInt.asUintN(64, (b << 1n) ^ (b >> 63n)));
  }

  double(v: number): void {
    this.ensure(8);
    this.view.setFloat64(this.pos, v, true);
    this.pos += 8;
  }

  bytesField(field: number, data: Uint8Array): void {
    this.tag(field, 2);
    this.varint32(data.length);
    this.ensure(data.length);
    this.buf.set(data, this.pos);
    this.pos += data.length;
  }

  stringField(field: number, s: string): void {
    this.tag(field, 2);
    // Worst case 3 bytes per UTF-16 unit; encode in place, then fix the prefix.
    this.ensure(s.length * 3 + 5);
    const lenPos = this.pos;
    this.pos += 1;
    const written = this.asciiOrUtf8(s);
    this.pos += written;
    this.fixLength(lenPos, written);
  }

  /**
   * Writes `s` at `pos` (room reserved by the caller) and returns its byte length. Label
   * names and values are almost always ASCII: copying char codes avoids a subarray and an
   * encoder call per string; anything else goes through the UTF-8 encoder from the start.
   */
  private asciiOrUtf8(s: string): number {
    const buf = this.buf;
    const start = this.pos;
    const n = s.length;
    for (let i = 0; i < n; i++) {
      const c = s.charCodeAt(i);
      if (c >= 0x80) return utf8.encodeInto(s, buf.subarray(start)).written;
      buf[start + i] = c;
    }
    return n;
  }

  /**
   * A `prometheus.Sample` as field 2 of a TimeSeries: `value` (double, field 1) and
   * `timestamp` (int64, field 2), each omitted at its proto3 default. The one message written
   * per sample, so its length is computed up front instead of going through `message`'s
   * closure and length fix-up.
   */
  sample(value: number, timestamp: number): void {
    const hasValue = !Object.is(value, 0);
    const tsSize = timestamp === 0 ? 0 : 1 + int64Size(timestamp);
    const len = (hasValue ? 9 : 0) + tsSize;
    this.tag(2, 2);
    this.varint32(len);
    const end = this.pos + len;
    if (hasValue) {
      this.tag(1, 1);
      this.double(value);
    }
    if (tsSize !== 0) {
      this.tag(2, 0);
      this.int64(timestamp);
    }
    if (this.pos !== end) throw new RangeError(`sample timestamp ${timestamp} is not an int64`);
  }

  /** Writes `field` as a submessage whose body `body` writes. */
  message(field: number, body: () => void): void {
    const lenPos = this.begin(field);
    body();
    this.end(lenPos);
  }

  /**
   * Opens submessage `field` and returns the position `end` takes once its body is written:
   * `message` without a closure, for the messages written per series and per label.
   */
  begin(field: number): number {
    this.tag(field, 2);
    this.ensure(1);
    const lenPos = this.pos;
    this.pos += 1;
    return lenPos;
  }

  /** Closes the submessage `begin` opened at `lenPos`. */
  end(lenPos: number): void {
    this.fixLength(lenPos, this.pos - lenPos - 1);
  }

  /** The prefix at `lenPos` was given one byte; widen it if `len` needs more. */
  private fixLength(lenPos: number, len: number): void {
    const size = varintSize(len);
    if (size > 1) {
      this.ensure(size - 1);
      this.buf.copyWithin(lenPos + size, lenPos + 1, this.pos);
      this.pos += size - 1;
    }
    let x = len;
    let p = lenPos;
    while (x >= 0x80) {
      this.buf[p++] = (x & 0x7f) | 0x80;
      x >>>= 7;
    }
    this.buf[p] = x;
  }

  private writeUnsigned64(z: bigint): void {
    this.ensure(10);
    let x = z;
    while (x >= 0x80n) {
      this.buf[this.pos++] = Number(x & 0x7fn) | 0x80;
      x >>= 7n;
    }
    this.buf[this.pos++] = Number(x);
  }

  private ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.pos + n) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buf.subarray(0, this.pos));
    this.buf = next;
    this.view = new DataView(next.buffer);
  }
}

function varintSize(v: number): number {
  let size = 1;
  let x = v >>> 0;
  while (x >= 0x80) {
    size++;
    x >>>= 7;
  }
  return size;
}

/**
 * The bytes `int64(v)` writes for an integral `v`: negatives are 10 (two's complement), and
 * dividing by 128 is exact for any integral double, so the loop also sizes values above 2^53.
 * Sizes stop at 10 like the 64-bit varint itself; `sample` checks what it wrote against this.
 */
function int64Size(v: number): number {
  if (v < 0) return 10;
  let size = 1;
  for (let x = v; x >= 0x80 && size < 10; x = Math.floor(x / 0x80)) size++;
  return size;
}
