// Writes a block's chunk segment files exactly as Prometheus's chunks.Writer does, including
// where it starts a new segment, so a block written from the same chunks is byte-identical.
// Bytes are buffered and appended in large pieces; each finished segment is fsynced before the
// next is started, and the directory is synced on close.

import type { FileHandle, FileSystem } from '../../runtime/index.js';
import { Crc32c, putUvarintAt } from '../encoding/index.js';
import {
  CHUNK_CRC_SIZE,
  CHUNK_ENCODING_SIZE,
  chunkRef,
  DEFAULT_CHUNK_SEGMENT_SIZE,
  MAX_CHUNK_LENGTH_FIELD_SIZE,
  SEGMENT_HEADER_SIZE,
  segmentFileName,
  segmentHeader,
} from './chunk_format.js';

/** A chunk to write: its encoding byte and encoded bytes (header included). */
export interface ChunkToWrite {
  readonly encoding: number;
  readonly data: Uint8Array;
}

export interface ChunkWriterConfig {
  /** Maximum segment file size in bytes (Prometheus: 512 MiB); small values help tests. */
  segmentSize?: number;
  /** Buffered bytes that trigger an append to the file (default 1 MiB). */
  flushBytes?: number;
}

export interface ChunkWriterDeps {
  fs: FileSystem;
}

const DEFAULT_FLUSH_BYTES = 1024 * 1024;

/** Writes chunks into `dir` (a block's `chunks/` directory) as numbered segment files. */
export class ChunkWriter {
  private readonly segmentSize: number;
  private readonly flushBytes: number;
  private file: FileHandle | null = null;
  /** Index of the open segment (-1 before the first); its file is segmentFileName(index). */
  private segment = -1;
  /** Bytes in the open segment, header included (Prometheus's w.n). */
  private n = 0;
  private pending: Uint8Array[] = [];
  private pendingBytes = 0;
  private readonly crc = new Crc32c();
  private readonly scratch = new Uint8Array(16);
  private closed = false;

  private constructor(
    private readonly dir: string,
    config: ChunkWriterConfig,
    private readonly deps: ChunkWriterDeps,
  ) {
    const size = config.segmentSize ?? DEFAULT_CHUNK_SEGMENT_SIZE;
    if (!Number.isSafeInteger(size) || size <= SEGMENT_HEADER_SIZE || size > 2 ** 32) {
      throw new RangeError(`chunk segmentSize must be an integer in (8, 2^32], got ${size}`);
    }
    this.segmentSize = size;
    this.flushBytes = config.flushBytes ?? DEFAULT_FLUSH_BYTES;
  }

  /** Creates `dir` (and parents) and a writer for it. No file exists until chunks are written. */
  static async create(
    dir: string,
    config: ChunkWriterConfig,
    deps: ChunkWriterDeps,
  ): Promise<ChunkWriter> {
    await deps.fs.mkdir(dir, { recursive: true });
    return new ChunkWriter(dir, config, deps);
  }

  /**
   * Writes the chunks in order and returns their refs. Chunks of one call are split across
   * segments exactly where Prometheus's WriteChunks splits them.
   */
  async writeChunks(chunks: readonly ChunkToWrite[]): Promise<number[]> {
    if (this.closed) throw new Error(`chunk writer for ${this.dir} is closed`);
    // Partition into batches, one per segment, with Prometheus's arithmetic (which reserves
    // 5 bytes for every length field, so a segment may end slightly below the limit).
    const batchEnds: number[] = [];
    let batchSize = 0;
    let firstBatch = true;
    for (let i = 0; i < chunks.length; i++) {
      const size =
        MAX_CHUNK_LENGTH_FIELD_SIZE +
        CHUNK_ENCODING_SIZE +
        (chunks[i] as ChunkToWrite).data.length +
        CHUNK_CRC_SIZE;
      batchSize += size;
      let cut = i !== 0 && batchSize + SEGMENT_HEADER_SIZE > this.segmentSize;
      if (firstBatch && this.n > SEGMENT_HEADER_SIZE) {
        cut = batchSize + this.n > this.segmentSize;
        if (cut) firstBatch = false;
      }
      if (cut) {
        batchEnds.push(i);
        batchSize = size;
      }
    }
    batchEnds.push(chunks.length);

    if (this.n === 0) await this.cut();
    const refs = new Array<number>(chunks.length);
    let start = 0;
    for (let b = 0; b < batchEnds.length; b++) {
      const end = batchEnds[b] as number;
      for (let i = start; i < end; i++) refs[i] = this.writeChunk(chunks[i] as ChunkToWrite);
      start = end;
      if (this.pendingBytes >= this.flushBytes) await this.flush();
      if (b < batchEnds.length - 1) await this.cut();
    }
    return refs;
  }

  private writeChunk(chunk: ChunkToWrite): number {
    const ref = chunkRef(this.segment, this.n);
    const lenEnd = putUvarintAt(this.scratch, 0, chunk.data.length);
    this.scratch[lenEnd] = chunk.encoding & 0xff;
    this.push(this.scratch.slice(0, lenEnd + 1));
    this.push(chunk.data.slice());
    this.crc
      .reset()
      .update(this.scratch, lenEnd, lenEnd + 1)
      .update(chunk.data);
    const sum = new Uint8Array(CHUNK_CRC_SIZE);
    new DataView(sum.buffer).setUint32(0, this.crc.digest());
    this.push(sum);
    return ref;
  }

  private push(bytes: Uint8Array): void {
    this.pending.push(bytes);
    this.pendingBytes += bytes.length;
    this.n += bytes.length;
  }

  private async flush(): Promise<void> {
    if (this.pendingBytes === 0 || this.file === null) return;
    const out = new Uint8Array(this.pendingBytes);
    let off = 0;
    for (const p of this.pending) {
      out.set(p, off);
      off += p.length;
    }
    this.pending = [];
    this.pendingBytes = 0;
    await this.file.append(out);
  }

  /** Finishes the open segment (flush, fsync, close) and starts the next one. */
  private async cut(): Promise<void> {
    await this.finishSegment();
    this.segment++;
    this.file = await this.deps.fs.open(`${this.dir}/${segmentFileName(this.segment)}`, 'w');
    this.n = 0;
    this.push(segmentHeader());
  }

  private async finishSegment(): Promise<void> {
    if (this.file === null) return;
    await this.flush();
    await this.file.sync();
    await this.file.close();
    this.file = null;
  }

  /** Flushes and fsyncs the last segment, closes it and syncs the directory. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.finishSegment();
    await this.deps.fs.syncDir(this.dir);
  }
}
