/**
 * Values of the index cache as Thanos's remote index cache stores them, so a memcached shared
 * with Cortex holds entries either side can read:
 *  - postings and expanded postings (`:dss` keys): the header `dss`, then the delta-varint
 *    encoded references compressed in the snappy framing (stream) format;
 *  - series: the series entry's body as in the index (no length prefix, no CRC).
 * Decoders return undefined for anything malformed: a bad cached value is a miss.
 */
import { compress, uncompress } from 'snappyjs';
import { crc32c } from '../tsdb/encoding/index.js';

export const POSTINGS_CODEC = 'dss';

const HEADER = new TextEncoder().encode(POSTINGS_CODEC);
const STREAM_ID = Uint8Array.of(0xff, 0x06, 0x00, 0x00, 0x73, 0x4e, 0x61, 0x50, 0x70, 0x59);
const CHUNK_COMPRESSED = 0x00;
const CHUNK_UNCOMPRESSED = 0x01;
/** The framing format's largest uncompressed chunk. */
const MAX_CHUNK = 65536;

/** Postings references (ascending) as a `dss` cache value. */
export function encodePostingsValue(refs: ArrayLike<number>): Uint8Array {
  const raw = new Uint8Array(refs.length * 5);
  let n = 0;
  let prev = 0;
  for (let i = 0; i < refs.length; i++) {
    let delta = (refs[i] as number) - prev;
    prev = refs[i] as number;
    while (delta >= 0x80) {
      raw[n++] = (delta & 0x7f) | 0x80;
      delta = Math.floor(delta / 128);
    }
    raw[n++] = delta;
  }
  return frame(raw.subarray(0, n));
}

/** The references of a `dss` cache value, or undefined when it is not one. */
export function decodePostingsValue(value: Uint8Array): Uint32Array | undefined {
  if (value.length < HEADER.length) return undefined;
  for (let i = 0; i < HEADER.length; i++) if (value[i] !== HEADER[i]) return undefined;
  const raw = unframe(value.subarray(HEADER.length));
  if (raw === undefined) return undefined;
  const out: number[] = [];
  let prev = 0;
  let i = 0;
  while (i < raw.length) {
    let delta = 0;
    let mul = 1;
    for (;;) {
      if (i >= raw.length || mul > 2 ** 28) return undefined;
      const b = raw[i++] as number;
      delta += (b & 0x7f) * mul;
      mul *= 128;
      if (b < 0x80) break;
    }
    prev += delta;
    if (prev > 0xffffffff) return undefined;
    out.push(prev);
  }
  return Uint32Array.from(out);
}

function maskedCrc(data: Uint8Array): number {
  const c = crc32c(data);
  return (((c >>> 15) | (c << 17)) + 0xa282ead8) >>> 0;
}

function frame(raw: Uint8Array): Uint8Array {
  const parts: Uint8Array[] = [HEADER, STREAM_ID];
  for (let at = 0; at < raw.length; at += MAX_CHUNK) {
    const piece = raw.subarray(at, Math.min(raw.length, at + MAX_CHUNK));
    const packed = compress(piece);
    // Store whichever is smaller, as snappy stream writers do.
    const [type, body] =
      packed.length < piece.length ? [CHUNK_COMPRESSED, packed] : [CHUNK_UNCOMPRESSED, piece];
    const head = new Uint8Array(8);
    const len = body.length + 4;
    head[0] = type;
    head[1] = len & 0xff;
    head[2] = (len >>> 8) & 0xff;
    head[3] = (len >>> 16) & 0xff;
    new DataView(head.buffer).setUint32(4, maskedCrc(piece), true);
    parts.push(head, body);
  }
  return Buffer.concat(parts);
}

function unframe(stream: Uint8Array): Uint8Array | undefined {
  const pieces: Uint8Array[] = [];
  let total = 0;
  let at = 0;
  let sawStreamId = false;
  while (at < stream.length) {
    if (at + 4 > stream.length) return undefined;
    const type = stream[at] as number;
    const len =
      (stream[at + 1] as number) |
      ((stream[at + 2] as number) << 8) |
      ((stream[at + 3] as number) << 16);
    const body = stream.subarray(at + 4, at + 4 + len);
    if (body.length !== len) return undefined;
    at += 4 + len;
    if (type === 0xff) {
      sawStreamId = true;
      continue;
    }
    if (!sawStreamId) return undefined;
    if (type === CHUNK_COMPRESSED || type === CHUNK_UNCOMPRESSED) {
      if (len < 4) return undefined;
      const crc = new DataView(body.buffer, body.byteOffset, 4).getUint32(0, true);
      let data: Uint8Array;
      if (type === CHUNK_UNCOMPRESSED) data = body.subarray(4);
      else {
        try {
          data = uncompress(body.slice(4), MAX_CHUNK);
        } catch {
          return undefined;
        }
      }
      if (data.length > MAX_CHUNK || maskedCrc(data) !== crc) return undefined;
      pieces.push(data);
      total += data.length;
    } else if (type < 0x80) {
      return undefined; // reserved unskippable chunk
    }
    // 0x80..0xfe: skippable (padding and reserved skippable chunks).
  }
  const out = new Uint8Array(total);
  let n = 0;
  for (const p of pieces) {
    out.set(p, n);
    n += p.length;
  }
  return out;
}
