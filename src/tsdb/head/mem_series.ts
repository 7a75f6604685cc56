// One series in the head (Prometheus memSeries): its labels, its completed in-memory chunks,
// the open chunk in-order samples are appended to, and (with an out-of-order window) its
// out-of-order buffer and chunks. Sample values live only inside chunk bytes and
// the last value as two uint32 words, never in a JavaScript number array, so NaN payloads
// such as the stale marker keep their exact bits.
import type { Labels } from '../../model/index.js';
import {
  EMPTY_CHUNK_MAX_TIME,
  Encoding,
  MAX_BYTES_PER_XOR_CHUNK,
  MAX_XOR_SAMPLE_BYTES,
  XorChunk,
  XorIterator,
  decideFloatAppend,
  type ChunkCutOptions,
  type OpenChunkState,
  type RawChunk,
  type XorAppender,
} from '../chunkenc/index.js';
import { FloatBits } from './float_words.js';
import { OOOBuffer, findInChunk, type OOOChunk } from './ooo_chunk.js';
import { COMPLETED_BLOCK_BYTES, SharedArena } from './shared_arena.js';

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/**
 * The input objects of decideFloatAppend, reused across appends (one per head) so that the
 * append path does not allocate them per sample.
 */
export class AppendScratch {
  readonly open: Mutable<OpenChunkState> = {
    encoding: Encoding.XOR,
    minTime: 0,
    maxTime: 0,
    numSamples: 0,
    numBytes: 0,
  };
  readonly state: {
    openChunk: OpenChunkState | null;
    lastCompletedMaxTime: number | null;
    nextAt: number;
  } = { openChunk: null, lastCompletedMaxTime: null, nextAt: 0 };
  /** For out-of-order duplicate checks: the value bits found, and a reusable iterator. */
  readonly found = { hi: 0, lo: 0 };
  readonly iterator = new XorIterator(new Uint8Array([0, 0]));
  /**
   * Splits appended values into their words: one per head rather than per appender (an
   * appender per push), which is safe as every use is within one synchronous append call.
   */
  readonly bits = new FloatBits();
  /** Where completed chunks' bytes go: shared memory, read by evaluation threads in place. */
  readonly completedBytes = new SharedArena(COMPLETED_BLOCK_BYTES);
  readonly placeCompleted = (bytes: Uint8Array): Uint8Array => this.completedBytes.copy(bytes);
}

/** A series' out-of-order data: chunks cut from the buffer (oldest cut first) and the buffer. */
export interface OOOData {
  readonly chunks: OOOChunk[];
  buffer: OOOBuffer | null;
}

/** A head chunk with its time range. */
export interface HeadChunk {
  readonly chunk: XorChunk;
  readonly minTime: number;
  readonly maxTime: number;
}

/**
 * A chunk that will receive no more samples. It is also the RawChunk a chunk-streaming
 * select sends (its final bytes never change): no object per chunk per query.
 */
export interface CompletedChunk extends HeadChunk, RawChunk {}

export class MemSeries {
  readonly completed: CompletedChunk[] = [];
  private open: XorChunk | null = null;
  private openAppender: XorAppender | null = null;
  private openMinTime = 0;
  // The open chunk's newest timestamp, sample count and newest value bits are read from its
  // appender rather than kept here too: the commit path then writes one object per sample.
  private nextAt = Number.MIN_SAFE_INTEGER;
  /** Whether a series record for this series is in the WAL (or a checkpoint) already. */
  logged = false;
  /**
   * @internal The appender holding uncommitted samples of this series (0: none) and the
   * index of the newest of them in its batch: saves the appender a map lookup per sample.
   */
  appendId = 0;
  appendIndex = 0;
  /** Out-of-order data, allocated on the first out-of-order sample. */
  ooo: OOOData | null = null;
  /**
   * @internal The identity token of the head holding this series (see Head.seriesByLabels),
   * undefined before it enters one and after it leaves.
   */
  owner: object | undefined = undefined;

  constructor(
    readonly ref: number,
    readonly labels: Labels,
  ) {}

  /** Bits of the newest in-order sample's value (for the duplicate check; 0 without one). */
  get lastValueHi(): number {
    return this.openAppender === null ? 0 : this.openAppender.lastValueHi();
  }

  get lastValueLo(): number {
    return this.openAppender === null ? 0 : this.openAppender.lastValueLo();
  }

  private get openMaxTime(): number {
    return this.openAppender === null ? EMPTY_CHUNK_MAX_TIME : this.openAppender.lastTimestamp();
  }

  /** Timestamp of the newest in-order sample, or EMPTY_CHUNK_MAX_TIME without samples. */
  maxTime(): number {
    if (this.open !== null) return this.openMaxTime;
    const last = this.completed[this.completed.length - 1];
    return last === undefined ? EMPTY_CHUNK_MAX_TIME : last.maxTime;
  }

  /** Timestamp of the oldest in-order sample, or undefined without in-order samples. */
  minTime(): number | undefined {
    const first = this.completed[0];
    if (first !== undefined) return first.minTime;
    return this.open === null ? undefined : this.openMinTime;
  }

  hasSamples(): boolean {
    return this.open !== null || this.completed.length > 0;
  }

  /** Whether the series holds out-of-order samples (in chunks or in the buffer). */
  hasOOOSamples(): boolean {
    const ooo = this.ooo;
    return ooo !== null && (ooo.chunks.length > 0 || (ooo.buffer?.length ?? 0) > 0);
  }

  /** The open chunk and its range, or null. */
  openChunk(): HeadChunk | null {
    if (this.open === null) return null;
    return { chunk: this.open, minTime: this.openMinTime, maxTime: this.openMaxTime };
  }

  /**
   * Appends a sample after the newest one, cutting chunks by Prometheus's rules. Returns
   * false (and changes nothing) if t is not after the newest sample; whether that is a
   * duplicate or an error is the caller's business. Returns 'cut' when a chunk was opened.
   * `hi`/`lo` are the value's bits.
   */
  append(
    t: number,
    hi: number,
    lo: number,
    opts: ChunkCutOptions,
    scratch: AppendScratch,
  ): false | 'ok' | 'cut' {
    const app = this.openAppender;
    // The common case in a few comparisons: the same outcome decideFloatAppend reaches when
    // no rule fires (no cut, no end-time prediction, nextAt unchanged). It touches only this
    // object and the appender: at 10k+ series, cache misses are most of the cost.
    if (app !== null && t < this.nextAt && t > app.lastTimestamp()) {
      const n = app.numSamples();
      const spc = opts.samplesPerChunk;
      if (
        n !== 0 &&
        n !== Math.trunc(spc / 4) &&
        n < 2 * spc &&
        (opts.rules === 'v2.42' || app.numBytes() <= MAX_BYTES_PER_XOR_CHUNK - MAX_XOR_SAMPLE_BYTES)
      ) {
        app.appendBits(t, hi, lo);
        return 'ok';
      }
    }
    return this.appendSlow(t, hi, lo, opts, scratch);
  }

  private appendSlow(
    t: number,
    hi: number,
    lo: number,
    opts: ChunkCutOptions,
    scratch: AppendScratch,
  ): false | 'ok' | 'cut' {
    const open = this.open;
    const last = this.completed[this.completed.length - 1];
    const state = scratch.state;
    if (open === null) {
      state.openChunk = null;
    } else {
      const o = scratch.open;
      o.minTime = this.openMinTime;
      o.maxTime = this.openMaxTime;
      o.numSamples = open.numSamples();
      o.numBytes = open.numBytes();
      state.openChunk = o;
    }
    state.lastCompletedMaxTime = last === undefined ? null : last.maxTime;
    state.nextAt = this.nextAt;
    const decision = decideFloatAppend(state, t, Encoding.XOR, opts);
    if (!decision.inOrder) return false;
    if (decision.cutNewChunk) {
      // The open chunk's bytes are only ever handed out as copies (head_read), so the buffer
      // it wrote into can take the next chunk: no regrowing from 128 bytes per chunk.
      let spare: Uint8Array | undefined;
      if (open !== null) {
        spare = open.compact(scratch.placeCompleted);
        this.completed.push({
          chunk: open,
          minTime: this.openMinTime,
          maxTime: this.openMaxTime,
          encoding: Encoding.XOR,
          data: open.bytes(),
        });
      }
      this.open = new XorChunk(undefined, spare);
      this.openAppender = this.open.appender();
      this.openMinTime = t;
    }
    this.nextAt = decision.nextAt;
    (this.openAppender as XorAppender).appendBits(t, hi, lo);
    return decision.cutNewChunk ? 'cut' : 'ok';
  }

  /**
   * Looks for a sample at exactly `t` among all of the series' samples (in-order chunks,
   * out-of-order chunks and buffer); if there is one, its value bits go to `scratch.found`.
   * Decodes chunks, so it is for the out-of-order path only.
   */
  findSample(t: number, scratch: AppendScratch): boolean {
    const out = scratch.found;
    const ooo = this.ooo;
    if (ooo !== null) {
      const buf = ooo.buffer;
      if (buf !== null) {
        const i = buf.search(t);
        if (i < buf.length && buf.timestamps[i] === t) {
          out.hi = buf.words[2 * i] as number;
          out.lo = buf.words[2 * i + 1] as number;
          return true;
        }
      }
      for (const c of ooo.chunks)
        if (
          t >= c.minTime &&
          t <= c.maxTime &&
          findInChunk(scratch.iterator, c.chunk.bytes(), t, out)
        )
          return true;
    }
    for (const c of this.completed)
      if (
        t >= c.minTime &&
        t <= c.maxTime &&
        findInChunk(scratch.iterator, c.chunk.bytes(), t, out)
      )
        return true;
    const open = this.open;
    return (
      open !== null &&
      t >= this.openMinTime &&
      t <= this.openMaxTime &&
      findInChunk(scratch.iterator, open.bytes(), t, out)
    );
  }

  /**
   * Inserts an out-of-order sample whose timestamp the series does not hold yet (see
   * findSample), cutting the buffer into a chunk first when it is full. Returns true when a
   * chunk was cut.
   */
  insertOOO(t: number, hi: number, lo: number, capMax: number, nextSeq: () => number): boolean {
    let ooo = this.ooo;
    if (ooo === null) {
      ooo = { chunks: [], buffer: null };
      this.ooo = ooo;
    }
    let cut = false;
    if (ooo.buffer !== null && ooo.buffer.full()) {
      this.cutOOOBuffer(nextSeq());
      cut = true;
    }
    ooo.buffer ??= new OOOBuffer(capMax);
    ooo.buffer.insert(t, hi, lo);
    return cut;
  }

  /** Turns the out-of-order buffer into a chunk numbered `seq` (no-op when it is empty). */
  cutOOOBuffer(seq: number): void {
    const ooo = this.ooo;
    const buf = ooo?.buffer;
    if (ooo === null || buf === null || buf === undefined || buf.length === 0) return;
    ooo.chunks.push({ chunk: buf.toChunk(), minTime: buf.minTime(), maxTime: buf.maxTime(), seq });
    ooo.buffer = null;
  }

  /** Drops out-of-order chunks numbered `seq` or lower (they are in blocks now). */
  truncateOOO(seq: number): number {
    const ooo = this.ooo;
    if (ooo === null) return 0;
    const before = ooo.chunks.length;
    const kept = ooo.chunks.filter((c) => c.seq > seq);
    ooo.chunks.length = 0;
    ooo.chunks.push(...kept);
    if (kept.length === 0 && (ooo.buffer === null || ooo.buffer.length === 0)) this.ooo = null;
    return before - kept.length;
  }

  /**
   * Drops completed chunks ending before `mint`, and the open chunk too if it ends before
   * `mint` (the series then has no in-order samples). Out-of-order data is left alone: it
   * leaves the head through out-of-order compaction. Returns how many chunks were dropped.
   */
  truncateBefore(mint: number): number {
    let drop = 0;
    while (drop < this.completed.length && (this.completed[drop] as CompletedChunk).maxTime < mint)
      drop++;
    if (drop > 0) this.completed.splice(0, drop);
    if (this.completed.length === 0 && this.open !== null && this.openMaxTime < mint) {
      // Every in-order sample is before mint.
      this.open = null;
      this.openAppender = null;
      drop++;
    }
    return drop;
  }
}
