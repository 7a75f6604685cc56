// Reads chunks by ref from segment files through a byte-range source, so the same reader
// serves a local block (FileSystem) and, later, a block in object storage (bucket getRange).
// Only the bytes of the requested chunk are read; every chunk's CRC is checked.

import type { FileHandle, FileSystem } from '../../runtime/index.js';
import { chunkFromData, type Chunk } from '../chunkenc/index.js';
import { DEFAULT_READ_AHEAD_BYTES, ReadAheadWindow } from '../index/index.js';
import {
  ChunkCorruptionError,
  checkSegmentHeader,
  chunkRefOffset,
  chunkRefSegment,
  decodeChunkAt,
  SEGMENT_HEADER_SIZE,
  type StoredChunk,
} from './chunk_format.js';

/**
 * Byte ranges of a block's segment files. `segment` is the 0-based index (file 000001 is 0).
 * `read` returns up to `length` bytes at `offset`, fewer only at the end of the file, and
 * throws if the segment does not exist.
 */
export interface SegmentByteSource {
  segmentCount(): number;
  read(segment: number, offset: number, length: number): Promise<Uint8Array>;
}

/**
 * Bytes fetched for a chunk in one go: the length field, the encoding and most chunks (a full
 * 120-sample XOR chunk is usually well under this). Longer chunks take a second read.
 */
const FIRST_READ_BYTES = 512;

export class ChunkReader {
  private readonly checkedHeaders = new Set<number>();

  constructor(private readonly source: SegmentByteSource) {}

  /** The stored chunk behind `ref`, CRC checked; errors name the segment and offset. */
  async stored(ref: number): Promise<StoredChunk> {
    const segment = chunkRefSegment(ref);
    const offset = chunkRefOffset(ref);
    if (segment >= this.source.segmentCount()) {
      throw new ChunkCorruptionError(
        `chunk ref ${ref} points to segment index ${segment}, but the block has ${this.source.segmentCount()} segment(s)`,
        segment,
        offset,
      );
    }
    await this.checkHeader(segment);
    if (offset < SEGMENT_HEADER_SIZE) {
      throw new ChunkCorruptionError(
        `chunk ref ${ref} points into the segment header`,
        segment,
        offset,
      );
    }
    let bytes = await this.source.read(segment, offset, FIRST_READ_BYTES);
    // Peek the length to learn whether the first read covered the whole chunk.
    let len = 0;
    let mul = 1;
    let i = 0;
    for (; i < bytes.length && i < 10; i++) {
      const b = bytes[i] as number;
      len += (b & 0x7f) * mul;
      mul *= 128;
      if (b < 0x80) break;
    }
    const total = i + 1 + 1 + len + 4;
    if (Number.isSafeInteger(total) && total > bytes.length && bytes.length === FIRST_READ_BYTES) {
      bytes = await this.source.read(segment, offset, total);
    }
    return decodeChunkAt(bytes, segment, 0, offset).chunk;
  }

  /** The chunk behind `ref`, decoded into its encoding's Chunk type. */
  async chunk(ref: number): Promise<Chunk> {
    const s = await this.stored(ref);
    return chunkFromData(s.encoding, s.data);
  }

  private async checkHeader(segment: number): Promise<void> {
    if (this.checkedHeaders.has(segment)) return;
    checkSegmentHeader(await this.source.read(segment, 0, SEGMENT_HEADER_SIZE), segment);
    this.checkedHeaders.add(segment);
  }
}

/** A SegmentByteSource over a block's `chunks/` directory on a FileSystem. */
export class FileSegmentSource implements SegmentByteSource {
  private constructor(
    private readonly handles: FileHandle[],
    readonly files: readonly string[],
  ) {}

  /** Opens every numbered segment file in `dir`, in name order (as Prometheus's reader does). */
  static async open(dir: string, deps: { fs: FileSystem }): Promise<FileSegmentSource> {
    const names = (await deps.fs.readdir(dir)).filter((n) => /^\d+$/.test(n));
    const handles: FileHandle[] = [];
    try {
      for (const name of names) handles.push(await deps.fs.open(`${dir}/${name}`, 'r'));
    } catch (err) {
      for (const h of handles) await h.close();
      throw err;
    }
    return new FileSegmentSource(handles, names);
  }

  segmentCount(): number {
    return this.handles.length;
  }

  read(segment: number, offset: number, length: number): Promise<Uint8Array> {
    const h = this.handles[segment];
    if (h === undefined) {
      return Promise.reject(
        new RangeError(`chunk segment index ${segment} out of range [0, ${this.handles.length})`),
      );
    }
    return h.read(offset, length);
  }

  async close(): Promise<void> {
    for (const h of this.handles) await h.close();
  }
}

/**
 * A SegmentByteSource for walks that read a block's chunks in file order (compaction,
 * verification): reads are answered from a read-ahead window over the segment being walked
 * (one window at a time, `windowBytes` each), so a chunk costs no file read of its own.
 */
export class ReadAheadSegmentSource implements SegmentByteSource {
  private segment = -1;
  private window: ReadAheadWindow | undefined;

  constructor(
    private readonly inner: SegmentByteSource,
    private readonly windowBytes: number = DEFAULT_READ_AHEAD_BYTES,
  ) {}

  segmentCount(): number {
    return this.inner.segmentCount();
  }

  read(segment: number, offset: number, length: number): Promise<Uint8Array> {
    // The segment header is read once per segment, away from the walk: not worth a window.
    if (offset < SEGMENT_HEADER_SIZE) return this.inner.read(segment, offset, length);
    if (this.window === undefined || segment !== this.segment) {
      this.segment = segment;
      this.window = new ReadAheadWindow((o, l) => this.inner.read(segment, o, l), this.windowBytes);
    }
    return this.window.read(offset, length);
  }
}
