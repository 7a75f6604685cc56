import { MemcachedClient } from '../../cache/index.js';
import type { Bucket, BucketSpec } from '../bucket.js';
import type { Cache, CacheSpec } from '../cache.js';
import type { Clock } from '../clock.js';
import type { BucketProvider, CacheProvider, KVProvider } from '../env.js';
import type { KV, KVSpec } from '../kv.js';
import type { Logger } from '../logger.js';
import { MemoryBucket, MemoryCache, MemoryKV, MemoryKVStore } from '../memory/index.js';
import { openMemberlistClient } from '../memberlist/index.js';
import { newMetricsRegistry, type MetricsRegistry } from '../metrics.js';
import { MultiKV, type MultiKVRuntimeSettings } from '../multi/index.js';
import { AzureBucket } from './azure_bucket.js';
import { EtcdKV } from './etcd_kv.js';
import { FilesystemBucket } from './filesystem_bucket.js';
import { GcsBucket } from './gcs_bucket.js';
import { RealClock } from './real_clock.js';
import { createRealLogger } from './real_logger.js';
import { S3Bucket } from './s3_bucket.js';
import { NetDialer } from './memcached_dialer.js';
import { NodeResolver } from './dns_resolver.js';

/**
 * Opens the raw bucket clients: filesystem, in-memory, S3 (minio client), GCS and Azure. They
 * neither retry nor count: `src/bucket`'s `openBucketClient` wraps what this returns with
 * retries, timeouts and the objstore metrics, the same way in the real process and in the
 * simulator.
 */
export class RealBucketProvider implements BucketProvider {
  constructor(private readonly deps: { clock: Clock }) {}

  open(spec: BucketSpec): Bucket {
    switch (spec.backend) {
      case 'filesystem':
        return new FilesystemBucket(spec.dir, this.deps.clock);
      case 'inmemory':
        return new MemoryBucket({ clock: this.deps.clock });
      case 's3':
        return new S3Bucket(spec);
      case 'gcs':
        return new GcsBucket(spec);
      case 'azure':
        return new AzureBucket(spec);
    }
  }
}

/**
 * Opens KV clients. Every `inmemory` client of this provider shares ONE store, as every ring
 * of a single Cortex process shares its in-memory KV, so the distributor sees the ingesters'
 * ring when both run in one process. `etcd` clients talk to etcd's v3 HTTP gateway; `multi`
 * composes two of the others. The provider remembers the multi clients it opened so a
 * runtime-config reload can switch all of their primaries at once (`applyMultiKVConfig`).
 */
export class RealKVProvider implements KVProvider {
  private readonly memoryStore = new MemoryKVStore();
  private readonly multiClients = new Set<MultiKV>();
  private readonly logger: Logger;
  private readonly clock: Clock;
  private readonly registry: MetricsRegistry;

  /** Without deps (older wiring), logs go to stderr and multi metrics to a private registry. */
  constructor(deps: { logger?: Logger; clock?: Clock; registry?: MetricsRegistry } = {}) {
    this.logger = deps.logger ?? createRealLogger({ level: 'info' });
    this.clock = deps.clock ?? new RealClock({}, { logger: this.logger });
    this.registry = deps.registry ?? newMetricsRegistry();
  }

  open(spec: KVSpec, prefix: string): KV {
    switch (spec.store) {
      case 'inmemory':
        return new MemoryKV({ prefix }, { store: this.memoryStore });
      case 'etcd':
        return new EtcdKV(
          { endpoints: spec.endpoints, dialTimeoutMs: spec.dialTimeoutMs, prefix },
          { logger: this.logger.child({ module: 'kv', store: 'etcd', prefix }) },
        );
      case 'multi': {
        if (spec.primary.store === 'multi' || spec.secondary.store === 'multi') {
          throw new Error('kv store "multi": the primary and secondary cannot themselves be multi');
        }
        const primaryKV = this.open(spec.primary, prefix);
        let secondaryKV: KV;
        try {
          secondaryKV = this.open(spec.secondary, prefix);
        } catch (err) {
          void primaryKV.close();
          throw err;
        }
        const multi: MultiKV = new MultiKV(
          {
            primary: spec.primary.store,
            secondary: spec.secondary.store,
            ...(spec.mirrorEnabled === undefined ? {} : { mirrorEnabled: spec.mirrorEnabled }),
            ...(spec.mirrorTimeoutMs === undefined
              ? {}
              : { mirrorTimeoutMs: spec.mirrorTimeoutMs }),
            name: prefix,
          },
          {
            primaryKV,
            secondaryKV,
            clock: this.clock,
            logger: this.logger.child({ module: 'kv', store: 'multi', prefix }),
            registry: this.registry,
            onClose: () => this.multiClients.delete(multi),
          },
        );
        this.multiClients.add(multi);
        return multi;
      }
      case 'memberlist':
        return openMemberlistClient(spec, prefix);
      case 'consul':
        throw new Error(
          `kv store ${JSON.stringify(spec.store)} is not supported yet: it arrives with the ` +
            `compactor issue; use "inmemory", "etcd", "memberlist" or "multi"`,
        );
    }
  }

  /**
   * Applies the runtime configuration's `multi_kv_config` to every open multi client:
   * `primary` switches the primary store (watches move to it), `mirror_enabled` toggles
   * mirroring. Absent or empty fields change nothing, as in Cortex.
   */
  applyMultiKVConfig(settings: Readonly<MultiKVRuntimeSettings>): void {
    for (const multi of this.multiClients) multi.applyRuntimeConfig(settings);
  }

  /** Switches the primary of every open multi client to `store`; see MultiKV.switchPrimary. */
  switchPrimary(store: string): void {
    for (const multi of this.multiClients) multi.switchPrimary(store);
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
      case 'memcached': {
        const { backend: _backend, ...limits } = spec;
        this.deps.logger.info('created memcached cache', { name, addresses: spec.addresses });
        return new MemcachedClient(
          { name, ...limits },
          {
            clock: this.deps.clock,
            registry: this.deps.registry,
            logger: this.deps.logger.child({ module: 'memcached', cache: name }),
            resolver: new NodeResolver(),
            dialer: new NetDialer(),
          },
        );
      }
    }
  }
}
