// What a block query returns: one series with the metas of its chunks that touch the queried
// range, and an iterator over its samples that stays inside [mint, maxt] and skips deleted
// (tombstoned) samples, as Prometheus's populateWithDelSeriesIterator does. The iterator is
// synchronous and allocation-free per sample: the chunks are loaded before the series is
// handed out.

import type { Labels } from '../../model/index.js';
import { ValueType, type Chunk, type ChunkIterator, type RawChunk } from '../chunkenc/index.js';
import type { ChunkMeta } from '../index/index.js';
import { isDeleted, type Interval } from './intervals.js';

/** A series selected from a block. */
export interface BlockSeries {
  readonly labels: Labels;
  /** The series ID in the block's index. */
  readonly ref: number;
  /** Metas of the chunks overlapping the queried range and not wholly deleted, in time order. */
  readonly chunks: readonly ChunkMeta[];
  /** A fresh iterator over the samples in the queried range that are not deleted. */
  iterator(): SeriesSampleIterator;
}

/** A series with its encoded chunks (any order, overlaps allowed), as chunk-streaming reads return it. */
export interface SeriesChunks {
  readonly labels: Labels;
  readonly chunks: readonly RawChunk[];
}

/** Walks a series' samples in time order (Prometheus chunkenc.Iterator over a whole series). */
export interface SeriesSampleIterator {
  /** ValueType.Float on a sample, ValueType.None at the end or on error (see err()). */
  next(): ValueType;
  /** Moves to the first sample at or after `t`; never moves backwards. */
  seek(t: number): ValueType;
  atT(): number;
  atF(): number;
  err(): Error | null;
}

/** Iterates loaded chunks within [mint, maxt], skipping tombstoned samples. */
export class ChunkSeriesIterator implements SeriesSampleIterator {
  private index = -1;
  private current: ChunkIterator | null = null;
  private done = false;
  private error: Error | null = null;
  private t = 0;
  private v = 0;

  constructor(
    private readonly chunks: readonly Chunk[],
    private readonly mint: number,
    private readonly maxt: number,
    private readonly deleted: readonly Interval[],
  ) {}

  next(): ValueType {
    if (this.done) return ValueType.None;
    for (;;) {
      if (this.current === null) {
        this.index++;
        const chunk = this.chunks[this.index];
        if (chunk === undefined) return this.finish(null);
        this.current = chunk.iterator();
        if (this.current.seek(this.mint) === ValueType.None) {
          if (this.current.err() !== null) return this.finish(this.current.err());
          this.current = null;
          continue;
        }
      } else if (this.current.next() === ValueType.None) {
        if (this.current.err() !== null) return this.finish(this.current.err());
        this.current = null;
        continue;
      }
      const t = this.current.atT();
      if (t > this.maxt) return this.finish(null);
      if (this.deleted.length > 0 && isDeleted(this.deleted, t)) continue;
      this.t = t;
      this.v = this.current.atF();
      return ValueType.Float;
    }
  }

  seek(t: number): ValueType {
    if (this.done) return ValueType.None;
    if (this.index >= 0 && this.current !== null && this.t >= t) return ValueType.Float;
    for (;;) {
      const r = this.next();
      if (r === ValueType.None || this.t >= t) return r;
    }
  }

  atT(): number {
    return this.t;
  }

  atF(): number {
    return this.v;
  }

  err(): Error | null {
    return this.error;
  }

  private finish(err: Error | null): ValueType {
    this.done = true;
    this.current = null;
    this.error = err;
    return ValueType.None;
  }
}
