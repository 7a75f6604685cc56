// The store caches as the app opens them: names and specs from the bucket_store cache blocks,
// which component gets which cache, and a bucket that caches what the config says.
import { describe, expect, it } from 'vitest';
import { DiskFileSystem } from '../../sim/testing/index.js';
import { defaultConfig, type Config } from '../config/index.js';
import {
  createSeededRandom,
  newMetricsRegistry,
  type CacheSpec,
  type Env,
} from '../runtime/index.js';
import {
  MemoryBucket,
  MemoryCache,
  MemoryNetwork,
  MemoryTransport,
} from '../runtime/memory/index.js';
import { CapturingLogger, ManualClock } from '../runtime/testing/index.js';
import { StrataContext } from './context.js';
import { indexCacheSpec, memcachedCacheSpec, openCachedComponentBucket } from './store_caches.js';

function context(edit: (c: Config) => void) {
  const config = defaultConfig();
  config.tsdb.backend = 'filesystem';
  config.tsdb.filesystem.dir = '/blocks';
  edit(config);
  const clock = new ManualClock(1_700_000_000_000);
  const bucket = new MemoryBucket({ clock });
  const opened: { name: string; spec: CacheSpec }[] = [];
  const env: Env = {
    nodeName: 'n1',
    clock,
    random: createSeededRandom('store-caches'),
    fs: new DiskFileSystem(),
    transport: new MemoryTransport('n1:9095', new MemoryNetwork()),
    buckets: { open: () => bucket },
    kvs: {
      open: () => {
        throw new Error('no KV in this test');
      },
    },
    caches: {
      // Whatever the backend, a local LRU stands in for it here.
      open: (name, spec) => {
        opened.push({ name, spec });
        return new MemoryCache({ name, maxSizeBytes: 1 << 20 }, { clock });
      },
    },
    logger: new CapturingLogger(),
    metrics: newMetricsRegistry(),
  };
  const ctx = new StrataContext(
    config,
    env,
    {},
    () => [],
    () => [],
  );
  return { ctx, bucket, opened };
}

const MEMCACHED = {
  addresses: 'dns+memcached-1:11211, dns+memcached-2:11211',
  timeout: 100,
  max_idle_connections: 16,
  max_async_concurrency: 50,
  max_async_buffer_size: 10000,
  max_get_multi_concurrency: 100,
  max_get_multi_batch_size: 0,
  max_item_size: 1048576,
};

describe('store caches wiring', () => {
  it('builds specs from the config blocks', () => {
    expect(memcachedCacheSpec(MEMCACHED)).toEqual({
      backend: 'memcached',
      addresses: ['dns+memcached-1:11211', 'dns+memcached-2:11211'],
      timeoutMs: 100,
      maxIdleConnections: 16,
      maxAsyncConcurrency: 50,
      maxAsyncBufferSize: 10000,
      maxGetMultiConcurrency: 100,
      maxGetMultiBatchSize: 0,
      maxItemSize: 1048576,
    });
    const index = defaultConfig().tsdb.bucket_store.index_cache;
    expect(indexCacheSpec(index)).toEqual({ backend: 'inmemory', maxSizeBytes: 1073741824 });
    expect(indexCacheSpec({ ...index, backend: '' })).toBeUndefined();
  });

  it('opens only the default in-memory index cache for a store-gateway by default', async () => {
    const { ctx, opened } = context(() => {});
    const { indexCache, bucket } = openCachedComponentBucket(ctx, 'store-gateway');
    expect(opened.map((o) => o.name)).toEqual(['index-cache']);
    expect(indexCache).toBeDefined();
    await bucket.close();
  });

  it('opens the chunks and metadata caches named as Cortex does and caches through them', async () => {
    const {
      ctx,
      bucket: store,
      opened,
    } = context((c) => {
      const bs = c.tsdb.bucket_store;
      bs.index_cache.backend = 'memcached';
      bs.index_cache.memcached = MEMCACHED;
      bs.chunks_cache.backend = 'memcached';
      bs.chunks_cache.memcached = MEMCACHED;
      bs.metadata_cache.backend = 'memcached';
      bs.metadata_cache.memcached = MEMCACHED;
    });
    const { bucket } = openCachedComponentBucket(ctx, 'store-gateway');
    expect(opened.map((o) => o.name)).toEqual(['chunks-cache', 'metadata-cache', 'index-cache']);
    expect(opened.every((o) => o.spec.backend === 'memcached')).toBe(true);
    await store.upload('t1/01HZZZZZZZZZZZZZZZZZZZZZZZ/meta.json', new TextEncoder().encode('{}'));
    expect(await bucket.list('')).toEqual(['t1/']);
    await store.upload('t2/01HZZZZZZZZZZZZZZZZZZZZZZZ/meta.json', new TextEncoder().encode('{}'));
    expect(await bucket.list('')).toEqual(['t1/']); // the tenants list is cached (15m)
    await bucket.close();
  });

  it('gives the compactor the metadata cache only, and a querier that embeds no gateway no index cache', () => {
    const { ctx, opened } = context((c) => {
      c.tsdb.bucket_store.chunks_cache.backend = 'memcached';
      c.tsdb.bucket_store.metadata_cache.backend = 'memcached';
    });
    openCachedComponentBucket(ctx, 'compactor');
    expect(opened.map((o) => o.name)).toEqual(['metadata-cache']);
    opened.length = 0;
    const q = openCachedComponentBucket(ctx, 'querier', false);
    expect(opened.map((o) => o.name)).toEqual(['metadata-cache']);
    expect(q.indexCache).toBeUndefined();
  });
});
