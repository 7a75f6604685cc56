import { afterEach, describe, expect, it } from 'vitest';
import { DiskFileSystem } from '../../sim/testing/index.js';
import { CachingBucket, cortexCachingBucketConfig } from '../bucket/index.js';
import type { ChunksCacheConfig, MetadataCacheConfig } from '../config/index.js';
import { toWireMatchers } from '../ingester/index.js';
import { Labels, Matcher } from '../model/index.js';
import {
  MemoryBucket,
  MemoryNetwork,
  createSeededRandom,
  newMetricsRegistry,
  type Bucket,
  type Cache,
} from '../runtime/index.js';
import { MemoryCache } from '../runtime/memory/index.js';
import { CapturingLogger, ManualClock } from '../runtime/testing/index.js';
import { TENANT_EXTERNAL_LABEL, writeBlock, type BlockSeriesInput } from '../tsdb/index.js';
import { shipBlock, storeSeriesSamples } from './bucket_block.testing.js';
import { TransportStoreGatewayClient } from './client.js';
import { CountingBucket } from './fake_blocks.testing.js';
import { HOUR, MINUTE, T0, gatewayConfig, metricValue } from './gateway_harness.testing.js';
import { IndexCache, expandedPostingsCacheKey } from './index_cache.js';
import { StoreGateway } from './store_gateway.js';

// The store caches end to end: a store-gateway over real blocks answers the same with and
// without the index, chunks and metadata caches, cold or warm, and even when the caches lie.

const TENANT = 'team-a';
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
});

function series(labels: Record<string, string>, start: number, n: number): BlockSeriesInput {
  const ts = new Float64Array(n);
  const vs = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    ts[i] = start + i * 15_000;
    vs[i] = (i * 37) % 101;
  }
  return { labels: Labels.fromObject(labels), timestamps: ts, values: vs };
}

async function blocks(clock: ManualClock): Promise<{ store: MemoryBucket; ids: string[] }> {
  const local = new DiskFileSystem();
  const store = new MemoryBucket({ clock });
  const random = createSeededRandom('store-caches').stream('ulid');
  const ids: string[] = [];
  for (let b = 0; b < 2; b++) {
    const start = T0 - (6 - 2 * b) * HOUR;
    const input = [];
    for (let i = 0; i < 30; i++) {
      input.push(
        series({ __name__: 'up', job: i % 3 === 0 ? 'db' : 'api', i: `${i}` }, start, 500),
      );
    }
    const meta = await writeBlock(
      '/local',
      input,
      { thanos: { labels: { [TENANT_EXTERNAL_LABEL]: TENANT } } },
      { fs: local, clock, random },
    );
    await shipBlock(local, '/local', meta.ulid, store, TENANT);
    ids.push(meta.ulid);
  }
  return { store, ids };
}

const CHUNKS: ChunksCacheConfig = {
  backend: 'memcached',
  memcached: {} as ChunksCacheConfig['memcached'],
  subrange_size: 16000,
  max_get_range_requests: 3,
  attributes_ttl: 168 * HOUR,
  subrange_ttl: 24 * HOUR,
};
const METADATA: MetadataCacheConfig = {
  backend: 'memcached',
  memcached: {} as MetadataCacheConfig['memcached'],
  tenants_list_ttl: 15 * MINUTE,
  tenant_blocks_list_ttl: 15 * MINUTE,
  chunks_list_ttl: 24 * HOUR,
  metafile_exists_ttl: 2 * HOUR,
  metafile_doesnt_exist_ttl: 15 * MINUTE,
  metafile_content_ttl: 24 * HOUR,
  metafile_max_size_bytes: 1 << 20,
};

/** A cache whose every hit comes back one byte short (a corrupted or foreign value). */
class TruncatingCache implements Cache {
  readonly name: string;
  constructor(private readonly inner: Cache) {
    this.name = inner.name;
  }
  async getMulti(keys: readonly string[]): Promise<Map<string, Uint8Array>> {
    const hits = await this.inner.getMulti(keys);
    return new Map([...hits].map(([k, v]) => [k, v.subarray(0, Math.max(0, v.length - 1))]));
  }
  setMulti(entries: ReadonlyMap<string, Uint8Array>, ttlMs: number): void {
    this.inner.setMulti(entries, ttlMs);
  }
  delete(key: string): Promise<void> {
    return this.inner.delete(key);
  }
  close(): Promise<void> {
    return this.inner.close();
  }
}

async function gateway(
  clock: ManualClock,
  bucket: Bucket,
  caches?: { index: Cache; chunks: Cache; metadata: Cache },
) {
  const network = new MemoryNetwork();
  const metrics = newMetricsRegistry();
  const transport = network.transport('sg-1');
  const served =
    caches === undefined
      ? bucket
      : new CachingBucket(
          bucket,
          cortexCachingBucketConfig({
            chunks: { config: CHUNKS, cache: caches.chunks },
            metadata: { config: METADATA, cache: caches.metadata },
          }),
          { clock, registry: metrics },
        );
  const g = new StoreGateway(gatewayConfig(), {
    bucket: served,
    fs: new DiskFileSystem(),
    clock,
    random: createSeededRandom('sg'),
    logger: new CapturingLogger(),
    metrics,
    transport,
    ...(caches === undefined
      ? {}
      : { indexCache: new IndexCache({ cache: caches.index, registry: metrics }) }),
  });
  await transport.listen();
  await g.start(new AbortController().signal);
  closers.push(() => g.stop());
  const client = new TransportStoreGatewayClient(network.transport('querier'));
  return { client, metrics };
}

function memoryCaches(clock: ManualClock): { index: Cache; chunks: Cache; metadata: Cache } {
  const make = (name: string) => new MemoryCache({ name, maxSizeBytes: 64 << 20 }, { clock });
  return {
    index: make('index-cache'),
    chunks: make('chunks-cache'),
    metadata: make('metadata-cache'),
  };
}

const QUERIES: Matcher[][] = [
  [Matcher.equal('job', 'api')],
  [Matcher.equal('__name__', 'up'), new Matcher('=~', 'i', '1.*|2')],
  [new Matcher('!=', 'job', 'api')],
];

describe('store-gateway with store caches', () => {
  it('answers as without caches, cold and warm, and warm reads no index or chunks', async () => {
    const clock = new ManualClock(T0);
    const { store, ids } = await blocks(clock);
    const plain = await gateway(clock, store);
    const counting = new CountingBucket(store);
    const cached = await gateway(clock, counting, memoryCaches(clock));
    const ask = (c: typeof plain.client, matchers: Matcher[]) =>
      c.series('sg-1', TENANT, {
        start: T0 - 5 * HOUR,
        end: T0 - 1 * HOUR,
        matchers: toWireMatchers(matchers),
        blockIds: ids,
      });
    const reads = (suffix: string) => counting.count('getRange', (n) => n.includes(suffix));
    for (const matchers of QUERIES) {
      const expected = await ask(plain.client, matchers);
      expect(expected.series.length).toBeGreaterThan(0);
      const samples = storeSeriesSamples(expected.series, T0 - 5 * HOUR, T0 - HOUR).sort();
      const coldIndex = reads('/index');
      const coldChunks = reads('/chunks/');
      const cold = await ask(cached.client, matchers);
      expect(storeSeriesSamples(cold.series, T0 - 5 * HOUR, T0 - HOUR).sort()).toEqual(samples);
      expect(reads('/index')).toBeGreaterThan(coldIndex);
      // Later queries find their chunks in sub-ranges earlier ones cached (small segments).
      if (matchers === QUERIES[0]) expect(reads('/chunks/')).toBeGreaterThan(coldChunks);
      const warmIndex = reads('/index');
      const warmChunks = reads('/chunks/');
      const warm = await ask(cached.client, matchers);
      expect(warm.series.map((s) => s.labels.toString())).toEqual(
        expected.series.map((s) => s.labels.toString()),
      );
      expect(storeSeriesSamples(warm.series, T0 - 5 * HOUR, T0 - HOUR).sort()).toEqual(samples);
      expect(reads('/index')).toBe(warmIndex);
      expect(reads('/chunks/')).toBe(warmChunks);
    }
    const hits = (item_type: string) =>
      metricValue(cached.metrics, 'thanos_store_index_cache_hits_total', { item_type });
    expect(await hits('ExpandedPostings')).toBe(QUERIES.length * ids.length);
    expect(
      await metricValue(cached.metrics, 'thanos_store_bucket_cache_operation_hits_total', {
        operation: 'get_range',
        config: 'chunks',
      }),
    ).toBeGreaterThan(0);
  });

  it('answers correctly from caches that return corrupted values', async () => {
    const clock = new ManualClock(T0);
    const { store, ids } = await blocks(clock);
    const plain = await gateway(clock, store);
    const good = memoryCaches(clock);
    const lying = {
      index: new TruncatingCache(good.index),
      chunks: new TruncatingCache(good.chunks),
      metadata: new TruncatingCache(good.metadata),
    };
    const cached = await gateway(clock, store, lying);
    for (const matchers of QUERIES) {
      for (let round = 0; round < 2; round++) {
        const req = {
          start: T0 - 5 * HOUR,
          end: T0 - HOUR,
          matchers: toWireMatchers(matchers),
          blockIds: ids,
        };
        const want = await plain.client.series('sg-1', TENANT, req);
        const got = await cached.client.series('sg-1', TENANT, req);
        expect(got.queriedBlocks).toEqual(want.queriedBlocks);
        expect(storeSeriesSamples(got.series, req.start, req.end).sort()).toEqual(
          storeSeriesSamples(want.series, req.start, req.end).sort(),
        );
      }
    }
  });

  it('detects a cached expanded postings list that belongs to other matchers', async () => {
    const clock = new ManualClock(T0);
    const { store, ids } = await blocks(clock);
    const plain = await gateway(clock, store);
    const caches = memoryCaches(clock);
    const cached = await gateway(clock, store, caches);
    const req = (matchers: Matcher[]) => ({
      start: T0 - 5 * HOUR,
      end: T0 - HOUR,
      matchers: toWireMatchers(matchers),
      blockIds: ids,
    });
    const all = [Matcher.equal('__name__', 'up')];
    const db = [Matcher.equal('job', 'db')];
    await cached.client.series('sg-1', TENANT, req(all));
    // Poison: the entry for job="db" holds the postings of every series.
    for (const id of ids) {
      const value = (await caches.index.getMulti([expandedPostingsCacheKey(id, all)])).get(
        expandedPostingsCacheKey(id, all),
      );
      expect(value).toBeDefined();
      caches.index.setMulti(new Map([[expandedPostingsCacheKey(id, db), value as Uint8Array]]), 0);
    }
    const want = await plain.client.series('sg-1', TENANT, req(db));
    const got = await cached.client.series('sg-1', TENANT, req(db));
    expect(got.series.map((s) => s.labels.toString())).toEqual(
      want.series.map((s) => s.labels.toString()),
    );
  });
});
