/**
 * Per-request string interning straight from UTF-8 bytes: a label name or value that repeats
 * across the series of one request (`__name__`, `job`, `instance`, ...) is looked up by its
 * bytes and returns the string made the first time, without decoding or allocating again.
 */
import { ProtoDecodeError } from './proto_reader.js';

/** Strings longer than this are decoded without interning: rarely repeated, costly to hash. */
const MAX_INTERNED_BYTES = 128;
const INITIAL_SLOTS = 256;

// fatal: invalid UTF-8 is an error (proto3 `string` semantics, as protobufjs and protobuf-go
// check); ignoreBOM: a leading U+FEFF is part of the value, not a marker to strip.
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

export class StringInterner {
  private slots: Int32Array;
  /** Per entry: byte start, byte length, hash; strings in `strings`. */
  private starts: number[] = [];
  private lengths: number[] = [];
  private hashes: number[] = [];
  private strings: string[] = [];

  constructor(private readonly buf: Uint8Array) {
    this.slots = new Int32Array(INITIAL_SLOTS).fill(-1);
  }

  get size(): number {
    return this.strings.length;
  }

  intern(start: number, end: number): string {
    const len = end - start;
    if (len === 0) return '';
    if (len > MAX_INTERNED_BYTES) return decodeUtf8(this.buf, start, end);
    const buf = this.buf;
    // One pass computes the hash and notices non-ASCII bytes.
    let h = 0x811c9dc5;
    let high = 0;
    for (let i = start; i < end; i++) {
      const b = buf[i] as number;
      high |= b;
      h = Math.imul(h ^ b, 0x01000193);
    }
    const mask = this.slots.length - 1;
    for (let slot = h & mask; ; slot = (slot + 1) & mask) {
      const entry = this.slots[slot] as number;
      if (entry < 0) {
        const s = high < 0x80 ? asciiString(buf, start, end) : decodeUtf8(buf, start, end);
        this.add(slot, start, len, h, s);
        return s;
      }
      if (this.hashes[entry] === h && this.lengths[entry] === len) {
        const other = this.starts[entry] as number;
        let same = true;
        for (let i = 0; i < len; i++) {
          if (buf[start + i] !== buf[other + i]) {
            same = false;
            break;
          }
        }
        if (same) return this.strings[entry] as string;
      }
    }
  }

  private add(slot: number, start: number, len: number, h: number, s: string): void {
    const id = this.strings.length;
    this.starts.push(start);
    this.lengths.push(len);
    this.hashes.push(h);
    this.strings.push(s);
    this.slots[slot] = id;
    if (this.strings.length * 2 > this.slots.length) this.grow();
  }

  private grow(): void {
    const slots = new Int32Array(this.slots.length * 2).fill(-1);
    const mask = slots.length - 1;
    for (let id = 0; id < this.strings.length; id++) {
      let slot = (this.hashes[id] as number) & mask;
      while ((slots[slot] as number) >= 0) slot = (slot + 1) & mask;
      slots[slot] = id;
    }
    this.slots = slots;
  }
}

/**
 * UTF-8 to string. Invalid UTF-8 is rejected with a ProtoDecodeError at the string's first
 * byte: proto3 strings must be valid UTF-8, and a lossy U+FFFD replacement would make two
 * different label values one.
 */
export function decodeUtf8(buf: Uint8Array, start: number, end: number): string {
  let high = 0;
  for (let i = start; i < end; i++) high |= buf[i] as number;
  if (high < 0x80) return asciiString(buf, start, end);
  try {
    return utf8.decode(buf.subarray(start, end));
  } catch {
    throw new ProtoDecodeError(start, 'invalid UTF-8 in string field');
  }
}

/** Bytes known to be ASCII as a string; `fromCharCode.apply` in chunks beats concatenation. */
function asciiString(buf: Uint8Array, start: number, end: number): string {
  if (end - start <= 16) {
    let s = '';
    for (let i = start; i < end; i++) s += String.fromCharCode(buf[i] as number);
    return s;
  }
  let s = '';
  for (let i = start; i < end; i += 4096) {
    s += String.fromCharCode.apply(
      null,
      buf.subarray(i, Math.min(end, i + 4096)) as unknown as number[],
    );
  }
  return s;
}
