// Cuts one series' float samples into XOR chunks with the head's rules (decideFloatAppend),
// taking the samples one at a time: the whole-block writer feeds it a series' arrays, the
// streaming writer feeds it a merge iterator, and neither ever holds a series' samples in
// arrays. What it keeps is the series' encoded chunks (about 1–2 bytes a sample) until the
// series is finished, because Prometheus's chunk writer decides segment cuts per series.

import {
  DEFAULT_SAMPLES_PER_CHUNK,
  decideFloatAppend,
  Encoding,
  XorChunk,
  type ChunkAppender,
  type ChunkCutRules,
} from '../chunkenc/index.js';
import type { ChunkMeta } from '../index/index.js';
import type { ChunkToWrite } from './chunk_writer.js';

/** Prometheus's default (smallest) block range, 2h: the head's chunk range. */
export const DEFAULT_BLOCK_CHUNK_RANGE = 2 * 60 * 60 * 1000;

export interface ChunkCutterOptions {
  /** Chunk range of the cutting rule, ms (default 2h). */
  chunkRange?: number;
  /** Target samples per chunk (default 120). */
  samplesPerChunk?: number;
  /** Which Prometheus release's cutting rules to follow (default 'current'). */
  rules?: ChunkCutRules;
}

/** One series' chunks, ready for ChunkWriter.writeChunks and IndexWriter.addSeries. */
export interface CutSeries {
  chunks: ChunkToWrite[];
  /** Parallel to `chunks`; refs are filled in once the chunks are written. */
  metas: ChunkMeta[];
  numSamples: number;
}

/** A mutable OpenChunkState, reused across samples instead of one object per sample. */
interface OpenChunk {
  encoding: Encoding;
  minTime: number;
  maxTime: number;
  numSamples: number;
  numBytes: number;
}

/**
 * Incremental chunk cutting for one series at a time: `append` every sample in strictly
 * increasing time order, then `finish` to take the series' chunks and start the next series.
 */
export class SeriesChunkCutter {
  private readonly cut: { chunkRange: number; samplesPerChunk: number; rules: ChunkCutRules };
  private readonly sizeMatters: boolean;
  private readonly open: OpenChunk = {
    encoding: Encoding.XOR,
    minTime: 0,
    maxTime: 0,
    numSamples: 0,
    numBytes: 0,
  };
  private hasOpen = false;
  private chunk: XorChunk | null = null;
  private appender: ChunkAppender | null = null;
  private nextAt = Number.MIN_SAFE_INTEGER;
  private chunks: ChunkToWrite[] = [];
  private metas: ChunkMeta[] = [];
  private numSamples = 0;

  constructor(opts: ChunkCutterOptions = {}) {
    this.cut = {
      chunkRange: opts.chunkRange ?? DEFAULT_BLOCK_CHUNK_RANGE,
      samplesPerChunk: opts.samplesPerChunk ?? DEFAULT_SAMPLES_PER_CHUNK,
      rules: opts.rules ?? 'current',
    };
    // Only the 'current' rules look at the size (the 1024-byte cap); skip the view otherwise.
    this.sizeMatters = this.cut.rules !== 'v2.42';
  }

  /** Samples appended to the current series so far. */
  get samples(): number {
    return this.numSamples;
  }

  /** Appends a sample; the caller guarantees `t` is after the previous one of the series. */
  append(t: number, v: number): void {
    const d = decideFloatAppend(
      {
        openChunk: this.hasOpen ? this.open : null,
        lastCompletedMaxTime: null,
        nextAt: this.nextAt,
      },
      t,
      Encoding.XOR,
      this.cut,
    );
    this.nextAt = d.nextAt;
    if (d.cutNewChunk || this.appender === null) {
      this.finishChunk();
      this.chunk = new XorChunk();
      this.appender = this.chunk.appender();
      this.open.minTime = t;
      this.open.numSamples = 0;
      this.hasOpen = true;
    }
    this.appender.append(t, v);
    this.open.maxTime = t;
    this.open.numSamples++;
    this.numSamples++;
    if (this.sizeMatters) this.open.numBytes = (this.chunk as XorChunk).bytes().length;
  }

  /** The current series' chunks; the cutter is then ready for the next series. */
  finish(): CutSeries {
    this.finishChunk();
    const out: CutSeries = { chunks: this.chunks, metas: this.metas, numSamples: this.numSamples };
    this.chunks = [];
    this.metas = [];
    this.numSamples = 0;
    this.hasOpen = false;
    this.chunk = null;
    this.appender = null;
    this.nextAt = Number.MIN_SAFE_INTEGER;
    return out;
  }

  private finishChunk(): void {
    if (this.chunk === null) return;
    this.chunk.compact();
    this.chunks.push({ encoding: Encoding.XOR, data: this.chunk.bytes() });
    this.metas.push({ minTime: this.open.minTime, maxTime: this.open.maxTime, ref: 0 });
    this.chunk = null;
  }
}
