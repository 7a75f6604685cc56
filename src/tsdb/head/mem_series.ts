// One series in the head (Prometheus memSeries): its labels, its completed in-memory chunks
// and the open chunk samples are appended to. Sample values live only inside chunk bytes and
// the last value as two uint32 words, never in a JavaScript number array, so NaN payloads
// such as the stale marker keep their exact bits.
import type { Labels } from '../../model/index.js';
import {
  EMPTY_CHUNK_MAX_TIME,
  Encoding,
  XorChunk,
  decideFloatAppend,
  type ChunkCutOptions,
  type OpenChunkState,
  type XorAppender,
} from '../chunkenc/index.js';

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
}

/** A chunk that will receive no more samples, with its time range. */
export interface CompletedChunk {
  readonly chunk: XorChunk;
  readonly minTime: number;
  readonly maxTime: number;
}

export class MemSeries {
  readonly completed: CompletedChunk[] = [];
  private open: XorChunk | null = null;
  private openAppender: XorAppender | null = null;
  private openMinTime = 0;
  private openMaxTime = EMPTY_CHUNK_MAX_TIME;
  private nextAt = Number.MIN_SAFE_INTEGER;
  /** Bits of the newest sample's value (for the duplicate check). */
  lastValueHi = 0;
  lastValueLo = 0;
  /** Whether a series record for this series is in the WAL (or a checkpoint) already. */
  logged = false;

  constructor(
    readonly ref: number,
    readonly labels: Labels,
  ) {}

  /** Timestamp of the newest sample, or EMPTY_CHUNK_MAX_TIME without samples. */
  maxTime(): number {
    if (this.open !== null) return this.openMaxTime;
    const last = this.completed[this.completed.length - 1];
    return last === undefined ? EMPTY_CHUNK_MAX_TIME : last.maxTime;
  }

  /** Timestamp of the oldest sample, or undefined without samples. */
  minTime(): number | undefined {
    const first = this.completed[0];
    if (first !== undefined) return first.minTime;
    return this.open === null ? undefined : this.openMinTime;
  }

  hasSamples(): boolean {
    return this.open !== null || this.completed.length > 0;
  }

  /** The open chunk and its range, or null. */
  openChunk(): CompletedChunk | null {
    if (this.open === null) return null;
    return { chunk: this.open, minTime: this.openMinTime, maxTime: this.openMaxTime };
  }

  /**
   * Appends a sample after the newest one, cutting chunks by Prometheus's rules. Returns
   * false (and changes nothing) if t is not after the newest sample; whether that is a
   * duplicate or an error is the caller's business. Returns 'cut' when a chunk was opened.
   */
  append(
    t: number,
    v: number,
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
      if (open !== null) {
        open.compact();
        this.completed.push({ chunk: open, minTime: this.openMinTime, maxTime: this.openMaxTime });
      }
      this.open = new XorChunk();
      this.openAppender = this.open.appender();
      this.openMinTime = t;
    }
    this.nextAt = decision.nextAt;
    (this.openAppender as XorAppender).append(t, v);
    this.openMaxTime = t;
    this.lastValueHi = hi;
    this.lastValueLo = lo;
    return decision.cutNewChunk ? 'cut' : 'ok';
  }

  /**
   * Drops completed chunks ending before `mint`, and the open chunk too if it ends before
   * `mint` (the series then has no samples). Returns how many chunks were dropped.
   */
  truncateBefore(mint: number): number {
    let drop = 0;
    while (drop < this.completed.length && (this.completed[drop] as CompletedChunk).maxTime < mint)
      drop++;
    if (drop > 0) this.completed.splice(0, drop);
    if (this.completed.length === 0 && this.open !== null && this.openMaxTime < mint) {
      // Every sample is before mint: the head removes the series now.
      this.open = null;
      this.openAppender = null;
      drop++;
    }
    return drop;
  }
}
