import type { Bucket, BucketSpec } from '../bucket.js';
import type { Cache, CacheSpec } from '../cache.js';
import type { Clock } from '../clock.js';
import type { BucketProvider, CacheProvider, KVProvider } from '../env.js';
import type { KV, KVSpec } from '../kv.js';
import type { Logger } from '../logger.js';
import { MemoryBucket, MemoryCache, MemoryKV, MemoryKVStore } from '../memory/index.js';
import type { MetricsRegistry } from '../metrics.js';
import { FilesystemBucket } from './filesystem_bucket.js';

/** Opens the bucket backends this build has; the object-storage clients arrive later. */
export class RealBucketProvider implements BucketProvider {
  constructor(private readonly deps: { clock: Clock }) {}

  open(spec: BucketSpec): Bucket {
    switch (spec.backend) {
      case 'filesystem':
        return new FilesystemBucket(spec.dir, this.deps.clock);
      case 'inmemory':
        return new MemoryBucket({ clock: this.deps.clock });
      case 's3':
      case 'gcs':
      case 'azure':
        throw new Error(
          `bucket backend ${JSON.stringify(spec.backend)} is not supported yet: it arrives with the ` +
            `object-storage issue; use "filesystem" or "inmemory"`,
        );
    }
  }
}

/**
 * Opens KV clients. Every `inmemory` client of this provider shares ONE store, as every ring
 * of a single Cortex process shares its in-memory KV, so the distributor sees the ingesters'
 * ring when both run in one process.
 */
export class RealKVProvider implements KVProvider {
  private readonly memoryStore = new MemoryKVStore();

  open(spec: KVSpec, prefix: string): KV {
    switch (spec.store) {
      case 'inmemory':
        return new MemoryKV({ prefix }, { store: this.memoryStore });
      case 'consul':
      case 'etcd':
      case 'memberlist':
      case 'multi':
        throw new Error(
          `kv store ${JSON.stringify(spec.store)} is not supported yet; use "inmemory" (single process)`,
        );
    }
  }
}

/** Opens caches; `name` labels the cache's metrics in the process registry. */
export class RealCacheProvider implements CacheProvider {
  constructor(private readonly deps: { clock: Clock; registry: MetricsRegistry; logger: Logger }) {}

  open(name: string, spec: CacheSpec): Cache {
    switch (spec.backend) {
      case 'inmemory':
        this.deps.logger.info('created in-memory cache', { name, maxSizeBytes: spec.maxSizeBytes });
        return new MemoryCache(
          { name, maxSizeBytes: spec.maxSizeBytes },
          { clock: this.deps.clock, registry: this.deps.registry },
        );
      case 'memcached':
        throw new Error(
          `cache backend "memcached" (cache ${JSON.stringify(name)}) is not supported yet; use "inmemory"`,
        );
    }
  }
}
