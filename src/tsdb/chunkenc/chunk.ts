// The chunk abstraction shared by every encoding. Only XOR (float) chunks exist today; the
// interfaces are shaped like Prometheus's so that histogram chunks can be added as further
// implementations (plus appendHistogram/atHistogram members) without changing callers.

import { Encoding, encodingName, type ValueType } from './encoding.js';
import { XorChunk } from './xor.js';

/** A float sample as returned by `ChunkIterator.at()`. */
export interface FloatSample {
  readonly t: number;
  readonly v: number;
}

/** Appends samples to the end of a chunk. Timestamps are int64 milliseconds (safe integers). */
export interface ChunkAppender {
  append(t: number, v: number): void;
}

/**
 * Walks a chunk's samples in order (Prometheus chunkenc.Iterator). `next()` and `seek()` return
 * ValueType.None at the end or on error; `err()` then tells which. `atT()`/`atF()` read the
 * current sample without allocating; `at()` is a convenience that allocates.
 */
export interface ChunkIterator {
  next(): ValueType;
  /** Advances to the first sample with timestamp >= t; never moves backwards. */
  seek(t: number): ValueType;
  at(): FloatSample;
  atT(): number;
  atF(): number;
  err(): Error | null;
}

export interface Chunk {
  encoding(): Encoding;
  /** The encoded bytes, header included (a view: later appends may change or replace it). */
  bytes(): Uint8Array;
  numSamples(): number;
  /** The encoded size in bytes, header included; allocation-free (unlike `bytes().length`). */
  numBytes(): number;
  /**
   * An appender continuing after the last sample; its state is rebuilt by decoding the chunk.
   * Use one appender at a time: two appenders on one chunk corrupt it (as in Prometheus).
   */
  appender(): ChunkAppender;
  /** A fresh iterator, or `reuse` reset onto this chunk when it is of the right kind. */
  iterator(reuse?: ChunkIterator): ChunkIterator;
  /** Releases spare buffer capacity once no more samples will be appended. */
  compact(): void;
}

/**
 * Wraps encoded bytes (from a segment file, the index, the network) as a chunk of the given
 * encoding, without copying them (Prometheus chunkenc.FromData).
 */
export function chunkFromData(encoding: number, bytes: Uint8Array): Chunk {
  switch (encoding) {
    case Encoding.XOR:
      return XorChunk.fromBytes(bytes);
    case Encoding.Histogram:
    case Encoding.FloatHistogram:
      throw new RangeError(
        `chunk encoding ${encodingName(encoding)} (${encoding}) is not supported yet`,
      );
    default:
      throw new RangeError(`invalid chunk encoding ${encoding}`);
  }
}
