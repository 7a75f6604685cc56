/**
 * Constants and the table of contents of Prometheus's index format v2 (tsdb/docs/format/index.md).
 * The TOC is the fixed-size trailer that locates every section; a zero offset means "absent".
 */
import { DecBuf, EncBuf, crc32c } from '../encoding/index.js';

export const INDEX_MAGIC = 0xbaaad700;
export const INDEX_FORMAT_V2 = 2;
/** Magic (4 bytes) plus version (1 byte). */
export const INDEX_HEADER_LENGTH = 5;
/** Series entries start on 16-byte boundaries; a series reference is its offset / 16. */
export const SERIES_ALIGNMENT = 16;
/** Six BE64 section offsets and a CRC32C over them. */
export const INDEX_TOC_LENGTH = 6 * 8 + 4;
/**
 * Prometheus keeps every 32nd symbol and every 32nd postings-table value in memory and scans
 * the bytes in between; we use the same factor so lookups touch the same byte ranges.
 */
export const DEFAULT_SAMPLING_FACTOR = 32;

/** Byte offsets of the index sections, in the order the TOC stores them. */
export interface IndexToc {
  symbols: number;
  series: number;
  labelIndices: number;
  labelIndicesTable: number;
  postings: number;
  postingsTable: number;
}

/** A structurally invalid index file: bad magic, unknown version, checksum mismatch, bad entry. */
export class IndexFormatError extends Error {
  override readonly name = 'IndexFormatError';
}

export function encodeToc(toc: IndexToc): Uint8Array {
  const buf = new EncBuf(INDEX_TOC_LENGTH);
  buf.putBE64(toc.symbols);
  buf.putBE64(toc.series);
  buf.putBE64(toc.labelIndices);
  buf.putBE64(toc.labelIndicesTable);
  buf.putBE64(toc.postings);
  buf.putBE64(toc.postingsTable);
  buf.putBE32(crc32c(buf.get()));
  return buf.get().slice();
}

/** Decodes the last INDEX_TOC_LENGTH bytes of an index; `fileOffset` is where they start. */
export function decodeToc(bytes: Uint8Array, fileOffset: number): IndexToc {
  if (bytes.length !== INDEX_TOC_LENGTH) {
    throw new IndexFormatError(
      `index TOC must be ${INDEX_TOC_LENGTH} bytes, got ${bytes.length} at offset ${fileOffset}`,
    );
  }
  const body = bytes.subarray(0, INDEX_TOC_LENGTH - 4);
  const expected = new DecBuf(bytes.subarray(INDEX_TOC_LENGTH - 4)).getBE32();
  const actual = crc32c(body);
  if (actual !== expected) {
    throw new IndexFormatError(
      `index TOC checksum mismatch at offset ${fileOffset}: stored ${hex(expected)}, computed ${hex(actual)}`,
    );
  }
  const d = new DecBuf(body, fileOffset);
  const toc: IndexToc = {
    symbols: d.getBE64(),
    series: d.getBE64(),
    labelIndices: d.getBE64(),
    labelIndicesTable: d.getBE64(),
    postings: d.getBE64(),
    postingsTable: d.getBE64(),
  };
  d.throwIfError();
  return toc;
}

export function hex(n: number): string {
  return `0x${(n >>> 0).toString(16).padStart(8, '0')}`;
}
