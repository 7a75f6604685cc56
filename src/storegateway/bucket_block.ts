/**
 * One block in the bucket as a store-gateway serves it (Thanos's bucketBlock): the local
 * index-header answers label names, values and postings offsets; postings lists, series
 * entries and chunks are fetched by merged byte ranges from the bucket, per query. Chunks go
 * out as stored (CRC checked, never decoded). Tombstones are not shipped to the bucket
 * (Cortex), so none apply. Faults of the block's objects raise BucketBlockError; nothing here
 * may take the process down or read a whole index or chunk file.
 */
import { compareGoStrings, type Matcher } from '../model/index.js';
import { throwIfAborted, type Bucket, type Clock, type FileSystem } from '../runtime/index.js';
import type { BlockMeta } from '../tsdb/block/index.js';
import {
  mergePostings,
  postingsForMatchers,
  type IndexSeries,
  type PostingsSource,
} from '../tsdb/index/index.js';
import {
  emptyBlockQueryStats,
  type BlockSelectOptions,
  type LoadedBlock,
  type StoreChunk,
  type StoreSeries,
} from './block_api.js';
import {
  BlockObjects,
  fetchChunks,
  fetchPostings,
  fetchSeries,
  type FetchSettings,
  type QueryContext,
} from './bucket_block_fetch.js';
import type { ChunkPool } from './chunk_pool.js';
import { allMatch, cachedPostings, cachedSeries } from './bucket_block_cache.js';
import type { IndexCache } from './index_cache.js';
import { IndexHeaderError, buildIndexHeader, type IndexHeaderBuildResult } from './index_header.js';
import { openHeaderIndex, type HeaderIndex } from './index_header_reader.js';
import { DEFAULT_PARTITIONER_MAX_GAP_BYTES } from './range_merge.js';

/** Thanos's and Cortex's default estimate of a series entry's size (64 KiB). */
export const DEFAULT_ESTIMATED_MAX_SERIES_SIZE = 64 * 1024;
/** Thanos's and Cortex's default estimate of a chunk's size (16000 bytes). */
export const DEFAULT_ESTIMATED_MAX_CHUNK_SIZE = 16000;
/** Range requests a query keeps in flight per object kind. */
export const DEFAULT_FETCH_CONCURRENCY = 8;

export interface OpenBucketBlockOptions {
  tenant: string;
  meta: BlockMeta;
  bucket: Bucket;
  fs: FileSystem;
  /**
   * The block's local index-header (Cortex: `<sync dir>/<tenant>/<block>/index-header`); built
   * from the bucket when missing or invalid.
   */
  headerPath: string;
  clock: Clock;
  /** The tenant's chunk byte budget (max_chunk_pool_bytes); none means unlimited. */
  chunkPool?: ChunkPool;
  /** Postings-offset and symbol sampling kept in memory (default 32). */
  samplingFactor?: number;
  /** Partitioner gap (default 512 KiB, `partitioner-max-gap-bytes`). */
  maxGapBytes?: number;
  /** Upper estimate of a series entry (default 64 KiB; meta's index_stats wins when smaller). */
  estimatedMaxSeriesSize?: number;
  /** Upper estimate of a chunk (default 16000; meta's index_stats wins when smaller). */
  estimatedMaxChunkSize?: number;
  fetchConcurrency?: number;
  /** Aborts building the index-header. */
  signal?: AbortSignal;
  /** Told when the index-header was (re)built, and why (for logs and metrics). */
  onHeaderBuilt?: (result: IndexHeaderBuildResult, reason: string) => void;
  /** Postings, expanded postings and series entries are looked up here first. */
  indexCache?: IndexCache;
}

/** Opens a block: its index-header (building it first if needed) and its bucket objects. */
export async function openBucketBlock(opts: OpenBucketBlockOptions): Promise<BucketBlock> {
  const { tenant, meta, bucket, fs, headerPath } = opts;
  const objects = new BlockObjects(tenant, meta.ulid, bucket, segmentSizes(meta));
  const remoteCtx: QueryContext = {
    signal: undefined,
    stats: emptyBlockQueryStats(),
    lease: undefined,
  };
  const open = (): Promise<HeaderIndex> =>
    openHeaderIndex({
      fs,
      path: headerPath,
      // Only direct IndexReader series/postings calls land here; queries fetch by themselves.
      remote: async (offset, length) => {
        const bytes = await objects.read(objects.indexObject, offset, length, remoteCtx);
        if (bytes.length !== length) {
          throw objects.wrap(
            new RangeError(`short read: ${bytes.length} of ${length} bytes at offset ${offset}`),
            objects.indexObject,
          );
        }
        return bytes;
      },
      ...(opts.samplingFactor === undefined ? {} : { samplingFactor: opts.samplingFactor }),
    });
  let header: HeaderIndex;
  try {
    header = await open();
  } catch (err) {
    if (!(err instanceof IndexHeaderError)) throw err;
    // Missing or damaged (a crash mid-build leaves only `.tmp`): rebuild, as Thanos does.
    const built = await buildIndexHeader(
      bucket,
      tenant,
      meta.ulid,
      fs,
      headerPath,
      opts.signal === undefined ? {} : { signal: opts.signal },
    );
    opts.onHeaderBuilt?.(built, err.message);
    try {
      header = await open();
    } catch (again) {
      throw objects.wrap(again, headerPath);
    }
  }
  const stats = meta.thanos?.index_stats;
  const settings: FetchSettings = {
    maxGapBytes: opts.maxGapBytes ?? DEFAULT_PARTITIONER_MAX_GAP_BYTES,
    estimatedMaxSeriesSize: estimate(
      stats?.series_max_size,
      opts.estimatedMaxSeriesSize ?? DEFAULT_ESTIMATED_MAX_SERIES_SIZE,
    ),
    estimatedMaxChunkSize: estimate(
      stats?.chunk_max_size,
      opts.estimatedMaxChunkSize ?? DEFAULT_ESTIMATED_MAX_CHUNK_SIZE,
    ),
    concurrency: opts.fetchConcurrency ?? DEFAULT_FETCH_CONCURRENCY,
  };
  return new BucketBlock(meta, header, objects, settings, opts);
}

export class BucketBlock implements LoadedBlock {
  private lastUsed: number;
  private closing: Promise<void> | undefined;
  private inFlight = 0;
  private drained: (() => void) | undefined;

  constructor(
    readonly meta: BlockMeta,
    private readonly header: HeaderIndex,
    private readonly objects: BlockObjects,
    private readonly settings: FetchSettings,
    private readonly deps: {
      clock: Clock;
      chunkPool?: ChunkPool;
      headerPath: string;
      indexCache?: IndexCache;
    },
  ) {
    this.lastUsed = deps.clock.now();
  }

  get lastUsedAt(): number {
    return this.lastUsed;
  }

  get tenant(): string {
    return this.objects.tenant;
  }

  /** Size in bytes of the local index-header file. */
  get indexHeaderSize(): number {
    return this.header.layout.size;
  }

  series(
    matchers: readonly Matcher[],
    mint: number,
    maxt: number,
    opts: BlockSelectOptions = {},
  ): Promise<StoreSeries[]> {
    return this.run(opts, true, async (ctx) => {
      const entries = await this.selectSeries(matchers, ctx);
      const selected: IndexSeries[] = [];
      for (const e of entries) {
        const chunks = e.chunks.filter((c) => c.maxTime >= mint && c.minTime <= maxt);
        if (chunks.length > 0) selected.push({ labels: e.labels, chunks });
      }
      if (opts.skipChunks === true) return selected.map((s) => ({ labels: s.labels, chunks: [] }));
      const refs: number[] = [];
      for (const s of selected) for (const c of s.chunks) refs.push(c.ref);
      const known: number[] = [];
      for (const e of entries) for (const c of e.chunks) known.push(c.ref);
      const fetched = await fetchChunks(this.objects, refs, known, this.settings, ctx);
      ctx.stats.chunksFetched += fetched.length;
      let k = 0;
      return selected.map((s) => ({
        labels: s.labels,
        chunks: s.chunks.map((c): StoreChunk => {
          const f = fetched[k++] as (typeof fetched)[number];
          return { minTime: c.minTime, maxTime: c.maxTime, encoding: f.encoding, data: f.data };
        }),
      }));
    });
  }

  labelNames(matchers: readonly Matcher[], opts: BlockSelectOptions = {}): Promise<string[]> {
    return this.run(opts, false, async (ctx) => {
      if (matchers.length === 0) return this.header.reader.labelNames();
      const names = new Set<string>();
      for (const e of await this.selectSeries(matchers, ctx)) {
        e.labels.forEach((name) => names.add(name));
      }
      return [...names].sort(compareGoStrings);
    });
  }

  labelValues(
    name: string,
    matchers: readonly Matcher[],
    opts: BlockSelectOptions = {},
  ): Promise<string[]> {
    return this.run(opts, false, async (ctx) => {
      if (matchers.length === 0) return this.localIndex(() => this.header.reader.labelValues(name));
      const values = new Set<string>();
      for (const e of await this.selectSeries(matchers, ctx)) {
        if (e.labels.has(name)) values.add(e.labels.get(name));
      }
      return [...values].sort(compareGoStrings);
    });
  }

  /** Waits for queries in flight, then releases the index-header file. Idempotent. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      if (this.inFlight > 0) {
        await new Promise<void>((resolve) => {
          this.drained = resolve;
        });
      }
      await this.header.close();
    })();
    return this.closing;
  }

  /** Series entries matching `matchers`, in label order (postings order is label order). */
  private async selectSeries(
    matchers: readonly Matcher[],
    ctx: QueryContext,
    useCache = true,
  ): Promise<IndexSeries[]> {
    const cache = useCache ? this.deps.indexCache : undefined;
    const block = this.meta.ulid;
    let refs = await cache?.fetchExpandedPostings(block, matchers, ctx.signal);
    if (refs === undefined) {
      refs = await postingsForMatchers(this.postingsSource(ctx, useCache), matchers);
      cache?.storeExpandedPostings(block, matchers, refs);
    }
    if (refs.length === 0) return [];
    const fetch = (
      wanted: ArrayLike<number>,
      onEntry?: (ref: number, entry: Uint8Array) => void,
    ): Promise<IndexSeries[]> =>
      fetchSeries(
        this.objects,
        this.header.reader,
        wanted,
        this.header.layout.indexToc.labelIndices,
        this.settings,
        ctx,
        onEntry,
      );
    const entries =
      cache === undefined
        ? await fetch(refs)
        : await cachedSeries({ cache, block }, this.header.reader, refs, ctx.signal, fetch);
    if (cache !== undefined && !allMatch(entries, matchers)) {
      // A cached value contradicts the matchers (a wrong entry): answer from the bucket alone.
      return this.selectSeries(matchers, ctx, false);
    }
    ctx.stats.seriesFetched += entries.length;
    return entries;
  }

  /** Label values from the header, postings lists from the bucket in merged ranges. */
  private postingsSource(ctx: QueryContext, useCache: boolean): PostingsSource {
    const reader = this.header.reader;
    return {
      labelValues: (name) => this.localIndex(() => reader.labelValues(name)),
      postings: async (name, ...values) => {
        throwIfAborted(ctx.signal);
        const cache = useCache ? this.deps.indexCache : undefined;
        if (cache !== undefined) {
          return cachedPostings(
            { cache, block: this.meta.ulid },
            name,
            values,
            ctx.signal,
            (missing) => this.localIndex(() => reader.postingsRanges(name, missing)),
            (ranges) => fetchPostings(this.objects, ranges, this.settings, ctx),
          );
        }
        const ranges = await this.localIndex(() => reader.postingsRanges(name, values));
        if (ranges.length === 0) return new Uint32Array(0);
        const lists = await fetchPostings(this.objects, ranges, this.settings, ctx);
        return lists.length === 1 ? (lists[0] as Uint32Array) : mergePostings(...lists);
      },
    };
  }

  /** Runs a lookup on the local index-header, naming the file if it turns out damaged. */
  private async localIndex<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      throw this.objects.wrap(err, this.deps.headerPath);
    }
  }

  /** Query bookkeeping: open check, last use, stats, the pool lease and close draining. */
  private async run<T>(
    opts: BlockSelectOptions,
    usesPool: boolean,
    fn: (ctx: QueryContext) => Promise<T>,
  ): Promise<T> {
    if (this.closing !== undefined) {
      throw new Error(`tenant ${JSON.stringify(this.tenant)} block ${this.meta.ulid} is closed`);
    }
    throwIfAborted(opts.signal);
    this.lastUsed = this.deps.clock.now();
    const lease = usesPool ? this.deps.chunkPool?.lease() : undefined;
    const ctx: QueryContext = {
      signal: opts.signal,
      stats: opts.stats ?? emptyBlockQueryStats(),
      lease,
    };
    this.inFlight++;
    try {
      return await fn(ctx);
    } finally {
      lease?.releaseAll();
      this.inFlight--;
      if (this.inFlight === 0 && this.drained !== undefined) this.drained();
    }
  }
}

/** Cortex's rule: the block's measured maximum when it is known and below the configured one. */
function estimate(fromMeta: number | undefined, configured: number): number {
  return fromMeta !== undefined && fromMeta > 0 && fromMeta < configured ? fromMeta : configured;
}

/** Chunk segment sizes from meta.json's `thanos.files`, by 0-based segment index. */
function segmentSizes(meta: BlockMeta): Map<number, number> {
  const out = new Map<number, number>();
  for (const f of meta.thanos?.files ?? []) {
    const m = /^chunks\/(\d{6})$/.exec(f.rel_path);
    if (m !== null && f.size_bytes !== undefined) out.set(Number(m[1]) - 1, f.size_bytes);
  }
  return out;
}
