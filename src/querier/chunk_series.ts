/**
 * Store-gateway series as the engine's StorageSeries: the chunks stay encoded until the
 * engine walks them, and only chunks overlapping the query window are ever decoded (a
 * chunk's own min/max times decide, so a chunk before a seek target is skipped unread).
 *
 * A series merged from several blocks carries overlapping chunks: the RF copies of one 2h
 * block hold the same samples, and a compacted block may overlap its not-yet-deleted
 * sources. The chunks are split into "lanes" of non-overlapping chunks (greedy interval
 * partitioning: each chunk joins the first lane it does not overlap); one lane is a plain
 * sequential walk, several are merged keeping each timestamp once. RF copies thus cost one
 * lane each, while the common single-block series stays a single sequential walk.
 */
import { Labels } from '../model/index.js';
import {
  SAMPLE_FLOAT,
  SAMPLE_NONE,
  type EncodedSeriesChunks,
  type SampleArrays,
  type SampleIterator,
  type StorageSeries,
} from '../promql/index.js';
import type { StoreChunk, StoreSeries } from '../storegateway/index.js';
import { ChunkSampleReader } from './chunk_samples.js';
import {
  Encoding,
  MergedSampleIterator,
  ValueType,
  XorIterator,
  type SeriesSampleIterator,
} from '../tsdb/index.js';

/**
 * A series whose chunks are decoded lazily within [mint, maxt] (inclusive, ms). The series
 * of one select share `reader`, whose blocks their bulk reads fill.
 */
export function storeSeriesToStorageSeries(
  series: StoreSeries,
  mint: number,
  maxt: number,
  reader?: ChunkSampleReader,
): StorageSeries {
  return new ChunkSeries(series.labels, series.chunks, mint, maxt, reader);
}

/**
 * One object per series, its methods on the prototype: a select makes thousands, and
 * closures per series cost several objects each for the collector to copy while the
 * select's series are alive.
 */
class ChunkSeries implements StorageSeries {
  /** Lanes are worked out on the first walk: a query may drop the series before that. */
  private lanes: (readonly StoreChunk[])[] | undefined;

  constructor(
    readonly labels: Labels,
    readonly chunks: readonly StoreChunk[],
    readonly mint: number,
    readonly maxt: number,
    private reader: ChunkSampleReader | undefined,
  ) {}

  /** The series itself holds `chunks`, `mint` and `maxt`. */
  get encoded(): EncodedSeriesChunks {
    return this;
  }

  iterator(): SampleIterator {
    return lanesIterator(this.lanesInRange(), this.mint, this.maxt);
  }

  samples(start: number, end: number): SampleArrays {
    return (this.reader ??= new ChunkSampleReader()).read(
      this.lanesInRange(),
      Math.max(start, this.mint),
      Math.min(end, this.maxt),
    );
  }

  newest(start: number, end: number): SampleArrays {
    return (this.reader ??= new ChunkSampleReader()).newest(
      this.lanesInRange(),
      Math.max(start, this.mint),
      Math.min(end, this.maxt),
    );
  }

  private lanesInRange(): (readonly StoreChunk[])[] {
    return (this.lanes ??= chunkLanes(this.chunks, this.mint, this.maxt));
  }
}

/** A fresh iterator over `chunks` (any order, overlaps allowed) within [mint, maxt]. */
export function storeChunksIterator(
  chunks: readonly StoreChunk[],
  mint: number,
  maxt: number,
): SampleIterator {
  return lanesIterator(chunkLanes(chunks, mint, maxt), mint, maxt);
}

/**
 * The chunks overlapping [mint, maxt], sorted by min time and partitioned into lanes whose
 * chunks do not overlap each other (a chunk starting at its predecessor's max time overlaps:
 * the two would both hold that timestamp).
 */
export function chunkLanes(
  chunks: readonly StoreChunk[],
  mint: number,
  maxt: number,
): (readonly StoreChunk[])[] {
  // The common case, one source's chunks (sorted and disjoint), is one lane: one pass, and
  // no copy when every chunk reaches into the window.
  let disjoint = true;
  let allInWindow = true;
  for (let i = 0; i < chunks.length; i++) {
    const c = chunks[i] as StoreChunk;
    if (c.maxTime < mint || c.minTime > maxt) allInWindow = false;
    if (i > 0 && c.minTime <= (chunks[i - 1] as StoreChunk).maxTime) {
      disjoint = false;
      break;
    }
  }
  if (disjoint) {
    const lane = allInWindow
      ? chunks
      : chunks.filter((c) => c.maxTime >= mint && c.minTime <= maxt);
    return lane.length === 0 ? [] : [lane];
  }
  const inWindow = chunks.filter((c) => c.maxTime >= mint && c.minTime <= maxt);
  // Stable: chunks with equal min times keep the store's order.
  inWindow.sort((a, b) => a.minTime - b.minTime);
  const lanes: StoreChunk[][] = [];
  const laneEnds: number[] = [];
  for (const chunk of inWindow) {
    let lane = 0;
    while (lane < lanes.length && (laneEnds[lane] as number) >= chunk.minTime) lane++;
    if (lane === lanes.length) {
      lanes.push([chunk]);
      laneEnds.push(chunk.maxTime);
    } else {
      (lanes[lane] as StoreChunk[]).push(chunk);
      laneEnds[lane] = chunk.maxTime;
    }
  }
  return lanes;
}

function lanesIterator(
  lanes: readonly (readonly StoreChunk[])[],
  mint: number,
  maxt: number,
): SampleIterator {
  if (lanes.length === 0) return EMPTY_ITERATOR;
  if (lanes.length === 1)
    return new ChunkLaneIterator(lanes[0] as readonly StoreChunk[], mint, maxt);
  return mergeSampleIterators(lanes.map((lane) => new ChunkLaneIterator(lane, mint, maxt)));
}

/**
 * The storage engine's k-way merge (Prometheus's chainSampleIterator: each timestamp once,
 * the earliest source's sample on ties) over the engine's iterators. The two iterator
 * protocols are the same numbers (SAMPLE_NONE = ValueType.None = 0, SAMPLE_FLOAT =
 * ValueType.Float = 1) and only floats exist, so the engine's iterators are the storage
 * engine's as they are; only their declared return type is wider.
 */
export function mergeSampleIterators(sources: readonly SampleIterator[]): SampleIterator {
  return new MergedSampleIterator(sources as readonly SeriesSampleIterator[]);
}

/**
 * Walks non-overlapping chunks sorted by time, within [mint, maxt]. One XOR decoder is
 * reset onto each chunk as it is reached, so a walk allocates per lane, never per chunk or
 * sample; `seek` skips every chunk ending before its target without touching its bytes.
 */
export class ChunkLaneIterator implements SampleIterator {
  private index = -1;
  private decoder: XorIterator | null = null;
  /** The decoder is positioned on a sample of `chunks[index]` inside the window. */
  private active = false;
  private done = false;
  private error: Error | null = null;

  constructor(
    private readonly chunks: readonly StoreChunk[],
    private readonly mint: number,
    private readonly maxt: number,
  ) {}

  next(): number {
    if (this.done) return SAMPLE_NONE;
    if (this.active) {
      const decoder = this.decoder as XorIterator;
      if (decoder.next() !== ValueType.None) return this.checkMax(decoder.atT());
      if (decoder.err() !== null) return this.finish(decoder.err());
      this.active = false;
    }
    return this.openFrom(this.mint);
  }

  seek(t: number): number {
    if (this.done) return SAMPLE_NONE;
    const target = Math.max(t, this.mint);
    if (this.active) {
      const decoder = this.decoder as XorIterator;
      if (decoder.atT() >= target) return SAMPLE_FLOAT;
      if ((this.chunks[this.index] as StoreChunk).maxTime >= target) {
        if (decoder.seek(target) !== ValueType.None) return this.checkMax(decoder.atT());
        if (decoder.err() !== null) return this.finish(decoder.err());
      }
      this.active = false;
    }
    return this.openFrom(target);
  }

  atT(): number {
    return (this.decoder as XorIterator).atT();
  }

  atF(): number {
    return (this.decoder as XorIterator).atF();
  }

  err(): Error | null {
    return this.error;
  }

  /** Moves to the first sample at or after `t` in the chunks after the current one. */
  private openFrom(t: number): number {
    for (;;) {
      this.index++;
      const chunk = this.chunks[this.index];
      if (chunk === undefined || chunk.minTime > this.maxt) return this.finish(null);
      if (chunk.maxTime < t) continue;
      if (chunk.encoding !== Encoding.XOR) {
        return this.finish(
          new Error(
            `unsupported chunk encoding ${chunk.encoding} (chunk ${chunk.minTime}-${chunk.maxTime})`,
          ),
        );
      }
      const data = chunk.data;
      if (this.decoder === null) this.decoder = new XorIterator(data);
      else this.decoder.reset(data);
      if (this.decoder.seek(t) === ValueType.None) {
        if (this.decoder.err() !== null) return this.finish(this.decoder.err());
        continue;
      }
      this.active = true;
      return this.checkMax(this.decoder.atT());
    }
  }

  private checkMax(t: number): number {
    return t > this.maxt ? this.finish(null) : SAMPLE_FLOAT;
  }

  private finish(err: Error | null): number {
    this.done = true;
    this.active = false;
    this.error = err;
    return SAMPLE_NONE;
  }
}

const EMPTY_ITERATOR: SampleIterator = {
  next: () => SAMPLE_NONE,
  seek: () => SAMPLE_NONE,
  atT: () => 0,
  atF: () => 0,
  err: () => null,
};

/**
 * Groups the series of several store answers by labels (each answer sorted by labels, as
 * the store-gateway promises): one series per label set with every answer's chunks, in
 * label order. The overlap between the copies is resolved when the chunks are walked.
 */
export function mergeStoreSeries(answers: readonly (readonly StoreSeries[])[]): StoreSeries[] {
  const all: StoreSeries[] = [];
  for (const list of answers) for (const s of list) all.push(s);
  if (answers.length <= 1) return all;
  // Stable: within a label set the answers keep their order.
  Labels.sortBy(all, (s) => s.labels);
  const out: StoreSeries[] = [];
  let i = 0;
  while (i < all.length) {
    const first = all[i] as StoreSeries;
    let j = i + 1;
    while (j < all.length && (all[j] as StoreSeries).labels.equals(first.labels)) j++;
    if (j === i + 1) out.push(first);
    else {
      const chunks: StoreChunk[] = [];
      for (let k = i; k < j; k++) chunks.push(...(all[k] as StoreSeries).chunks);
      out.push({ labels: first.labels, chunks });
    }
    i = j;
  }
  return out;
}
