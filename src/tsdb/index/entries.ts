/**
 * Length probing and decoding of the two index entries a remote reader fetches by byte range
 * (a postings list, a series entry). A reader over object storage fetches several entries in
 * one merged range, without knowing their lengths up front; these helpers tell it whether the
 * bytes it has cover an entry (or how many it needs) and decode a covered one, checking its
 * CRC32C.
 */
import { DecBuf, crc32c } from '../encoding/index.js';
import { IndexFormatError, hex } from './format.js';

/**
 * Bytes taken by the postings list starting at `bytes[0]` (`len <4b> | body | CRC <4b>`), or
 * -1 when fewer than 4 bytes are there to read its length.
 */
export function postingsListLength(bytes: Uint8Array): number {
  if (bytes.length < 4) return -1;
  return 8 + new DataView(bytes.buffer, bytes.byteOffset, 4).getUint32(0);
}

/**
 * The series references of the postings list starting at `bytes[0]`; `bytes` must hold the
 * whole list (see postingsListLength). `fileOffset` is where the list starts, for errors.
 */
export function decodePostingsList(bytes: Uint8Array, fileOffset: number): Uint32Array {
  const total = postingsListLength(bytes);
  if (total < 0 || total > bytes.length) {
    throw new IndexFormatError(
      `postings list at offset ${fileOffset} is truncated: ${bytes.length} bytes, want ${Math.max(total, 4)}`,
    );
  }
  const length = total - 8;
  checkEntryCrc(bytes.subarray(4, total), length, 'postings list', fileOffset);
  const d = new DecBuf(bytes.subarray(4, 4 + length), fileOffset + 4);
  const count = d.getBE32();
  if (length !== 4 + 4 * count) {
    throw new IndexFormatError(
      `postings list at offset ${fileOffset} has ${length} bytes for ${count} entries`,
    );
  }
  const out = new Uint32Array(count);
  for (let i = 0; i < count; i++) out[i] = d.getBE32();
  d.throwIfError();
  return out;
}

/**
 * Bytes taken by the series entry starting at `bytes[0]` (`len <uvarint> | body | CRC <4b>`),
 * or -1 when `bytes` end inside the length varint.
 */
export function seriesEntryLength(bytes: Uint8Array): number {
  let len = 0;
  let mul = 1;
  for (let i = 0; i < bytes.length && i < 10; i++) {
    const b = bytes[i] as number;
    len += (b & 0x7f) * mul;
    if (b < 0x80) return i + 1 + len + 4;
    mul *= 128;
  }
  if (bytes.length >= 10) throw new IndexFormatError('series entry length varint is malformed');
  return -1;
}

/**
 * The body of the series entry starting at `bytes[0]`, CRC checked; `bytes` must hold the
 * whole entry (see seriesEntryLength). Returns the body and its file offset; `what` names the
 * entry in errors.
 */
export function seriesEntryBody(
  bytes: Uint8Array,
  fileOffset: number,
  what = 'series',
): { body: Uint8Array; bodyOffset: number } {
  const total = seriesEntryLength(bytes);
  if (total < 0 || total > bytes.length) {
    throw new IndexFormatError(
      `${what} entry at offset ${fileOffset} is truncated: ${bytes.length} bytes, want ${total < 0 ? 'more' : total}`,
    );
  }
  const start = varintPrefix(bytes);
  const length = total - 4 - start;
  // The offset named is the body's, as Prometheus reports it.
  checkEntryCrc(bytes.subarray(start, total), length, what, fileOffset + start);
  return { body: bytes.subarray(start, start + length), bodyOffset: fileOffset + start };
}

/** Number of bytes of the length varint at the start of `bytes` (it is known complete). */
function varintPrefix(bytes: Uint8Array): number {
  let i = 0;
  while (((bytes[i] as number) & 0x80) !== 0) i++;
  return i + 1;
}

/** `bytes` is `body <length> | CRC32C(body) <4b>`; throws naming `what` on a mismatch. */
export function checkEntryCrc(
  bytes: Uint8Array,
  length: number,
  what: string,
  offset: number,
): void {
  const expected = new DecBuf(bytes.subarray(length, length + 4)).getBE32();
  const actual = crc32c(bytes.subarray(0, length));
  if (expected !== actual) {
    throw new IndexFormatError(
      `${what} at offset ${offset}: checksum mismatch, stored ${hex(expected)}, computed ${hex(actual)}`,
    );
  }
}
