/**
 * Snappy block-format decompression (Go's snappy.Decode), written here rather than taken from
 * `snappyjs` because a push body is untrusted input: snappyjs neither checks that the output
 * is exactly the announced length nor that copies stay inside it, and Go's decoder rejects
 * both with "snappy: corrupt input". The size limit is checked on the announced length before
 * any allocation.
 */

const MAX_EXPANSION = 22;
/** Literals and copies shorter than this are copied in a loop, longer ones by a builtin. */
const SHORT_COPY = 16;

export class SnappyCorruptError extends Error {
  override name = 'SnappyCorruptError';
  constructor(readonly offset: number) {
    super('snappy: corrupt input');
  }
}

/** Go's snappy.DecodedLen: the uvarint preamble (at most 32 bits), or undefined if corrupt. */
export function snappyDecodedLength(
  src: Uint8Array,
): { length: number; headerBytes: number } | undefined {
  let value = 0;
  for (let i = 0; i < 5 && i < src.length; i++) {
    const b = src[i] as number;
    value += (b & 0x7f) * 2 ** (7 * i);
    if (b < 0x80) return value > 0xffffffff ? undefined : { length: value, headerBytes: i + 1 };
  }
  return undefined;
}

/** Decompresses a whole snappy block; throws SnappyCorruptError on any inconsistency. */
export function snappyDecode(src: Uint8Array): Uint8Array {
  const header = snappyDecodedLength(src);
  if (header === undefined) throw new SnappyCorruptError(0);
  // No element expands more than 64/3 times (a 3-byte copy of 64 bytes): a preamble promising
  // more is corrupt, and refusing it here keeps a tiny body from making us allocate a lot.
  if (header.length > (src.length - header.headerBytes) * MAX_EXPANSION) {
    throw new SnappyCorruptError(0);
  }
  const dst = new Uint8Array(header.length);
  let s = header.headerBytes;
  let d = 0;
  while (s < src.length) {
    const tagAt = s;
    const tag = src[s] as number;
    let length: number;
    let offset: number;
    switch (tag & 3) {
      case 0: {
        let x = tag >>> 2;
        if (x < 60) {
          s += 1;
        } else {
          const extra = x - 59;
          if (s + 1 + extra > src.length) throw new SnappyCorruptError(tagAt);
          x = 0;
          for (let i = 0; i < extra; i++) x += (src[s + 1 + i] as number) * 2 ** (8 * i);
          s += 1 + extra;
        }
        length = x + 1;
        if (length > dst.length - d || length > src.length - s) throw new SnappyCorruptError(tagAt);
        // Short literals are copied by hand: cheaper than a subarray and a set.
        if (length < SHORT_COPY) {
          for (let i = 0; i < length; i++) dst[d + i] = src[s + i] as number;
        } else {
          dst.set(src.subarray(s, s + length), d);
        }
        d += length;
        s += length;
        continue;
      }
      case 1:
        if (s + 2 > src.length) throw new SnappyCorruptError(tagAt);
        length = 4 + ((tag >>> 2) & 7);
        offset = ((tag & 0xe0) << 3) | (src[s + 1] as number);
        s += 2;
        break;
      case 2:
        if (s + 3 > src.length) throw new SnappyCorruptError(tagAt);
        length = 1 + (tag >>> 2);
        offset = (src[s + 1] as number) | ((src[s + 2] as number) << 8);
        s += 3;
        break;
      default:
        if (s + 5 > src.length) throw new SnappyCorruptError(tagAt);
        length = 1 + (tag >>> 2);
        offset =
          ((src[s + 1] as number) |
            ((src[s + 2] as number) << 8) |
            ((src[s + 3] as number) << 16) |
            ((src[s + 4] as number) << 24)) >>>
          0;
        s += 5;
    }
    if (offset <= 0 || d < offset || length > dst.length - d) throw new SnappyCorruptError(tagAt);
    if (offset >= length && length >= SHORT_COPY) {
      dst.copyWithin(d, d - offset, d - offset + length);
      d += length;
    } else {
      // Short copies by hand (cheaper than a builtin call); an overlapping copy (offset <
      // length) repeats the last `offset` bytes, byte by byte as the format means.
      for (let end = d + length; d < end; d++) dst[d] = dst[d - offset] as number;
    }
  }
  if (d !== dst.length) throw new SnappyCorruptError(s);
  return dst;
}
