/**
 * Bulk reads of chunk series: a series' samples inside a window decoded at once into typed
 * arrays (StorageSeries.samples), the fast path the engines load series through. Each lane
 * (see chunk_series.ts) is decoded chunk by chunk with the bulk XOR decoder; several lanes
 * are merged keeping each timestamp once, the earliest lane's sample on ties, as the
 * iterator path's merge does.
 */
import type { SampleArrays } from '../promql/index.js';
import type { StoreChunk } from '../storegateway/index.js';
import {
  Encoding,
  sampleColumns,
  XorBulkDecoder,
  xorSampleCount,
  type SampleColumns,
} from '../tsdb/index.js';

/** Samples per shared block at most: 1 MiB of timestamps and 1 MiB of values. */
const BLOCK_SAMPLES = 1 << 17;
/**
 * The first block's size; each next one doubles up to BLOCK_SAMPLES. A small select (an
 * instant query's newest samples) would otherwise allocate and zero 2 MiB it never uses.
 */
const FIRST_BLOCK_SAMPLES = 1 << 12;

/**
 * What an evaluation thread keeps: the 57.6 MB of samples one select of 12,000 series × 300
 * samples decodes (the benchmark's 100k-series queries). With 16 MiB most of them were new
 * ArrayBuffers every query, and the collections their external memory set off cost those
 * queries 10–40% (docs/benchmarks.md). At most this much per thread (one per core but one,
 * up to 8) stays allocated while idle.
 */
const DEFAULT_POOL_BYTES = 64 << 20;

const NO_SAMPLES: SampleArrays = { ts: new Float64Array(0), fs: new Float64Array(0) };

/**
 * Sample blocks kept for reuse between the queries of one evaluation thread: allocating
 * (and zeroing) a megabyte of blocks per query cost a few percent of a small query's time,
 * and their garbage more. A block taken is its taker's until it is given back.
 */
export class SampleBlockPool {
  private readonly free: SampleColumns[] = [];

  /** `maxBytes`: the most the free blocks hold together (more given back is dropped). */
  constructor(private readonly maxBytes = DEFAULT_POOL_BYTES) {}

  /** A free block of at least `capacity` samples (the smallest such), else a new one. */
  take(capacity: number): SampleColumns {
    let best = -1;
    for (let i = 0; i < this.free.length; i++) {
      const len = (this.free[i] as SampleColumns).ts.length;
      if (len >= capacity && (best < 0 || len < (this.free[best] as SampleColumns).ts.length))
        best = i;
    }
    if (best < 0) return sampleColumns(capacity);
    const [block] = this.free.splice(best, 1);
    return block as SampleColumns;
  }

  /** Blocks their taker no longer reads (nor anything it handed them to). */
  give(blocks: readonly SampleColumns[]): void {
    let bytes = 0;
    for (const b of this.free) bytes += 16 * b.ts.length;
    for (const b of blocks) {
      if (bytes + 16 * b.ts.length > this.maxBytes) continue;
      this.free.push(b);
      bytes += 16 * b.ts.length;
    }
  }
}

/**
 * Reads the series of one select: their samples are views into shared blocks, because an
 * ArrayBuffer per series (thousands per select) costs more than decoding its samples. One
 * reader per select (or per query); the blocks live as long as any series read from them,
 * or, with a pool, until `release` hands them back to it.
 */
export class ChunkSampleReader {
  private readonly decoder = new XorBulkDecoder();
  private block: SampleColumns = sampleColumns(0);
  private used = 0;
  private nextBlock = FIRST_BLOCK_SAMPLES;
  private readonly taken: SampleColumns[] = [];

  constructor(private readonly pool?: SampleBlockPool) {}

  /**
   * Gives the blocks to the pool: every series read through this reader must be out of
   * use (their samples would be overwritten). The reader starts afresh.
   */
  release(): void {
    this.pool?.give(this.taken);
    this.taken.length = 0;
    this.block = sampleColumns(0);
    this.used = 0;
    this.nextBlock = FIRST_BLOCK_SAMPLES;
  }

  /** The samples with mint ≤ t ≤ maxt of `lanes` (from chunkLanes); throws on unreadable chunks. */
  read(lanes: readonly (readonly StoreChunk[])[], mint: number, maxt: number): SampleArrays {
    if (lanes.length === 0 || mint > maxt) return NO_SAMPLES;
    let merged = this.readLane(lanes[0] as readonly StoreChunk[], mint, maxt);
    for (let i = 1; i < lanes.length; i++) {
      merged = this.merge(merged, this.readLane(lanes[i] as readonly StoreChunk[], mint, maxt));
    }
    const { block, from, to } = merged;
    return { ts: block.ts.subarray(from, to), fs: block.fs.subarray(from, to) };
  }

  /**
   * The newest sample with mint ≤ t ≤ maxt of `lanes` (zero or one): per lane only the
   * last chunk reaching into the window is decoded (earlier ones only if it has no sample
   * in it); the newest across lanes wins, the earliest lane's on equal timestamps.
   */
  newest(lanes: readonly (readonly StoreChunk[])[], mint: number, maxt: number): SampleArrays {
    if (lanes.length === 0 || mint > maxt) return NO_SAMPLES;
    let best: Span | null = null;
    for (const lane of lanes) {
      for (let i = lane.length - 1; i >= 0; i--) {
        const c = lane[i] as StoreChunk;
        if (c.minTime > maxt) continue;
        if (c.maxTime < mint) break;
        const span = this.readLane([c], mint, maxt);
        if (span.to === span.from) continue;
        const last = span.to - 1;
        if (
          best === null ||
          (span.block.ts[last] as number) > (best.block.ts[best.to - 1] as number)
        ) {
          best = { block: span.block, from: last, to: span.to };
        }
        break;
      }
    }
    if (best === null) return NO_SAMPLES;
    const { block, from, to } = best;
    return { ts: block.ts.subarray(from, to), fs: block.fs.subarray(from, to) };
  }

  /** Room for `capacity` samples in the current block (a new block when it is full). */
  private reserve(capacity: number): number {
    if (this.used + capacity > this.block.ts.length) {
      const size = Math.max(capacity, this.nextBlock);
      if (this.pool === undefined) {
        this.block = sampleColumns(size);
      } else {
        this.block = this.pool.take(size);
        this.taken.push(this.block);
      }
      this.nextBlock = Math.min(2 * this.nextBlock, BLOCK_SAMPLES);
      this.used = 0;
    }
    return this.used;
  }

  private readLane(lane: readonly StoreChunk[], mint: number, maxt: number): Span {
    let capacity = 0;
    for (const c of lane) {
      if (c.maxTime >= mint && c.minTime <= maxt) capacity += xorSampleCount(c.data);
    }
    const from = this.reserve(capacity);
    const out = this.block;
    const datas: Uint8Array[] = [];
    for (const c of lane) {
      if (c.maxTime < mint) continue;
      if (c.minTime > maxt) break;
      if (c.encoding !== Encoding.XOR) {
        throw new Error(
          `unsupported chunk encoding ${c.encoding} (chunk ${c.minTime}-${c.maxTime})`,
        );
      }
      datas.push(c.data);
    }
    const n = this.decoder.decodeAllInto(datas, mint, maxt, out, from);
    this.used = n;
    return { block: out, from, to: n };
  }

  /** Two spans (each sorted by time) merged, each timestamp once, `a`'s sample on ties. */
  private merge(a: Span, b: Span): Span {
    if (b.to === b.from) return a;
    if (a.to === a.from) return b;
    const from = this.reserve(a.to - a.from + b.to - b.from);
    const out = this.block;
    let i = a.from;
    let j = b.from;
    let n = from;
    // Words, not numbers: a NaN's payload (a stale marker) must survive the copy.
    while (i < a.to || j < b.to) {
      const ta = i < a.to ? (a.block.ts[i] as number) : Infinity;
      const tb = j < b.to ? (b.block.ts[j] as number) : Infinity;
      const src = ta <= tb ? a.block : b.block;
      const k = ta <= tb ? i : j;
      out.ts[n] = ta <= tb ? ta : tb;
      out.words[2 * n] = src.words[2 * k] as number;
      out.words[2 * n + 1] = src.words[2 * k + 1] as number;
      if (ta <= tb) {
        i++;
        if (ta === tb) j++;
      } else {
        j++;
      }
      n++;
    }
    this.used = n;
    return { block: out, from, to: n };
  }
}

/** Samples [from, to) of a block. */
interface Span {
  readonly block: SampleColumns;
  readonly from: number;
  readonly to: number;
}
