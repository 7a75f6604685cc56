/**
 * Test support: a stand-in block layer and bucket helpers for the store layer's tests. A fake
 * block's "index" object is JSON (series with chunk positions in `chunks/000001`), its
 * index-header a copy of that JSON on local disk, so the tests see the same failure modes as
 * real blocks (truncated index ⇒ load failure, missing chunk file ⇒ query failure) and can
 * count bucket reads. Test files only.
 */
import {
  blockFromMeta,
  listGlobalMarks,
  readGlobalDeletionMark,
  writeBucketIndex,
  writeDeletionMark,
} from '../bucket/index.js';
import { Labels, type Matcher } from '../model/index.js';
import type {
  Bucket,
  BucketCallOptions,
  UploadSource,
  BucketListOptions,
  Clock,
  FileSystem,
  ObjectAttributes,
} from '../runtime/index.js';
import {
  BlockSource,
  isCanonicalUlid,
  parseBlockMeta,
  serializeBlockMeta,
  ulidFromParts,
  type BlockMeta,
} from '../tsdb/index.js';
import type { BlockSelectOptions, LoadedBlock, StoreChunk, StoreSeries } from './block_api.js';
import type { BlockLoaderFactory, TenantBlockLoader } from './block_loader.js';

/** A bucket that counts calls by kind and object. */
export class CountingBucket implements Bucket {
  readonly calls: { op: string; name: string }[] = [];

  constructor(private readonly inner: Bucket) {}

  get name(): string {
    return this.inner.name;
  }

  count(op: string, match: (name: string) => boolean = () => true): number {
    return this.calls.filter((c) => c.op === op && match(c.name)).length;
  }

  get(name: string, opts?: BucketCallOptions): Promise<Uint8Array> {
    this.calls.push({ op: 'get', name });
    return this.inner.get(name, opts);
  }

  getRange(name: string, offset: number, length: number, opts?: BucketCallOptions) {
    this.calls.push({ op: 'getRange', name });
    return this.inner.getRange(name, offset, length, opts);
  }

  exists(name: string, opts?: BucketCallOptions): Promise<boolean> {
    this.calls.push({ op: 'exists', name });
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

  list(dir: string, opts?: BucketListOptions): Promise<string[]> {
    this.calls.push({ op: 'list', name: dir });
    return this.inner.list(dir, opts);
  }

  attributes(name: string, opts?: BucketCallOptions): Promise<ObjectAttributes> {
    this.calls.push({ op: 'attributes', name });
    return this.inner.attributes(name, opts);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

interface FakeChunk {
  minTime: number;
  maxTime: number;
  offset: number;
  length: number;
}

interface FakeIndex {
  series: { labels: Record<string, string>; chunks: FakeChunk[] }[];
}

export interface FakeSeriesSpec {
  labels: Record<string, string>;
  /** Chunk time ranges; each chunk's bytes are derived from the block ID and position. */
  chunks: [number, number][];
}

export interface FakeBlockSpec {
  tenant: string;
  /** ULID time (ms) and a distinguishing byte for the entropy. */
  ulidTime: number;
  seq: number;
  minTime: number;
  maxTime: number;
  level?: number;
  sources?: string[];
  source?: string;
  series?: FakeSeriesSpec[];
}

export function fakeUlid(timeMs: number, seq: number): string {
  const entropy = new Uint8Array(10);
  entropy[9] = seq & 0xff;
  entropy[8] = (seq >> 8) & 0xff;
  return ulidFromParts(timeMs, entropy);
}

/** Uploads a fake block (chunks, index, then meta.json as shippers do); returns its meta. */
export async function uploadFakeBlock(bucket: Bucket, spec: FakeBlockSpec): Promise<BlockMeta> {
  const id = fakeUlid(spec.ulidTime, spec.seq);
  const index: FakeIndex = { series: [] };
  const chunkBytes: number[] = [];
  for (const s of spec.series ?? [
    { labels: { __name__: 'up' }, chunks: [[spec.minTime, spec.maxTime - 1]] },
  ]) {
    const chunks: FakeChunk[] = [];
    for (const [minTime, maxTime] of s.chunks) {
      const data = new TextEncoder().encode(`${id}:${minTime}:${maxTime}`);
      chunks.push({ minTime, maxTime, offset: chunkBytes.length, length: data.length });
      chunkBytes.push(...data);
    }
    index.series.push({ labels: s.labels, chunks });
  }
  index.series.sort((a, b) =>
    Labels.compare(Labels.fromObject(a.labels), Labels.fromObject(b.labels)),
  );
  const meta: BlockMeta = {
    ulid: id,
    minTime: spec.minTime,
    maxTime: spec.maxTime,
    stats: { numSamples: 1, numSeries: index.series.length, numChunks: 1, numTombstones: 0 },
    compaction: { level: spec.level ?? 1, sources: spec.sources ?? [id] },
    version: 1,
    thanos: {
      labels: { __org_id__: spec.tenant, __ingester_id__: 'ingester-1' },
      downsample: { resolution: 0 },
      source: spec.source ?? BlockSource.Receive,
      segment_files: ['000001'],
    },
  };
  const prefix = `${spec.tenant}/${id}`;
  await bucket.upload(`${prefix}/chunks/000001`, new Uint8Array(chunkBytes));
  await bucket.upload(`${prefix}/index`, new TextEncoder().encode(JSON.stringify(index)));
  await bucket.upload(`${prefix}/meta.json`, new TextEncoder().encode(serializeBlockMeta(meta)));
  return meta;
}

/** Marks a block for deletion at `atMs` (both mark copies, as the compactor writes them). */
export async function markDeleted(
  bucket: Bucket,
  tenant: string,
  id: string,
  atMs: number,
): Promise<void> {
  await writeDeletionMark(bucket, tenant, {
    id,
    version: 1,
    deletion_time: Math.floor(atMs / 1000),
  });
}

/** Deletes every object of a block. */
export async function deleteBlockObjects(
  bucket: Bucket,
  tenant: string,
  id: string,
): Promise<void> {
  for (const name of await bucket.list(`${tenant}/${id}/`, { recursive: true }))
    await bucket.delete(name);
}

/** Writes `<tenant>/bucket-index.json.gz` from the bucket's content (what the cleaner does). */
export async function writeIndexFromBucket(
  bucket: Bucket,
  tenant: string,
  nowMs: number,
): Promise<void> {
  const blocks = [];
  for (const entry of await bucket.list(`${tenant}/`)) {
    const id = entry.slice(tenant.length + 1, -1);
    if (!entry.endsWith('/') || !isCanonicalUlid(id)) continue;
    const path = `${tenant}/${id}/meta.json`;
    if (!(await bucket.exists(path))) continue;
    const meta = parseBlockMeta(new TextDecoder().decode(await bucket.get(path)));
    blocks.push(
      blockFromMeta(meta, Math.floor((await bucket.attributes(path)).lastModified / 1000)),
    );
  }
  const marks = [];
  for (const id of (await listGlobalMarks(bucket, tenant)).deletion) {
    const mark = await readGlobalDeletionMark(bucket, tenant, id);
    if (mark !== undefined) marks.push({ block_id: id, deletion_time: mark.deletion_time });
  }
  await writeBucketIndex(bucket, tenant, {
    version: 1,
    blocks,
    block_deletion_marks: marks,
    updated_at: Math.floor(nowMs / 1000),
  });
}

/** What the fake layer did, for assertions. */
export class FakeLayerStats {
  headerBuilds = 0;
  opens = 0;
  closes = 0;
  /** Resolves queries waiting in `series` (tests of the concurrency gate). */
  hold: Promise<void> | undefined;
  running = 0;
  maxRunning = 0;
}

export function fakeBlockLoader(deps: {
  bucket: Bucket;
  fs: FileSystem;
  clock: Clock;
  stats?: FakeLayerStats;
}): BlockLoaderFactory {
  const stats = deps.stats ?? new FakeLayerStats();
  return (tenant): TenantBlockLoader => ({
    async prepare(meta, dir) {
      const path = `${dir}/index-header`;
      if (await deps.fs.exists(path)) return;
      const bytes = await deps.bucket.getRange(`${tenant}/${meta.ulid}/index`, 0, -1);
      JSON.parse(new TextDecoder().decode(bytes)) as FakeIndex; // a truncated index fails here
      stats.headerBuilds++;
      await deps.fs.writeFile(path, bytes);
    },
    async open(meta, dir) {
      const index = JSON.parse(
        new TextDecoder().decode(await deps.fs.readFile(`${dir}/index-header`)),
      ) as FakeIndex;
      stats.opens++;
      return new FakeBlock(tenant, meta, index, deps, stats);
    },
  });
}

class FakeBlock implements LoadedBlock {
  lastUsedAt: number;
  private closed = false;

  constructor(
    private readonly tenant: string,
    readonly meta: BlockMeta,
    private readonly index: FakeIndex,
    private readonly deps: { bucket: Bucket; clock: Clock },
    private readonly stats: FakeLayerStats,
  ) {
    this.lastUsedAt = deps.clock.now();
  }

  private select(matchers: readonly Matcher[]) {
    if (this.closed) throw new Error(`block ${this.meta.ulid} is closed`);
    this.lastUsedAt = this.deps.clock.now();
    return this.index.series.filter((s) =>
      matchers.every((m) => m.matches(s.labels[m.name] ?? '')),
    );
  }

  async series(
    matchers: readonly Matcher[],
    mint: number,
    maxt: number,
    opts: BlockSelectOptions = {},
  ): Promise<StoreSeries[]> {
    this.stats.running++;
    this.stats.maxRunning = Math.max(this.stats.maxRunning, this.stats.running);
    try {
      if (this.stats.hold !== undefined) await this.stats.hold;
      const out: StoreSeries[] = [];
      for (const s of this.select(matchers)) {
        const chunks = s.chunks.filter((c) => c.maxTime >= mint && c.minTime <= maxt);
        if (chunks.length === 0) continue;
        const stored: StoreChunk[] = [];
        if (opts.skipChunks !== true) {
          for (const c of chunks) {
            const data = await this.deps.bucket.getRange(
              `${this.tenant}/${this.meta.ulid}/chunks/000001`,
              c.offset,
              c.length,
            );
            if (opts.stats) {
              opts.stats.bucketRequests++;
              opts.stats.bucketBytes += data.length;
              opts.stats.chunksFetched++;
            }
            stored.push({ minTime: c.minTime, maxTime: c.maxTime, encoding: 1, data });
          }
        }
        if (opts.stats) opts.stats.seriesFetched++;
        out.push({ labels: Labels.fromObject(s.labels), chunks: stored });
      }
      return out;
    } finally {
      this.stats.running--;
    }
  }

  labelNames(matchers: readonly Matcher[]): Promise<string[]> {
    const names = new Set<string>();
    for (const s of this.select(matchers)) for (const n of Object.keys(s.labels)) names.add(n);
    return Promise.resolve([...names].sort());
  }

  labelValues(name: string, matchers: readonly Matcher[]): Promise<string[]> {
    const values = new Set<string>();
    for (const s of this.select(matchers)) {
      const v = s.labels[name];
      if (v !== undefined) values.add(v);
    }
    return Promise.resolve([...values].sort());
  }

  close(): Promise<void> {
    if (!this.closed) this.stats.closes++;
    this.closed = true;
    return Promise.resolve();
  }
}
