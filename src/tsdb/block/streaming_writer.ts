// Writes a block one series at a time, for compaction: the symbols first (sorted, unique, e.g.
// the merged symbol tables of the sources), then each series in label order as a sample
// iterator whose samples are cut into chunks and written as they come, so memory holds one
// series' encoded chunks, never a block's samples. The files are those writeBlock writes (same
// chunk cutting, segment cuts, index, empty tombstones, meta.json with exact index_stats) in
// `<ulid>.tmp-for-creation`, fsynced and renamed to `<ulid>` on finish; a block that got no
// sample is never renamed into place.

import type { Labels } from '../../model/index.js';
import type { Clock, FileSystem, RandomStream } from '../../runtime/index.js';
import { ValueType } from '../chunkenc/index.js';
import { IndexWriter, type ChunkMeta } from '../index/index.js';
import {
  BlockWriteError,
  checkLineage,
  copyLineage,
  storedChunkSize,
  TMP_FOR_CREATION_SUFFIX,
  type WriteBlockOptions,
} from './block_writer.js';
import { SeriesChunkCutter } from './chunk_cutter.js';
import { ChunkWriter } from './chunk_writer.js';
import { BlockSource, META_VERSION_1, writeBlockMeta, type BlockMeta } from './meta.js';
import type { SeriesSampleIterator } from './series_set.js';
import { Tombstones, writeTombstones } from './tombstones.js';
import { UlidGenerator } from './ulid.js';

export interface StreamingBlockWriterDeps {
  fs: FileSystem;
  clock: Clock;
  /** Entropy of the block's ULID. */
  random: RandomStream;
}

/** The block's [minTime, maxTime) must be known up front: a compaction spans its sources. */
export type StreamingWriteOptions = Omit<WriteBlockOptions, 'meta'> & {
  meta: NonNullable<WriteBlockOptions['meta']> & { minTime: number; maxTime: number };
};

export class StreamingBlockWriter {
  private readonly cutter: SeriesChunkCutter;
  private seriesRef = 0;
  private numSeries = 0;
  private numSamples = 0;
  private numChunks = 0;
  private chunkMaxSize = 0;
  private done = false;

  private constructor(
    /** The new block's ULID; the block will be `<dir>/<ulid>`. */
    readonly ulid: string,
    private readonly dir: string,
    private readonly tmp: string,
    private readonly chunkWriter: ChunkWriter,
    private readonly indexWriter: IndexWriter,
    private readonly opts: StreamingWriteOptions,
    private readonly deps: StreamingBlockWriterDeps,
  ) {
    this.cutter = new SeriesChunkCutter(opts);
  }

  /** Starts a block under `dir` (the directory holding blocks). */
  static async create(
    dir: string,
    opts: StreamingWriteOptions,
    deps: StreamingBlockWriterDeps,
  ): Promise<StreamingBlockWriter> {
    const { minTime, maxTime } = opts.meta;
    if (!Number.isSafeInteger(minTime) || !Number.isSafeInteger(maxTime) || maxTime <= minTime) {
      throw new BlockWriteError(`block range [${minTime}, ${maxTime}) is not a valid range`);
    }
    if (opts.meta.compaction !== undefined) checkLineage(opts.meta.compaction);
    const ulid = new UlidGenerator({}, { clock: deps.clock, random: deps.random }).next();
    const tmp = `${dir}/${ulid}${TMP_FOR_CREATION_SUFFIX}`;
    await deps.fs.mkdir(dir, { recursive: true });
    await deps.fs.remove(tmp, { recursive: true });
    await deps.fs.mkdir(tmp, { recursive: true });
    const chunkWriter = await ChunkWriter.create(
      `${tmp}/chunks`,
      opts.segmentSize === undefined ? {} : { segmentSize: opts.segmentSize },
      { fs: deps.fs },
    );
    const indexWriter = new IndexWriter({ path: `${tmp}/index` }, { fs: deps.fs });
    return new StreamingBlockWriter(ulid, dir, tmp, chunkWriter, indexWriter, opts, deps);
  }

  /** Adds the symbol table: every label name and value of the series to come, sorted, unique. */
  async addSymbols(sorted: Iterable<string>): Promise<void> {
    for (const s of sorted) await this.indexWriter.addSymbol(s);
  }

  /**
   * Adds the next series (in label order) with the samples of `samples` inside the block's
   * range. Returns how many samples it got; a series without any is left out.
   */
  async addSeries(labels: Labels, samples: SeriesSampleIterator): Promise<number> {
    const { minTime, maxTime } = this.opts.meta;
    let prev = Number.NEGATIVE_INFINITY;
    while (samples.next() !== ValueType.None) {
      const t = samples.atT();
      if (!Number.isSafeInteger(t) || t <= prev || t < minTime || t >= maxTime) {
        throw new BlockWriteError(
          `series ${labels.toString()}: sample timestamp ${t} is not after ${prev} inside [${minTime}, ${maxTime})`,
        );
      }
      prev = t;
      this.cutter.append(t, samples.atF());
    }
    const err = samples.err();
    if (err !== null) {
      this.cutter.finish();
      throw new Error(`reading series ${labels.toString()}: ${err.message}`, { cause: err });
    }
    const cut = this.cutter.finish();
    if (cut.numSamples === 0) return 0;
    for (const c of cut.chunks) this.chunkMaxSize = Math.max(this.chunkMaxSize, storedChunkSize(c));
    // One writeChunks call per series, as Prometheus's populateBlock: segment cuts depend on it.
    const refs = await this.chunkWriter.writeChunks(cut.chunks);
    for (let c = 0; c < refs.length; c++) (cut.metas[c] as ChunkMeta).ref = refs[c] as number;
    await this.indexWriter.addSeries(this.seriesRef++, labels, cut.metas);
    this.numSeries++;
    this.numSamples += cut.numSamples;
    this.numChunks += cut.metas.length;
    return cut.numSamples;
  }

  /**
   * Closes the files and, when the block got a sample, writes meta.json and moves the block
   * into place; returns its meta. Without any sample it removes the unfinished block and
   * returns null.
   */
  async finish(): Promise<BlockMeta | null> {
    this.checkOpen();
    this.done = true;
    await this.chunkWriter.close();
    await this.indexWriter.close();
    if (this.numSeries === 0) {
      await this.deps.fs.remove(this.tmp, { recursive: true });
      return null;
    }
    const { opts } = this;
    const lineage = opts.meta.compaction;
    const meta: BlockMeta = {
      ulid: this.ulid,
      minTime: opts.meta.minTime,
      maxTime: opts.meta.maxTime,
      stats: {
        numSamples: this.numSamples,
        numSeries: this.numSeries,
        numChunks: this.numChunks,
        numTombstones: 0,
      },
      compaction: lineage === undefined ? { level: 1, sources: [this.ulid] } : copyLineage(lineage),
      version: META_VERSION_1,
    };
    const hints = opts.meta.hints;
    if (hints !== undefined && hints.length > 0) meta.compaction.hints = [...hints];
    if (opts.thanos !== undefined) {
      meta.thanos = {
        labels: { ...opts.thanos.labels },
        downsample: { resolution: 0 },
        source: opts.thanos.source ?? BlockSource.Receive,
        index_stats: {
          series_max_size: this.indexWriter.seriesMaxSize,
          chunk_max_size: this.chunkMaxSize,
        },
      };
    }
    const finalDir = `${this.dir}/${this.ulid}`;
    await writeBlockMeta(this.tmp, meta, { fs: this.deps.fs });
    await writeTombstones(this.tmp, new Tombstones(), { fs: this.deps.fs });
    await this.deps.fs.syncDir(this.tmp);
    await this.deps.fs.rename(this.tmp, finalDir);
    await this.deps.fs.syncDir(this.dir);
    return meta;
  }

  /** Drops the unfinished block (after a failure). Idempotent. */
  async abort(): Promise<void> {
    if (this.done) return;
    this.done = true;
    // Closing releases the file handles; what the files hold no longer matters.
    await this.chunkWriter.close().catch(() => undefined);
    await this.indexWriter.close().catch(() => undefined);
    await this.deps.fs.remove(this.tmp, { recursive: true });
  }

  private checkOpen(): void {
    if (this.done) throw new BlockWriteError(`block ${this.ulid} is already finished`);
  }
}
