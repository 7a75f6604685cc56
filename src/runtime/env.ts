import type { ComputePool } from './compute.js';
import type { Bucket, BucketSpec } from './bucket.js';
import type { Cache, CacheSpec } from './cache.js';
import type { Clock } from './clock.js';
import type { FileSystem } from './filesystem.js';
import type { KV, KVSpec } from './kv.js';
import type { Logger } from './logger.js';
import type { MetricsRegistry } from './metrics.js';
import type { Random } from './random.js';
import type { Transport } from './transport.js';

/**
 * Everything nondeterministic a component may use. One Env per process (real) or per
 * simulated node. Backends chosen by configuration are opened through the providers so the
 * simulator can substitute its own.
 */
export interface Env {
  /** Stable name of this node (real: hostname or -ring.instance-id; simulated: node name). */
  readonly nodeName: string;
  readonly clock: Clock;
  readonly random: Random;
  readonly fs: FileSystem;
  readonly transport: Transport;
  readonly buckets: BucketProvider;
  readonly kvs: KVProvider;
  readonly caches: CacheProvider;
  readonly logger: Logger;
  readonly metrics: MetricsRegistry;
  /**
   * Threads for CPU-heavy work (query evaluation) off the event loop; absent in simulation
   * and tests, where such work runs inline and deterministically.
   */
  readonly compute?: ComputePool;
}

export interface BucketProvider {
  /** Opens a bucket client; callers own it and close it. */
  open(spec: BucketSpec): Bucket;
}

export interface KVProvider {
  /**
   * Opens a client of the store under `prefix` (e.g. `collectors/`). In-memory stores with
   * the same spec are shared within the process (real) or the cluster (simulated).
   */
  open(spec: KVSpec, prefix: string): KV;
}

export interface CacheProvider {
  /** Opens a cache client; `name` labels its metrics (e.g. `index-cache`). */
  open(name: string, spec: CacheSpec): Cache;
}
