import {
  MemoryKVStore,
  type BucketSpec,
  type CacheSpec,
  type Clock,
  type KVSpec,
  type Random,
} from '../../src/runtime/index.js';
import type { SimKernel } from '../kernel/index.js';
import { LogSink } from './captured_logger.js';
import type { LatencySpec } from './latency.js';
import { SimObjectStore, type ThrottleLimit } from './sim_bucket.js';
import { SimCacheServer } from './sim_cache.js';
import { SimMemcachedCluster, type SimMemcachedConfig } from './sim_memcached_server.js';
import { SimNetwork, type SimNetworkConfig } from './sim_network.js';
import { ServiceHealth } from './service_call.js';

/** Every knob of the simulated runtime (a scenario's `network`, `disk` and service sections). */
export interface SimRuntimeConfig {
  network: SimNetworkConfig;
  disk: {
    opLatency: LatencySpec;
    syncLatency: LatencySpec;
    /** On power loss, keep a random prefix of unsynced appended bytes instead of none. */
    tornWrites: boolean;
  };
  objectStore: {
    latency: LatencySpec;
    errorRate: number;
    listDelayMs: number;
    opsPerSecond: number;
    burst: number;
  };
  kv: { latency: LatencySpec; errorRate: number };
  cache: { latency: LatencySpec; errorRate: number; maxSizeBytes: number };
  /** Simulated memcached servers and DNS; when set, `memcached` cache specs use the real client. */
  memcached?: SimMemcachedConfig;
}

export const OBJECT_STORE_SERVICE = 'objstore';
export const KV_SERVICE = 'kv';
export const CACHE_SERVICE = 'cache';

/**
 * The parts of a simulated cluster every node shares: the kernel, the seeded streams, the
 * network, the object stores, KV stores and cache servers (keyed by what the node's spec
 * names), service health, and the log sink. Nodes reach the shared services only through the
 * clients their Env hands out.
 */
export class SimServices {
  readonly network: SimNetwork;
  readonly health = new ServiceHealth();
  readonly logs = new LogSink();
  /** Cluster-level virtual clock (no skew, no owner): TTLs and timestamps of shared services. */
  readonly clock: Clock;
  private readonly objectStores = new Map<string, SimObjectStore>();
  private readonly kvStores = new Map<string, MemoryKVStore>();
  private readonly cacheServers = new Map<string, SimCacheServer>();
  /** The memcached servers and DNS of the scenario's `memcached` section, if any. */
  readonly memcached: SimMemcachedCluster | undefined;
  /** A throttling fault in force, for the object stores present and to come. */
  private throttle: ThrottleLimit | undefined;

  constructor(
    readonly config: SimRuntimeConfig,
    readonly deps: { kernel: SimKernel; random: Random },
  ) {
    this.network = new SimNetwork(config.network, {
      kernel: deps.kernel,
      random: deps.random.stream('network'),
    });
    const kernel = deps.kernel;
    this.clock = {
      now: () => kernel.now(),
      sleep: () =>
        Promise.reject(new Error('the cluster clock only tells time; sleep on a node clock')),
      yieldTurn: () => Promise.resolve(),
      setTimer: () => {
        throw new Error('the cluster clock only tells time; use a node clock for timers');
      },
      every: () => {
        throw new Error('the cluster clock only tells time; use a node clock for timers');
      },
    };
    this.memcached =
      config.memcached === undefined
        ? undefined
        : new SimMemcachedCluster(config.memcached, { clock: this.clock, random: deps.random });
  }

  get kernel(): SimKernel {
    return this.deps.kernel;
  }

  objectStore(spec: BucketSpec): SimObjectStore {
    const key = bucketKey(spec);
    let store = this.objectStores.get(key);
    if (store === undefined) {
      const c = this.config.objectStore;
      store = new SimObjectStore(
        { name: key, listDelayMs: c.listDelayMs, opsPerSecond: c.opsPerSecond, burst: c.burst },
        { clock: this.clock },
      );
      if (this.throttle !== undefined) store.setThrottle(this.throttle);
      this.objectStores.set(key, store);
    }
    return store;
  }

  kvStore(spec: KVSpec): MemoryKVStore {
    const key = JSON.stringify(spec);
    let store = this.kvStores.get(key);
    if (store === undefined) {
      store = new MemoryKVStore();
      this.kvStores.set(key, store);
    }
    return store;
  }

  cacheServer(spec: CacheSpec): SimCacheServer {
    const key = spec.backend === 'memcached' ? `memcached:${spec.addresses.join(',')}` : 'inmemory';
    let server = this.cacheServers.get(key);
    if (server === undefined) {
      server = new SimCacheServer(
        { name: key, maxSizeBytes: this.config.cache.maxSizeBytes },
        { clock: this.clock },
      );
      this.cacheServers.set(key, server);
    }
    return server;
  }

  /** The cache-loss fault: every shared cache server (simulated memcached too) loses all entries. */
  wipeCaches(): void {
    for (const server of this.cacheServers.values()) server.wipe();
    this.memcached?.wipe();
  }

  /** The throttling fault: every object store throttles at `limit` (undefined: as configured). */
  throttleObjectStores(limit: ThrottleLimit | undefined): void {
    this.throttle = limit;
    for (const store of this.objectStores.values()) store.setThrottle(limit);
  }

  allObjectStores(): SimObjectStore[] {
    return [...this.objectStores.values()];
  }
}

/** Which shared store a bucket spec names: every backend maps to one store per bucket/dir. */
export function bucketKey(spec: BucketSpec): string {
  switch (spec.backend) {
    case 'filesystem':
      return `filesystem:${spec.dir}`;
    case 'inmemory':
      return 'inmemory';
    case 's3':
    case 'gcs':
      return `${spec.backend}:${spec.bucketName}`;
    case 'azure':
      return `azure:${spec.containerName}`;
  }
}
