// When the head cuts a new float chunk for a series: Prometheus's memSeries.appendPreprocessor
// and computeChunkEndTime (tsdb/head_append.go), as a pure function over the series' chunk
// state so that the head, WAL replay and the simulator's reference model share one rule.
//
// The rules, in order, for a sample at time t:
//   - no open chunk: out of order if t <= the last m-mapped chunk's max time, else open one;
//   - t <= the open chunk's max time: out of order (the caller decides what that means);
//   - the open chunk already exceeds 1024 - 19 bytes (room for one worst-case sample): cut
//     (not in Prometheus 2.42, see ChunkCutRules);
//   - the open chunk has another encoding: cut;
//   - at a quarter of the target sample count, predict the chunk end time so that the rest
//     of the chunk range splits into equally filled chunks;
//   - t reached the predicted end (at the latest the chunk-range boundary), or the chunk
//     holds twice the target count (the rate went up): cut.

import type { Encoding } from './encoding.js';
import { MAX_BYTES_PER_XOR_CHUNK, MAX_XOR_SAMPLE_BYTES } from './xor.js';

/** Prometheus's default target of samples per chunk (DefaultSamplesPerChunk). */
export const DEFAULT_SAMPLES_PER_CHUNK = 120;

/** Max time of a chunk with no samples yet (Prometheus uses math.MinInt64). */
export const EMPTY_CHUNK_MAX_TIME = Number.MIN_SAFE_INTEGER;

/** The series' open (head) chunk as the decision needs it. */
export interface OpenChunkState {
  readonly encoding: Encoding;
  readonly minTime: number;
  readonly maxTime: number;
  readonly numSamples: number;
  readonly numBytes: number;
}

export interface SeriesChunkState {
  /** The open chunk, or null if the series has none. */
  readonly openChunk: OpenChunkState | null;
  /** Max time of the newest m-mapped (completed) chunk, or null if there is none. */
  readonly lastCompletedMaxTime: number | null;
  /** Time at which the next chunk must start (memSeries.nextAt). */
  readonly nextAt: number;
}

/**
 * Which Prometheus release's rules to follow. 'current' is Prometheus main (the 1024-byte
 * cap, floating-point end-time prediction). 'v2.42' is Prometheus 2.42, the promtool that
 * Debian ships and that the compatibility tests compare blocks with: no byte cap, and the
 * end time predicted in integer arithmetic.
 */
export type ChunkCutRules = 'current' | 'v2.42';

export interface ChunkCutOptions {
  /**
   * Width of the chunk range, in ms: the head's smallest block range. (promtool's
   * create-blocks-from uses twice the block duration, so 4h for 2h blocks.)
   */
  readonly chunkRange: number;
  /** Target samples per chunk; Prometheus's default is DEFAULT_SAMPLES_PER_CHUNK. */
  readonly samplesPerChunk: number;
  /** Defaults to 'current'. */
  readonly rules?: ChunkCutRules;
}

export interface AppendDecision {
  /** False if t is not after the series' newest sample; nothing else applies then. */
  readonly inOrder: boolean;
  /** True if a new chunk starting at t must be opened before appending. */
  readonly cutNewChunk: boolean;
  /** The series' nextAt after this append. */
  readonly nextAt: number;
  /** Min time of the chunk that receives the sample (t itself for a new or empty chunk). */
  readonly chunkMinTime: number;
}

/** End of the chunk range containing t (Go's (t/width)*width + width, truncating division). */
export function rangeForTimestamp(t: number, width: number): number {
  // `%` truncates like Go's and is exact on doubles, unlike Math.trunc(t / width) * width.
  return t - (t % width) + width;
}

/**
 * Predicts the end time of a chunk that started at `start` and has reached `cur` while being
 * 1/ratioToFull full, so that the samples until `maxT` spread evenly over whole chunks.
 */
export function computeChunkEndTime(
  start: number,
  cur: number,
  maxT: number,
  ratioToFull: number,
): number {
  const n = (maxT - start) / ((cur - start + 1) * ratioToFull);
  if (n <= 1) return maxT;
  return Math.trunc(start + (maxT - start) / Math.floor(n));
}

/** Go's int64 division (truncating), exact for safe integers. */
function goDivide(a: number, b: number): number {
  return (a - (a % b)) / b;
}

/** computeChunkEndTime of Prometheus 2.42: integer arithmetic and a fixed quarter. */
export function computeChunkEndTimeV242(start: number, cur: number, maxT: number): number {
  const n = goDivide(maxT - start, (cur - start + 1) * 4);
  if (n <= 1) return maxT;
  return start + goDivide(maxT - start, n);
}

/** Decides how a float sample at time `t` is appended to a series (see the file comment). */
export function decideFloatAppend(
  state: SeriesChunkState,
  t: number,
  encoding: Encoding,
  options: ChunkCutOptions,
): AppendDecision {
  const { chunkRange, samplesPerChunk } = options;
  const legacy = options.rules === 'v2.42';
  let nextAt = state.nextAt;
  let chunk = state.openChunk;
  let created = false;

  if (chunk === null) {
    if (state.lastCompletedMaxTime !== null && state.lastCompletedMaxTime >= t) {
      return { inOrder: false, cutNewChunk: false, nextAt, chunkMinTime: t };
    }
    chunk = newChunk(t, encoding);
    created = true;
    nextAt = rangeForTimestamp(t, chunkRange);
  }

  if (chunk.maxTime >= t) {
    return { inOrder: false, cutNewChunk: created, nextAt, chunkMinTime: chunk.minTime };
  }

  const cut = (): void => {
    chunk = newChunk(t, encoding);
    created = true;
    nextAt = rangeForTimestamp(t, chunkRange);
  };

  // The next sample's size is unknown, so assume the worst case must still fit.
  if (!legacy && !created && chunk.numBytes > MAX_BYTES_PER_XOR_CHUNK - MAX_XOR_SAMPLE_BYTES) {
    cut();
  }
  if (chunk.encoding !== encoding) cut();

  const numSamples = chunk.numSamples;
  let minTime = chunk.minTime;
  if (numSamples === 0) {
    // A chunk restored empty (e.g. from a snapshot) starts at its first sample.
    minTime = t;
    nextAt = rangeForTimestamp(minTime, chunkRange);
  }
  if (numSamples === Math.trunc(samplesPerChunk / 4)) {
    nextAt = legacy
      ? computeChunkEndTimeV242(minTime, chunk.maxTime, nextAt)
      : computeChunkEndTime(minTime, chunk.maxTime, nextAt, 4);
  }
  if (t >= nextAt || numSamples >= samplesPerChunk * 2) {
    cut();
    minTime = t;
  }
  return { inOrder: true, cutNewChunk: created, nextAt, chunkMinTime: minTime };
}

function newChunk(t: number, encoding: Encoding): OpenChunkState {
  return { encoding, minTime: t, maxTime: EMPTY_CHUNK_MAX_TIME, numSamples: 0, numBytes: 2 };
}
