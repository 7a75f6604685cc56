/**
 * The store caches of a component's blocks bucket, from the `tsdb.bucket_store` cache blocks:
 * the index cache (store-gateway; `inmemory` by default), and the chunks and metadata caches
 * (off unless a backend is set) through a CachingBucket as Cortex's CreateCachingBucket sets
 * them up. Caches are opened through `env.caches` under Cortex's names (`index-cache`,
 * `chunks-cache`, `metadata-cache`) and closed with the component's bucket.
 */
import { CachingBucket, cortexCachingBucketConfig } from '../bucket/index.js';
import type { IndexCacheConfig, MemcachedClientConfig } from '../config/index.js';
import { ForwardingBucket } from '../runtime/forwarding_bucket.js';
import type { Bucket, Cache, CacheSpec } from '../runtime/index.js';
import { IndexCache, MEMCACHED_INDEX_CACHE_TTL_MS } from '../storegateway/index.js';
import { openComponentBucket } from './bucket.js';
import type { StrataContext } from './context.js';

/** The memcached CacheSpec of a cache's `memcached` block. */
export function memcachedCacheSpec(m: MemcachedClientConfig): CacheSpec {
  return {
    backend: 'memcached',
    addresses: m.addresses
      .split(',')
      .map((a) => a.trim())
      .filter((a) => a !== ''),
    timeoutMs: m.timeout,
    maxIdleConnections: m.max_idle_connections,
    maxAsyncConcurrency: m.max_async_concurrency,
    maxAsyncBufferSize: m.max_async_buffer_size,
    maxGetMultiConcurrency: m.max_get_multi_concurrency,
    maxGetMultiBatchSize: m.max_get_multi_batch_size,
    maxItemSize: m.max_item_size,
  };
}

/** The index cache's spec; undefined when disabled (an empty backend). */
export function indexCacheSpec(c: IndexCacheConfig): CacheSpec | undefined {
  if (c.backend === 'inmemory')
    return { backend: 'inmemory', maxSizeBytes: c.inmemory.max_size_bytes };
  if (c.backend === 'memcached') return memcachedCacheSpec(c.memcached);
  return undefined;
}

/** The spec of a chunks or metadata cache; undefined when its backend is empty. */
export function optionalCacheSpec(c: {
  backend: string;
  memcached: MemcachedClientConfig;
}): CacheSpec | undefined {
  return c.backend === 'memcached' ? memcachedCacheSpec(c.memcached) : undefined;
}

export interface CachedComponentBucket {
  /** The component's bucket, caching what its configuration says; closing it closes the caches. */
  readonly bucket: Bucket;
  /** The store-gateway's index cache (store-gateway and querier only). */
  readonly indexCache: IndexCache | undefined;
}

/**
 * `component`'s blocks bucket with its store caches: every component gets the metadata cache
 * (the compactor in Cortex's compactor form); the store-gateway, and a querier that embeds a
 * bucket store (`readsBlocks`), also get the index and chunks caches.
 */
export function openCachedComponentBucket(
  ctx: StrataContext,
  component: 'store-gateway' | 'querier' | 'compactor',
  readsBlocks = component === 'store-gateway',
): CachedComponentBucket {
  const { env } = ctx;
  const bs = ctx.config.tsdb.bucket_store;
  const opened: Cache[] = [];
  const open = (name: string, spec: CacheSpec | undefined): Cache | undefined => {
    if (spec === undefined) return undefined;
    const cache = env.caches.open(name, spec);
    opened.push(cache);
    return cache;
  };
  const store = component !== 'compactor' && readsBlocks;
  const chunks = store ? open('chunks-cache', optionalCacheSpec(bs.chunks_cache)) : undefined;
  const metadata = open('metadata-cache', optionalCacheSpec(bs.metadata_cache));
  const indexSpec = store ? indexCacheSpec(bs.index_cache) : undefined;
  const index = open('index-cache', indexSpec);
  const config = cortexCachingBucketConfig({
    ...(chunks === undefined ? {} : { chunks: { config: bs.chunks_cache, cache: chunks } }),
    ...(metadata === undefined ? {} : { metadata: { config: bs.metadata_cache, cache: metadata } }),
    forCompactor: component === 'compactor',
  });
  const raw = openComponentBucket(ctx, component);
  const inner = config.empty
    ? raw
    : new CachingBucket(raw, config, {
        clock: env.clock,
        registry: env.metrics,
        logger: env.logger,
      });
  return {
    bucket: new CacheClosingBucket(inner, opened),
    indexCache:
      index === undefined
        ? undefined
        : new IndexCache({
            cache: index,
            registry: env.metrics,
            // The in-memory LRU keeps entries until evicted; memcached ones expire (Thanos).
            ttlMs: indexSpec?.backend === 'memcached' ? MEMCACHED_INDEX_CACHE_TTL_MS : 0,
          }),
  };
}

/** Closes the caches after the bucket. */
class CacheClosingBucket extends ForwardingBucket {
  constructor(
    inner: Bucket,
    private readonly caches: readonly Cache[],
  ) {
    super(inner);
  }

  override async close(): Promise<void> {
    try {
      await super.close();
    } finally {
      for (const c of this.caches) await c.close();
    }
  }
}
