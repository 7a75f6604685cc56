// Opens a block (meta.json, index, chunk segments, tombstones) and answers the queries a
// querier or store-gateway asks of one block: series by matchers within a time range, label
// names and label values. The index and chunks are read through byte-range sources, so the
// same reader can later sit on object storage (BlockReader.fromParts); only the ranges a
// query needs are read.

import { compareGoStrings, type Matcher } from '../../model/index.js';
import type { FileSystem } from '../../runtime/index.js';
import { Encoding, ValueType, XorChunk, type Chunk, type RawChunk } from '../chunkenc/index.js';
import {
  IndexReader,
  openFileSource,
  postingsForMatchers,
  readAheadSource,
  type ByteSource,
  type ChunkMeta,
} from '../index/index.js';
import {
  ChunkReader,
  FileSegmentSource,
  ReadAheadSegmentSource,
  type SegmentByteSource,
} from './chunk_reader.js';
import { isDeleted, isSubrange, type Interval } from './intervals.js';
import { readBlockMeta, type BlockMeta } from './meta.js';
import { readTombstones, type Tombstones } from './tombstones.js';
import { ChunkSeriesIterator, type BlockSeries, type SeriesChunks } from './series_set.js';

export interface BlockReaderDeps {
  fs: FileSystem;
}

export interface BlockOpenOptions {
  /**
   * For one in-order walk of every series (a compaction): the index and the segments are
   * read through bounded read-ahead windows (1 MiB per file), so a series entry or a chunk
   * is not a file read of its own. Off for queries, which read only the ranges they need.
   */
  readAhead?: boolean;
}

/** The parts a block reader works on; `close` releases whatever they hold open. */
export interface BlockParts {
  meta: BlockMeta;
  index: ByteSource;
  segments: SegmentByteSource;
  tombstones: Tombstones;
  close?: () => Promise<void>;
}

export class BlockReader {
  readonly meta: BlockMeta;
  readonly tombstones: Tombstones;
  private readonly chunkReader: ChunkReader;
  private closed = false;

  private constructor(
    private readonly index: IndexReader,
    private readonly parts: BlockParts,
  ) {
    this.meta = parts.meta;
    this.tombstones = parts.tombstones;
    this.chunkReader = new ChunkReader(parts.segments);
  }

  /** Opens the block in directory `dir` on the FileSystem. */
  static async open(
    dir: string,
    deps: BlockReaderDeps,
    opts: BlockOpenOptions = {},
  ): Promise<BlockReader> {
    const meta = await readBlockMeta(dir, deps);
    const { tombstones } = await readTombstones(dir, deps);
    const index = await openFileSource(deps.fs, `${dir}/index`);
    let segments: FileSegmentSource;
    try {
      segments = await FileSegmentSource.open(`${dir}/chunks`, deps);
    } catch (err) {
      await index.close();
      throw err;
    }
    const close = async (): Promise<void> => {
      await index.close();
      await segments.close();
    };
    try {
      return await BlockReader.fromParts(
        opts.readAhead === true
          ? {
              meta,
              index: readAheadSource(index),
              segments: new ReadAheadSegmentSource(segments),
              tombstones,
              close,
            }
          : { meta, index, segments, tombstones, close },
      );
    } catch (err) {
      await close();
      throw err;
    }
  }

  /** A reader over already opened parts (e.g. byte ranges of a block in object storage). */
  static async fromParts(parts: BlockParts): Promise<BlockReader> {
    return new BlockReader(await IndexReader.open(parts.index), parts);
  }

  /**
   * The series matching every matcher that have a chunk overlapping [mint, maxt] (inclusive)
   * not wholly deleted, sorted by labels. Each series' chunks are read when it is reached; its
   * iterator yields the non-deleted samples in [mint, maxt]. As in Prometheus, a series whose
   * chunks overlap the range may still yield no sample (none falls inside, or all deleted).
   */
  async *select(
    matchers: readonly Matcher[],
    mint: number,
    maxt: number,
  ): AsyncGenerator<BlockSeries> {
    this.checkOpen();
    // Block series IDs increase with the label order, so postings order is label order.
    const refs = await postingsForMatchers(this.index, matchers);
    for (const ref of refs) {
      const entry = await this.index.series(ref);
      const deleted = this.tombstones.get(ref);
      const metas: ChunkMeta[] = [];
      for (const c of entry.chunks) {
        if (c.maxTime < mint || c.minTime > maxt) continue;
        if (deleted.length > 0 && isSubrange({ mint: c.minTime, maxt: c.maxTime }, deleted)) {
          continue;
        }
        metas.push(c);
      }
      if (metas.length === 0) continue;
      const chunks: Chunk[] = [];
      for (const m of metas) chunks.push(await this.chunkReader.chunk(m.ref));
      yield {
        labels: entry.labels,
        ref,
        chunks: metas,
        iterator: () => new ChunkSeriesIterator(chunks, mint, maxt, deleted),
      };
    }
  }

  /**
   * The chunks of the series matching every matcher overlapping [mint, maxt], sorted by
   * labels, encoded as stored (chunk-streaming reads). A chunk partly covered by tombstones
   * is re-encoded without its deleted samples; a wholly deleted one is left out.
   */
  async *selectChunks(
    matchers: readonly Matcher[],
    mint: number,
    maxt: number,
  ): AsyncGenerator<SeriesChunks> {
    this.checkOpen();
    const refs = await postingsForMatchers(this.index, matchers);
    for (const ref of refs) {
      const entry = await this.index.series(ref);
      const deleted = this.tombstones.get(ref);
      const chunks: RawChunk[] = [];
      for (const m of entry.chunks) {
        if (m.maxTime < mint || m.minTime > maxt) continue;
        if (deleted.length > 0 && isSubrange({ mint: m.minTime, maxt: m.maxTime }, deleted)) {
          continue;
        }
        const chunk = await this.chunkReader.chunk(m.ref);
        const raw = {
          minTime: m.minTime,
          maxTime: m.maxTime,
          encoding: chunk.encoding(),
          data: chunk.bytes(),
        };
        if (deleted.length === 0) chunks.push(raw);
        else {
          const kept = withoutDeleted(chunk, deleted);
          if (kept !== null) chunks.push(kept);
        }
      }
      if (chunks.length > 0) yield { labels: entry.labels, chunks };
    }
  }

  /** The index's symbol table in its (sorted) order, decoded one symbol at a time. */
  symbols(): Generator<string> {
    this.checkOpen();
    return this.index.iterateSymbols();
  }

  /** Label names of the series matching `matchers` (all names without matchers), sorted. */
  async labelNames(matchers: readonly Matcher[] = []): Promise<string[]> {
    this.checkOpen();
    if (matchers.length === 0) return this.index.labelNames();
    const names = new Set<string>();
    for (const ref of await postingsForMatchers(this.index, matchers)) {
      (await this.index.series(ref)).labels.forEach((name) => names.add(name));
    }
    return [...names].sort(compareGoStrings);
  }

  /** Values of label `name` among the series matching `matchers` (all without), sorted. */
  async labelValues(name: string, matchers: readonly Matcher[] = []): Promise<string[]> {
    this.checkOpen();
    if (matchers.length === 0) return this.index.labelValues(name);
    const values = new Set<string>();
    for (const ref of await postingsForMatchers(this.index, matchers)) {
      const labels = (await this.index.series(ref)).labels;
      if (labels.has(name)) values.add(labels.get(name));
    }
    return [...values].sort(compareGoStrings);
  }

  /** Releases the open files. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.parts.close?.();
  }

  private checkOpen(): void {
    if (this.closed) throw new Error(`block ${this.meta.ulid} is closed`);
  }
}

/** `chunk` re-encoded without the samples in `deleted`; null when none is left. */
function withoutDeleted(chunk: Chunk, deleted: readonly Interval[]): RawChunk | null {
  const out = new XorChunk();
  const app = out.appender();
  const it = chunk.iterator();
  let minTime = 0;
  let maxTime = 0;
  let n = 0;
  while (it.next() !== ValueType.None) {
    const t = it.atT();
    if (isDeleted(deleted, t)) continue;
    if (n === 0) minTime = t;
    maxTime = t;
    app.append(t, it.atF());
    n++;
  }
  const err = it.err();
  if (err !== null) throw err;
  return n === 0 ? null : { minTime, maxTime, encoding: Encoding.XOR, data: out.bytes() };
}
