/**
 * Fetching a block's postings lists, series entries and chunks from the bucket with as few
 * range requests as possible (Thanos's bucketIndexReader/bucketChunkReader approach): the
 * wanted entries of one object are sorted by offset, given an end (exact where a following
 * entry bounds them, else an estimated maximum size), merged into requests by the gap
 * partitioner, and an entry found longer than its estimate is fetched again exactly.
 */
import { blockChunkPath, blockIndexPath } from '../bucket/layout.js';
import { AbortError, throwIfAborted, type Bucket } from '../runtime/index.js';
import {
  SEGMENT_HEADER_SIZE,
  chunkRefOffset,
  chunkRefSegment,
  decodeChunkAt,
} from '../tsdb/block/index.js';
import {
  IndexFormatError,
  decodePostingsList,
  postingsListLength,
  seriesEntryLength,
  type IndexReader,
  type IndexSeries,
  type PostingsRange,
} from '../tsdb/index/index.js';
import type { BlockQueryStats } from './block_api.js';
import { blockError } from './bucket_block_error.js';
import type { ChunkPoolLease } from './chunk_pool.js';
import { partitionRanges, runLimited, type MergedRange } from './range_merge.js';

export interface FetchSettings {
  readonly maxGapBytes: number;
  /** Largest series entry body expected (index_stats.series_max_size); framing is added. */
  readonly estimatedMaxSeriesSize: number;
  /** Largest chunk data expected (index_stats.chunk_max_size); framing is added. */
  readonly estimatedMaxChunkSize: number;
  /** Range requests in flight at once per query and object kind. */
  readonly concurrency: number;
}

/** What one query brings to every fetch: its abort signal, its counters, its pool lease. */
export interface QueryContext {
  readonly signal: AbortSignal | undefined;
  readonly stats: BlockQueryStats;
  readonly lease: ChunkPoolLease | undefined;
}

/**
 * Bytes around an entry's body that size estimates (Thanos's index_stats measure bodies) leave
 * out: a series entry's length varint and CRC; a chunk's length varint, encoding byte and CRC.
 */
const SERIES_FRAMING = 5 + 4;
const CHUNK_FRAMING = 5 + 1 + 4;

/** A chunk as decoded from its segment: encoding byte and data (a view into fetched bytes). */
export interface FetchedChunk {
  readonly encoding: number;
  readonly data: Uint8Array;
}

/** The objects of one block in the bucket, read with accounting and errors that name them. */
export class BlockObjects {
  readonly indexObject: string;

  constructor(
    readonly tenant: string,
    readonly blockId: string,
    private readonly bucket: Bucket,
    /** Sizes of chunk segments by 0-based index, where meta.json lists them. */
    private readonly segmentSizes: ReadonlyMap<number, number>,
  ) {
    this.indexObject = blockIndexPath(tenant, blockId);
  }

  chunkObject(segment: number): string {
    return blockChunkPath(this.tenant, this.blockId, segment + 1);
  }

  segmentSize(segment: number): number | undefined {
    return this.segmentSizes.get(segment);
  }

  /** Up to `length` bytes at `offset` (fewer only at the end of the object). */
  async read(
    object: string,
    offset: number,
    length: number,
    ctx: QueryContext,
  ): Promise<Uint8Array> {
    throwIfAborted(ctx.signal);
    ctx.stats.bucketRequests++;
    let bytes: Uint8Array;
    try {
      bytes = await this.bucket.getRange(
        object,
        offset,
        length,
        ctx.signal === undefined ? {} : { signal: ctx.signal },
      );
    } catch (err) {
      // A backend may fail its cancelled call with its own error: it is still the abort.
      if (ctx.signal?.aborted === true) throw new AbortError();
      throw this.wrap(err, object, true);
    }
    ctx.stats.bucketBytes += bytes.length;
    return bytes;
  }

  /** `err` raised reading (`reading`) or decoding `object`, as a BucketBlockError. */
  wrap(err: unknown, object: string, reading = false): unknown {
    return blockError(err, { tenant: this.tenant, blockId: this.blockId, object, reading });
  }
}

/** The postings lists behind `ranges`, in the same order. */
export async function fetchPostings(
  objects: BlockObjects,
  ranges: readonly PostingsRange[],
  settings: FetchSettings,
  ctx: QueryContext,
): Promise<Uint32Array[]> {
  const order = sortedOrder(ranges.length, (i) => (ranges[i] as PostingsRange).offset);
  const starts = new Float64Array(order.length);
  const ends = new Float64Array(order.length);
  order.forEach((r, i) => {
    const range = ranges[r] as PostingsRange;
    starts[i] = range.offset;
    ends[i] = Math.max(range.end, range.offset + 8);
  });
  const out = new Array<Uint32Array>(ranges.length);
  const object = objects.indexObject;
  await fetchParts(
    partitionRanges(starts, ends, settings.maxGapBytes),
    settings,
    ctx,
    async (p) => {
      const bytes = await objects.read(object, p.start, p.end - p.start, ctx);
      for (let i = p.first; i < p.last; i++) {
        const offset = starts[i] as number;
        let list = bytes.subarray(offset - p.start, (ends[i] as number) - p.start);
        let need = postingsListLength(list);
        if (need < 0 || need > list.length) {
          // The table bounded this list wrongly (a writer with another layout): ask exactly.
          if (need < 0) need = postingsListLength(await objects.read(object, offset, 4, ctx));
          list = await objects.read(object, offset, Math.max(need, 0), ctx);
        }
        try {
          out[order[i] as number] = decodePostingsList(list, offset);
        } catch (err) {
          throw objects.wrap(err, object);
        }
      }
    },
  );
  return out;
}

/**
 * The series entries of `refs` (ascending), decoded. `seriesEnd` is where the series section
 * ends: no entry reaches past it, so no request needs to either.
 */
export async function fetchSeries(
  objects: BlockObjects,
  reader: IndexReader,
  refs: ArrayLike<number>,
  seriesEnd: number,
  settings: FetchSettings,
  ctx: QueryContext,
  /** Told each entry read (whole, CRC not yet checked), e.g. to cache it. */
  onEntry?: (ref: number, entry: Uint8Array) => void,
): Promise<IndexSeries[]> {
  const n = refs.length;
  const starts = new Float64Array(n);
  const ends = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    let start: number;
    try {
      // A postings list naming a ref outside the series section is a corrupted index.
      start = reader.seriesOffset(refs[i] as number);
    } catch (err) {
      throw objects.wrap(err, objects.indexObject);
    }
    starts[i] = start;
    const estimated = start + settings.estimatedMaxSeriesSize + SERIES_FRAMING;
    ends[i] = Math.max(start + 1, Math.min(estimated, seriesEnd));
  }
  const out = new Array<IndexSeries>(n);
  const object = objects.indexObject;
  await fetchParts(
    partitionRanges(starts, ends, settings.maxGapBytes),
    settings,
    ctx,
    async (p) => {
      const bytes = await objects.read(object, p.start, p.end - p.start, ctx);
      for (let i = p.first; i < p.last; i++) {
        const start = starts[i] as number;
        // Entries end where the next one starts, so only a request's last one can overflow.
        let entry = bytes.subarray(start - p.start);
        try {
          let need = seriesEntryLength(entry);
          if (need > entry.length && start + need <= seriesEnd) {
            entry = await objects.read(object, start, need, ctx);
            need = seriesEntryLength(entry);
          }
          if (need < 0 || need > entry.length) {
            throw new IndexFormatError(
              `series entry at offset ${start} is truncated: ${entry.length} bytes available, want ${need < 0 ? 'more' : need}`,
            );
          }
          out[i] = reader.decodeSeries(refs[i] as number, entry.subarray(0, need));
          onEntry?.(refs[i] as number, entry.subarray(0, need));
        } catch (err) {
          throw objects.wrap(err, object);
        }
      }
    },
  );
  return out;
}

/**
 * The chunks behind `refs` (any order), CRC checked, in the same order. `knownRefs` are every
 * chunk ref the caller knows of in this block (all chunks of the series read): each bounds the
 * chunk stored before it, which makes most requested lengths exact. The data of all chunks is
 * copied into one buffer so the (larger) fetched ranges can be dropped.
 */
export async function fetchChunks(
  objects: BlockObjects,
  refs: readonly number[],
  knownRefs: readonly number[],
  settings: FetchSettings,
  ctx: QueryContext,
): Promise<FetchedChunk[]> {
  const fetched = new Array<FetchedChunk>(refs.length);
  const bySegment = new Map<number, number[]>();
  for (let i = 0; i < refs.length; i++) {
    const segment = chunkRefSegment(refs[i] as number);
    const list = bySegment.get(segment);
    if (list === undefined) bySegment.set(segment, [i]);
    else list.push(i);
  }
  const bounds = boundsBySegment(knownRefs);
  for (const [segment, indexes] of bySegment) {
    const object = objects.chunkObject(segment);
    indexes.sort((a, b) => chunkRefOffset(refs[a] as number) - chunkRefOffset(refs[b] as number));
    const starts = new Float64Array(indexes.length);
    const ends = new Float64Array(indexes.length);
    const size = objects.segmentSize(segment);
    const known = bounds.get(segment) ?? [];
    indexes.forEach((r, i) => {
      const offset = chunkRefOffset(refs[r] as number);
      if (offset < SEGMENT_HEADER_SIZE) {
        throw objects.wrap(
          new IndexFormatError(`chunk ref ${refs[r]} points into the segment header`),
          objects.indexObject,
        );
      }
      let end = nextAbove(known, offset) ?? offset + settings.estimatedMaxChunkSize + CHUNK_FRAMING;
      if (size !== undefined && size > offset) end = Math.min(end, size);
      starts[i] = offset;
      ends[i] = end;
    });
    const parts = partitionRanges(starts, ends, settings.maxGapBytes);
    await fetchParts(parts, settings, ctx, async (p) => {
      ctx.lease?.acquire(p.end - p.start);
      const bytes = await objects.read(object, p.start, p.end - p.start, ctx);
      for (let i = p.first; i < p.last; i++) {
        const offset = starts[i] as number;
        let base = p.start;
        let buf = bytes;
        const need = chunkLength(bytes, offset - p.start);
        if (need > 0 && offset - p.start + need > bytes.length) {
          ctx.lease?.acquire(need);
          buf = await objects.read(object, offset, need, ctx);
          base = offset;
        }
        try {
          const { chunk } = decodeChunkAt(buf, segment, offset - base, base);
          fetched[indexes[i] as number] = { encoding: chunk.encoding, data: chunk.data };
        } catch (err) {
          throw objects.wrap(err, object);
        }
      }
    });
  }
  return compact(fetched);
}

/** Runs one request per part with the query's concurrency and abort signal. */
function fetchParts(
  parts: readonly MergedRange[],
  settings: FetchSettings,
  ctx: QueryContext,
  fn: (p: MergedRange) => Promise<void>,
): Promise<void> {
  return runLimited(parts, settings.concurrency, fn, ctx.signal);
}

/** Bytes of the chunk at `bytes[at]` (length varint, encoding, data, CRC), or -1 if unreadable. */
function chunkLength(bytes: Uint8Array, at: number): number {
  let len = 0;
  let mul = 1;
  for (let i = 0; i < 10 && at + i < bytes.length; i++) {
    const b = bytes[at + i] as number;
    len += (b & 0x7f) * mul;
    if (b < 0x80) return i + 1 + 1 + len + 4;
    mul *= 128;
  }
  return -1;
}

/** Sorted distinct offsets of `refs` per segment. */
function boundsBySegment(refs: readonly number[]): Map<number, number[]> {
  const out = new Map<number, number[]>();
  for (const ref of refs) {
    const segment = chunkRefSegment(ref);
    const list = out.get(segment);
    if (list === undefined) out.set(segment, [chunkRefOffset(ref)]);
    else list.push(chunkRefOffset(ref));
  }
  for (const list of out.values()) list.sort((a, b) => a - b);
  return out;
}

/** The smallest value in sorted `list` greater than `x`. */
function nextAbove(list: readonly number[], x: number): number | undefined {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((list[mid] as number) <= x) lo = mid + 1;
    else hi = mid;
  }
  return list[lo];
}

/** Indexes 0..n-1 ordered by `key`. */
function sortedOrder(n: number, key: (i: number) => number): number[] {
  const order = Array.from({ length: n }, (_, i) => i);
  return order.sort((a, b) => key(a) - key(b));
}

/** Copies every chunk's data into one buffer, in order. */
function compact(chunks: readonly FetchedChunk[]): FetchedChunk[] {
  let total = 0;
  for (const c of chunks) total += c.data.length;
  const slab = new Uint8Array(total);
  let at = 0;
  return chunks.map((c) => {
    slab.set(c.data, at);
    const data = slab.subarray(at, at + c.data.length);
    at += c.data.length;
    return { encoding: c.encoding, data };
  });
}
