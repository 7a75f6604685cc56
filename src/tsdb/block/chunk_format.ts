// Layout of Prometheus chunk segment files (tsdb/docs/format/chunks.md): a block's chunks
// live in `chunks/000001`, `chunks/000002`, … Each file starts with an 8-byte header (magic
// 0x85BD40DD big-endian, format version 1, three zero padding bytes) followed by chunks
// written as `uvarint(len(data)) | encoding byte | data | CRC32C(encoding byte + data)`.
//
// Chunk references: Prometheus packs a chunk's position into a uint64 BlockChunkRef,
// `segmentIndex << 32 | offset`, where segmentIndex is the position of the file in the
// sorted list of segment files (file 000001 is index 0). We keep the reference as a plain
// JavaScript number with the same value (segmentIndex * 2^32 + offset). It is exact while
// segmentIndex < 2^21 (two million 512 MiB files, far beyond any block), so refs written into
// an index by us or by Prometheus have identical bits, without bigint costs on hot paths.

import { crc32c, DecBuf } from '../encoding/index.js';

export const CHUNKS_MAGIC = 0x85bd40dd;
export const CHUNKS_FORMAT_V1 = 1;
export const SEGMENT_HEADER_SIZE = 8;
/** Prometheus reserves 5 bytes (binary.MaxVarintLen32) for the length when sizing segments. */
export const MAX_CHUNK_LENGTH_FIELD_SIZE = 5;
export const CHUNK_ENCODING_SIZE = 1;
export const CHUNK_CRC_SIZE = 4;
/** Prometheus's DefaultChunkSegmentSize: 512 MiB. */
export const DEFAULT_CHUNK_SEGMENT_SIZE = 512 * 1024 * 1024;

const TWO_POW_32 = 4294967296;
const MAX_SEGMENT_INDEX = 2 ** 21 - 1;

/** A chunk segment file is damaged or a chunk ref points nowhere; names segment and offset. */
export class ChunkCorruptionError extends Error {
  override readonly name = 'ChunkCorruptionError';
  constructor(
    message: string,
    readonly segment: number,
    readonly offset: number,
  ) {
    super(
      `chunk segment ${segment} (file ${segmentFileName(segment)}) offset ${offset}: ${message}`,
    );
  }
}

/** The file name of segment `index` (0-based): index 0 is `000001`. */
export function segmentFileName(index: number): string {
  return String(index + 1).padStart(6, '0');
}

/** Packs a (segment index, offset) pair into a chunk ref (see the module comment). */
export function chunkRef(segment: number, offset: number): number {
  if (!Number.isInteger(segment) || segment < 0 || segment > MAX_SEGMENT_INDEX) {
    throw new RangeError(`chunk segment index must be an integer in [0, 2^21), got ${segment}`);
  }
  if (!Number.isInteger(offset) || offset < 0 || offset >= TWO_POW_32) {
    throw new RangeError(`chunk offset must be an integer in [0, 2^32), got ${offset}`);
  }
  return segment * TWO_POW_32 + offset;
}

/** The segment index of a chunk ref. */
export function chunkRefSegment(ref: number): number {
  return Math.floor(ref / TWO_POW_32);
}

/** The byte offset within its segment of a chunk ref. */
export function chunkRefOffset(ref: number): number {
  return ref % TWO_POW_32;
}

/** The 8-byte header every segment file starts with. */
export function segmentHeader(): Uint8Array {
  const h = new Uint8Array(SEGMENT_HEADER_SIZE);
  new DataView(h.buffer).setUint32(0, CHUNKS_MAGIC);
  h[4] = CHUNKS_FORMAT_V1;
  return h;
}

/** Throws ChunkCorruptionError unless `bytes` starts with a valid segment header. */
export function checkSegmentHeader(bytes: Uint8Array, segment: number): void {
  if (bytes.length < SEGMENT_HEADER_SIZE) {
    throw new ChunkCorruptionError(
      `file too short for the segment header: ${bytes.length} bytes, want ${SEGMENT_HEADER_SIZE}`,
      segment,
      0,
    );
  }
  const magic = new DataView(bytes.buffer, bytes.byteOffset, 4).getUint32(0);
  if (magic !== CHUNKS_MAGIC) {
    throw new ChunkCorruptionError(
      `invalid magic number 0x${magic.toString(16).padStart(8, '0')}, want 0x85bd40dd`,
      segment,
      0,
    );
  }
  if (bytes[4] !== CHUNKS_FORMAT_V1) {
    throw new ChunkCorruptionError(`invalid chunk format version ${bytes[4]}, want 1`, segment, 4);
  }
}

/** A chunk as stored in a segment: its ref, encoding byte and data (a view, no copy). */
export interface StoredChunk {
  ref: number;
  encoding: number;
  data: Uint8Array;
}

/**
 * Decodes the chunk that starts at index `offset` of `bytes`, checking its CRC. `bytes` start
 * at file offset `fileBase` of the segment (0 when they hold the whole file), which is used for
 * the ref and in errors. Returns the chunk and the index just after it; throws
 * ChunkCorruptionError naming the segment and the chunk's file offset.
 */
export function decodeChunkAt(
  bytes: Uint8Array,
  segment: number,
  offset: number,
  fileBase = 0,
): { chunk: StoredChunk; end: number } {
  const fileOffset = fileBase + offset;
  const d = new DecBuf(bytes.subarray(offset), fileOffset);
  const len = d.getUvarint();
  if (d.err() !== null) {
    throw new ChunkCorruptionError(
      `reading chunk length failed: ${d.err()?.message ?? ''}`,
      segment,
      fileOffset,
    );
  }
  const encStart = offset + d.position();
  const end = encStart + CHUNK_ENCODING_SIZE + len + CHUNK_CRC_SIZE;
  if (end > bytes.length) {
    throw new ChunkCorruptionError(
      `segment doesn't include enough bytes to read the chunk - required: ${fileBase + end}, available: ${fileBase + bytes.length}`,
      segment,
      fileOffset,
    );
  }
  const dataEnd = end - CHUNK_CRC_SIZE;
  const want = new DataView(bytes.buffer, bytes.byteOffset + dataEnd, 4).getUint32(0);
  const got = crc32c(bytes.subarray(encStart, dataEnd));
  if (got !== want) {
    throw new ChunkCorruptionError(
      `checksum mismatch: stored 0x${want.toString(16).padStart(8, '0')}, computed 0x${got.toString(16).padStart(8, '0')}`,
      segment,
      fileOffset,
    );
  }
  return {
    chunk: {
      ref: chunkRef(segment, fileOffset),
      encoding: bytes[encStart] as number,
      data: bytes.subarray(encStart + CHUNK_ENCODING_SIZE, dataEnd),
    },
    end,
  };
}

/**
 * Walks every chunk of a whole segment file in order, checking the header and each CRC.
 * Trailing zero bytes end the walk (a preallocated, not yet truncated file).
 */
export function* walkSegment(bytes: Uint8Array, segment: number): Generator<StoredChunk> {
  checkSegmentHeader(bytes, segment);
  let off = SEGMENT_HEADER_SIZE;
  while (off < bytes.length) {
    // A zero length byte can only be padding: chunks are never empty (XOR has a 2-byte header).
    if (bytes[off] === 0 && bytes.subarray(off).every((b) => b === 0)) return;
    const { chunk, end } = decodeChunkAt(bytes, segment, off);
    yield chunk;
    off = end;
  }
}
