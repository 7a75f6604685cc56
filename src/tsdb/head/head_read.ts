// Reading the head (Prometheus head_read.go): the series behind a postings list with the
// chunks overlapping a time range, and an iterator over their samples within the range.
// The open chunk (and the out-of-order buffer, encoded) is copied at select time, so a reader
// sees a consistent snapshot while appends continue; completed chunks never change and are
// shared. A series with out-of-order data reads its in-order and out-of-order chunks merged
// by time (Prometheus's OOO head reader); the head never holds two samples at one timestamp.
import { Labels, sortByLabelsInSlices, type Pause } from '../../model/index.js';
import {
  MergedSampleIterator,
  type SeriesChunks,
  type SeriesSampleIterator,
} from '../block/index.js';
import {
  Encoding,
  ValueType,
  XorIterator,
  type FloatSample,
  type RawChunk,
} from '../chunkenc/index.js';
import type { CompletedChunk, HeadChunk, MemSeries } from './mem_series.js';
import { SharedArena } from './shared_arena.js';

/** A selected series: its ref, labels and samples in the selected range. */
export interface HeadSeries {
  readonly ref: number;
  readonly labels: Labels;
  /** A fresh iterator over the series' samples in [mint, maxt]. */
  iterator(): SeriesSampleIterator;
}

/** Which of a series' samples a head select reads. */
export interface SelectOptions {
  /** In-order samples are read from max(mint, inOrderMint) on; default mint. */
  readonly inOrderMint?: number;
  /** Whether out-of-order samples are read (default true); block cutting reads only in-order. */
  readonly outOfOrder?: boolean;
  /**
   * Where a chunk select over many series lets other work run (a query's select on the
   * ingester's event loop); without it the select runs in one go.
   */
  readonly pause?: Pause;
  /**
   * `false`: a chunk select answers in postings order (series refs ascending) instead of
   * sorting by labels, for a reader that does not merge it with another source.
   */
  readonly sorted?: boolean;
}

/** What an XOR iterator answers before its first sample (as one over no chunk would). */
const BEFORE_FIRST: FloatSample = Object.freeze({ t: Number.MIN_SAFE_INTEGER, v: 0 });

/**
 * Walks samples across a series' chunks, limited to [mint, maxt]. Same protocol as a
 * ChunkIterator: `next()`/`seek()` return ValueType.None at the end or on error (`err()`).
 */
export class HeadSampleIterator implements SeriesSampleIterator {
  /**
   * The chunk iterator, made on the first chunk (a query makes one of these per series) and
   * reset for the next ones; `BEFORE_FIRST` answers until then.
   */
  private it: XorIterator | null = null;
  private chunk = -1;
  private exhausted = false;

  constructor(
    private readonly chunks: readonly Uint8Array[],
    private readonly mint: number,
    private readonly maxt: number,
  ) {}

  next(): ValueType {
    if (this.exhausted) return ValueType.None;
    for (;;) {
      const it = this.it;
      if (it !== null) {
        if (it.next() !== ValueType.None) {
          const t = it.atT();
          if (t < this.mint) continue;
          if (t > this.maxt) return this.finish();
          return ValueType.Float;
        }
        if (it.err() !== null) return this.finish();
      }
      this.chunk++;
      const bytes = this.chunks[this.chunk];
      if (bytes === undefined) return this.finish();
      if (it === null) this.it = new XorIterator(bytes);
      else it.reset(bytes);
    }
  }

  /** Advances to the first sample at or after t (never backwards). */
  seek(t: number): ValueType {
    if (this.exhausted) return ValueType.None;
    if (this.it !== null && this.it.atT() >= t && this.it.err() === null) return ValueType.Float;
    while (this.next() !== ValueType.None) {
      if (this.atT() >= t) return ValueType.Float;
    }
    return ValueType.None;
  }

  atT(): number {
    return this.it === null ? BEFORE_FIRST.t : this.it.atT();
  }

  atF(): number {
    return this.it === null ? BEFORE_FIRST.v : this.it.atF();
  }

  at(): FloatSample {
    return this.it === null ? { ...BEFORE_FIRST } : this.it.at();
  }

  err(): Error | null {
    return this.it !== null && this.chunk < this.chunks.length ? this.it.err() : null;
  }

  private finish(): ValueType {
    this.exhausted = true;
    return ValueType.None;
  }
}

/** The chunk bytes of `series` overlapping [mint, maxt], oldest first. */
export function chunksInRange(series: MemSeries, mint: number, maxt: number): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (const c of series.completed) {
    if (c.maxTime >= mint && c.minTime <= maxt) out.push(c.chunk.bytes());
  }
  const open = series.openChunk();
  if (open !== null && open.maxTime >= mint && open.minTime <= maxt) {
    out.push(open.chunk.bytes().slice());
  }
  return out;
}

/** The out-of-order chunk bytes of `series` overlapping [mint, maxt], the buffer last. */
export function oooChunksInRange(series: MemSeries, mint: number, maxt: number): Uint8Array[] {
  const out: Uint8Array[] = [];
  const ooo = series.ooo;
  if (ooo === null) return out;
  for (const c of ooo.chunks) {
    if (c.maxTime >= mint && c.minTime <= maxt) out.push(c.chunk.bytes());
  }
  const buf = ooo.buffer;
  if (buf !== null && buf.length > 0 && buf.maxTime() >= mint && buf.minTime() <= maxt)
    out.push(buf.toChunk().bytes());
  return out;
}

/**
 * The chunks of the series of `refs` overlapping [mint, maxt] (in-order from `inOrderMint`
 * on, out-of-order over the whole range), sorted by labels (in the order of `refs` when
 * `opts.sorted` is false): what a chunk-streaming query sends. Completed chunks are shared
 * (they never change); the open chunk and the out-of-order buffer are snapshots. Chunks may
 * reach outside the range and overlap each other (out-of-order data); readers keep to the
 * range and each timestamp once.
 */
export async function selectSeriesChunks(
  refs: Uint32Array,
  lookup: (ref: number) => MemSeries | undefined,
  mint: number,
  maxt: number,
  opts: SelectOptions = {},
): Promise<SeriesChunks[]> {
  const out: SeriesChunks[] = [];
  const inOrderMint = Math.max(mint, opts.inOrderMint ?? mint);
  const snapshots = new SharedArena(SNAPSHOT_BLOCK);
  const pause = opts.pause;
  // Gathered here, then copied out at their exact length: an array grown by push holds room
  // for 17 chunks, and a heavy select's thousands of them are alive (copied by every
  // scavenge of the event loop's heap) until the query has packed them.
  const chunks: RawChunk[] = [];
  for (const ref of refs) {
    // Each series is read whole within one slice; appends between slices are not seen by
    // the series already read, and a truncation meanwhile makes the DB read again.
    if (pause?.due() === true) await pause.yield();
    const series = lookup(ref);
    if (series === undefined) continue;
    chunks.length = 0;
    if (inOrderMint <= maxt) {
      const completed = series.completed;
      for (let i = 0; i < completed.length; i++) {
        const c = completed[i] as CompletedChunk;
        // Shared as it is: a completed chunk is its own RawChunk.
        if (c.maxTime >= inOrderMint && c.minTime <= maxt) chunks.push(c);
      }
      const open = series.openChunk();
      if (open !== null && open.maxTime >= inOrderMint && open.minTime <= maxt)
        chunks.push(rawChunk(open, snapshots));
    }
    const ooo = series.ooo;
    if (ooo !== null && opts.outOfOrder !== false) {
      for (const c of ooo.chunks)
        if (c.maxTime >= mint && c.minTime <= maxt) chunks.push(rawChunk(c, null));
      const buf = ooo.buffer;
      if (buf !== null && buf.length > 0 && buf.maxTime() >= mint && buf.minTime() <= maxt) {
        const data = buf.toChunk().bytes();
        chunks.push({
          minTime: buf.minTime(),
          maxTime: buf.maxTime(),
          encoding: Encoding.XOR,
          data,
        });
      }
    }
    if (chunks.length > 0) out.push({ labels: series.labels, chunks: chunks.slice() });
  }
  if (opts.sorted === false) return out;
  if (pause === undefined) Labels.sortBy(out, (s) => s.labels);
  else await sortByLabelsInSlices(out, (s) => s.labels, pause);
  return out;
}

/** The chunk as sent: its bytes shared, or copied into `snapshot` when it may still change. */
function rawChunk(c: HeadChunk, snapshot: SharedArena | null): RawChunk {
  const bytes = c.chunk.bytes();
  return {
    minTime: c.minTime,
    maxTime: c.maxTime,
    encoding: Encoding.XOR,
    data: snapshot === null ? bytes : snapshot.copy(bytes),
  };
}

/**
 * Bytes per block of one select's open-chunk snapshots: a few hundred open chunks. A copy
 * each is needed (appends rewrite the last byte and the sample count in place); in shared
 * blocks they also cross to the evaluation thread without another copy.
 */
const SNAPSHOT_BLOCK = 1 << 18;

/** The series of `refs` that have samples in [mint, maxt], sorted by labels. */
export function selectSeries(
  refs: Uint32Array,
  lookup: (ref: number) => MemSeries | undefined,
  mint: number,
  maxt: number,
  opts: SelectOptions = {},
): HeadSeries[] {
  const out: HeadSeries[] = [];
  const inOrderMint = Math.max(mint, opts.inOrderMint ?? mint);
  const withOOO = opts.outOfOrder !== false;
  for (const ref of refs) {
    const series = lookup(ref);
    if (series === undefined) continue;
    const chunks = inOrderMint <= maxt ? chunksInRange(series, inOrderMint, maxt) : [];
    const ooo = withOOO ? oooChunksInRange(series, mint, maxt) : [];
    if (chunks.length === 0 && ooo.length === 0) continue;
    out.push({
      ref,
      labels: series.labels,
      iterator:
        ooo.length === 0
          ? () => new HeadSampleIterator(chunks, inOrderMint, maxt)
          : () =>
              new MergedSampleIterator([
                new HeadSampleIterator(chunks, inOrderMint, maxt),
                // Out-of-order chunks may overlap each other: each is its own source.
                ...ooo.map((c) => new HeadSampleIterator([c], mint, maxt)),
              ]),
    });
  }
  Labels.sortBy(out, (s) => s.labels);
  return out;
}

/**
 * The out-of-order samples in [mint, maxt] of chunks numbered `maxSeq` or lower (what one
 * out-of-order compaction writes), per series sorted by labels.
 */
export function selectOOOChunks(
  refs: Uint32Array,
  lookup: (ref: number) => MemSeries | undefined,
  mint: number,
  maxt: number,
  maxSeq: number,
): HeadSeries[] {
  const out: HeadSeries[] = [];
  for (const ref of refs) {
    const series = lookup(ref);
    const ooo = series?.ooo;
    if (series === undefined || ooo === null || ooo === undefined) continue;
    const chunks: Uint8Array[] = [];
    for (const c of ooo.chunks)
      if (c.seq <= maxSeq && c.maxTime >= mint && c.minTime <= maxt) chunks.push(c.chunk.bytes());
    if (chunks.length === 0) continue;
    out.push({
      ref,
      labels: series.labels,
      iterator: () =>
        new MergedSampleIterator(chunks.map((c) => new HeadSampleIterator([c], mint, maxt))),
    });
  }
  Labels.sortBy(out, (s) => s.labels);
  return out;
}
