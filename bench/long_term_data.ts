// The long-term benchmark's data: B consecutive 2h blocks of N series in the four shapes of
// series_shapes.ts (N/4 series each), written with writeBlock the way an ingester cuts them
// (tenant external label, aligned 2h ranges) and uploaded with the shipper's uploadBlock; and
// a bucket wrapper that counts what the read path asks of the bucket.
import { blockMetaPath, uploadBlock } from '../src/bucket/index.js';
import { Matcher } from '../src/model/index.js';
import type {
  Bucket,
  BucketCallOptions,
  UploadSource,
  BucketListOptions,
  Clock,
  FileSystem,
  ObjectAttributes,
  RandomStream,
} from '../src/runtime/index.js';
import {
  TENANT_EXTERNAL_LABEL,
  writeBlock,
  type BlockMeta,
  type BlockSeriesInput,
} from '../src/tsdb/index.js';
import {
  benchLabels,
  BENCH_START_MS,
  generateShape,
  SAMPLES_PER_2H_BLOCK,
  SERIES_SHAPES,
} from './series_shapes.js';

export const LT_TENANT = 'bench-tenant';
export const TWO_HOURS_MS = 2 * 60 * 60 * 1000;
/** The queried series: a counter, as `rate(bench_counter{instance="…"}[5m])` would select. */
export const LT_QUERY_SHAPE = 'counter';

/** Series of each shape in a block of `numSeries` (the first shapes take the remainder). */
export function seriesPerShape(numSeries: number): number[] {
  const n = SERIES_SHAPES.length;
  return SERIES_SHAPES.map((_, i) => Math.floor(numSeries / n) + (i < numSeries % n ? 1 : 0));
}

/** The one-series selector of the benchmark: the middle counter series. */
export function queryMatchers(numSeries: number): Matcher[] {
  const counters = seriesPerShape(numSeries)[SERIES_SHAPES.indexOf(LT_QUERY_SHAPE)] ?? 0;
  if (counters === 0) throw new Error(`--lt-series=${numSeries}: no counter series to query`);
  const labels = benchLabels(LT_QUERY_SHAPE, Math.floor(counters / 2));
  return [
    Matcher.equal('__name__', labels.get('__name__')),
    Matcher.equal('instance', labels.get('instance')),
  ];
}

/** `{__name__="…", instance="…"}` for the table. */
export function formatMatchers(matchers: readonly Matcher[]): string {
  return `{${matchers.map((m) => m.toString()).join(', ')}}`;
}

/**
 * Block `b`'s series: every shape's samples moved to [start + b×2h, start + (b+1)×2h), and
 * counters carried on from the previous block (as a real counter keeps growing).
 */
export function blockSeries(b: number, numSeries: number): BlockSeriesInput[] {
  const offset = b * TWO_HOURS_MS;
  const out: BlockSeriesInput[] = [];
  const counts = seriesPerShape(numSeries);
  SERIES_SHAPES.forEach((shape, i) => {
    for (const s of generateShape(shape, counts[i] ?? 0, SAMPLES_PER_2H_BLOCK)) {
      for (let k = 0; k < s.timestamps.length; k++) {
        s.timestamps[k] = (s.timestamps[k] as number) + offset;
        // A counter grows by 49.5 per scrape on average: 480 scrapes per block.
        if (shape === 'counter') s.values[k] = (s.values[k] as number) + b * 24_000;
      }
      out.push(s);
    }
  });
  return out;
}

/** Writes the B blocks under `dir` (one directory per ULID), oldest first. */
export async function writeLocalBlocks(
  dir: string,
  numBlocks: number,
  numSeries: number,
  deps: { fs: FileSystem; clock: Clock; random: RandomStream },
  progress: (line: string) => void,
): Promise<BlockMeta[]> {
  const metas: BlockMeta[] = [];
  for (let b = 0; b < numBlocks; b++) {
    const minTime = BENCH_START_MS + b * TWO_HOURS_MS;
    const meta = await writeBlock(
      dir,
      blockSeries(b, numSeries),
      {
        thanos: { labels: { [TENANT_EXTERNAL_LABEL]: LT_TENANT } },
        meta: { minTime, maxTime: minTime + TWO_HOURS_MS },
      },
      deps,
    );
    metas.push(meta);
    progress(`long-term: wrote block ${b + 1}/${numBlocks} (${meta.ulid})`);
  }
  return metas;
}

/** Uploads the blocks as the ingester's shipper does; returns their total size in the bucket. */
export async function uploadBlocks(
  bucket: Bucket,
  dir: string,
  metas: readonly BlockMeta[],
  fs: FileSystem,
): Promise<{ blockBytes: number; indexBytes: number }> {
  let blockBytes = 0;
  let indexBytes = 0;
  for (const meta of metas) {
    await uploadBlock(
      bucket,
      LT_TENANT,
      `${dir}/${meta.ulid}`,
      { labels: { [TENANT_EXTERNAL_LABEL]: LT_TENANT }, source: 'receive' },
      { fs },
    );
    for (const name of await bucket.list(`${LT_TENANT}/${meta.ulid}/`, { recursive: true })) {
      const { size } = await bucket.attributes(name);
      blockBytes += size;
      if (name.endsWith('/index')) indexBytes += size;
    }
  }
  return { blockBytes, indexBytes };
}

/**
 * Rewrites the block's meta.json in the bucket with `stats` as its thanos.index_stats, or with
 * an empty one as Cortex's ingesters ship blocks (`undefined`).
 */
export async function setBucketIndexStats(
  bucket: Bucket,
  blockId: string,
  stats: { series_max_size?: number; chunk_max_size?: number } | undefined,
): Promise<void> {
  const path = blockMetaPath(LT_TENANT, blockId);
  const meta = JSON.parse(new TextDecoder().decode(await bucket.get(path))) as {
    thanos: Record<string, unknown>;
  };
  meta.thanos['index_stats'] = { ...stats };
  await bucket.upload(path, new TextEncoder().encode(JSON.stringify(meta, null, '\t') + '\n'));
}

/** What the wrapped bucket was asked since the last reset. */
export interface BucketCounts {
  rangeRequests: number;
  rangeBytes: number;
  /** Of rangeBytes: from `…/index` objects (postings, series) and `…/chunks/…` objects. */
  indexRangeBytes: number;
  chunkRangeBytes: number;
  gets: number;
  getBytes: number;
  /** attributes, exists and list calls. */
  otherRequests: number;
}

export function zeroBucketCounts(): BucketCounts {
  return {
    rangeRequests: 0,
    rangeBytes: 0,
    indexRangeBytes: 0,
    chunkRangeBytes: 0,
    gets: 0,
    getBytes: 0,
    otherRequests: 0,
  };
}

/**
 * Counts reads (requests and bytes) and can hide blocks of the tenant from listings, so a
 * store-gateway can first load some blocks and then the rest (the memory measurement).
 */
export class CountingBucket implements Bucket {
  readonly name: string;
  counts: BucketCounts = zeroBucketCounts();
  /** Block IDs listings leave out. */
  hidden = new Set<string>();

  constructor(private readonly inner: Bucket) {
    this.name = `counting:${inner.name}`;
  }

  reset(): BucketCounts {
    const was = this.counts;
    this.counts = zeroBucketCounts();
    return was;
  }

  async get(name: string, opts?: BucketCallOptions): Promise<Uint8Array> {
    const bytes = await this.inner.get(name, opts);
    this.counts.gets++;
    this.counts.getBytes += bytes.length;
    return bytes;
  }

  async getRange(
    name: string,
    offset: number,
    length: number,
    opts?: BucketCallOptions,
  ): Promise<Uint8Array> {
    this.counts.rangeRequests++;
    const bytes = await this.inner.getRange(name, offset, length, opts);
    this.counts.rangeBytes += bytes.length;
    if (name.endsWith('/index')) this.counts.indexRangeBytes += bytes.length;
    else if (name.includes('/chunks/')) this.counts.chunkRangeBytes += bytes.length;
    return bytes;
  }

  exists(name: string, opts?: BucketCallOptions): Promise<boolean> {
    this.counts.otherRequests++;
    return this.inner.exists(name, opts);
  }

  upload(name: string, data: Uint8Array, opts?: BucketCallOptions): Promise<void> {
    return this.inner.upload(name, data, opts);
  }

  uploadStream(name: string, source: UploadSource, opts?: BucketCallOptions): Promise<void> {
    return this.inner.uploadStream(name, source, opts);
  }

  delete(name: string, opts?: BucketCallOptions): Promise<void> {
    return this.inner.delete(name, opts);
  }

  async list(dir: string, opts?: BucketListOptions): Promise<string[]> {
    this.counts.otherRequests++;
    const entries = await this.inner.list(dir, opts);
    if (this.hidden.size === 0) return entries;
    return entries.filter((e) => {
      const id = e.split('/')[1];
      return !(e.startsWith(`${LT_TENANT}/`) && id !== undefined && this.hidden.has(id));
    });
  }

  attributes(name: string, opts?: BucketCallOptions): Promise<ObjectAttributes> {
    this.counts.otherRequests++;
    return this.inner.attributes(name, opts);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
