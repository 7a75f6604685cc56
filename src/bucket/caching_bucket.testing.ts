/**
 * Test support for the caching bucket: a bucket that logs every call with its arguments, a
 * cache whose reads can be made to fail, and a rig of both around a MemoryBucket and a
 * MemoryCache on a ManualClock. Only tests import this file.
 */
import { ForwardingBucket } from '../runtime/forwarding_bucket.js';
import {
  newMetricsRegistry,
  type BucketCallOptions,
  type BucketListOptions,
  type Cache,
  type MetricsRegistry,
  type ObjectAttributes,
} from '../runtime/index.js';
import { MemoryBucket, MemoryCache } from '../runtime/memory/index.js';
import { ManualClock } from '../runtime/testing/index.js';
import { CachingBucket } from './caching_bucket.js';
import type { CachingBucketConfig } from './caching_bucket_config.js';

export interface LoggedCall {
  op: string;
  name: string;
  offset?: number;
  length?: number;
}

/** Logs the read calls that reach the bucket. */
export class CallLogBucket extends ForwardingBucket {
  readonly calls: LoggedCall[] = [];

  count(op: string): number {
    return this.calls.filter((c) => c.op === op).length;
  }
  override get(name: string, opts?: BucketCallOptions): Promise<Uint8Array> {
    this.calls.push({ op: 'get', name });
    return super.get(name, opts);
  }
  override getRange(
    name: string,
    offset: number,
    length: number,
    opts?: BucketCallOptions,
  ): Promise<Uint8Array> {
    this.calls.push({ op: 'getRange', name, offset, length });
    return super.getRange(name, offset, length, opts);
  }
  override exists(name: string, opts?: BucketCallOptions): Promise<boolean> {
    this.calls.push({ op: 'exists', name });
    return super.exists(name, opts);
  }
  override list(dir: string, opts?: BucketListOptions): Promise<string[]> {
    this.calls.push({ op: 'list', name: dir });
    return super.list(dir, opts);
  }
  override attributes(name: string, opts?: BucketCallOptions): Promise<ObjectAttributes> {
    this.calls.push({ op: 'attributes', name });
    return super.attributes(name, opts);
  }
}

/** A cache wrapper whose reads reject while `failing` (a cache node that is down). */
export class FlakyCache implements Cache {
  failing = false;
  readonly name: string;
  constructor(readonly inner: Cache) {
    this.name = inner.name;
  }
  getMulti(keys: readonly string[], signal?: AbortSignal): Promise<Map<string, Uint8Array>> {
    if (this.failing) return Promise.reject(new Error('cache down'));
    return this.inner.getMulti(keys, signal);
  }
  setMulti(entries: ReadonlyMap<string, Uint8Array>, ttlMs: number): void {
    if (this.failing) throw new Error('cache down');
    this.inner.setMulti(entries, ttlMs);
  }
  delete(key: string): Promise<void> {
    return this.inner.delete(key);
  }
  close(): Promise<void> {
    return this.inner.close();
  }
}

export interface Rig {
  clock: ManualClock;
  store: MemoryBucket;
  log: CallLogBucket;
  memory: MemoryCache;
  cache: FlakyCache;
  registry: MetricsRegistry;
  bucket: CachingBucket;
}

export function rig(config: (cache: Cache) => CachingBucketConfig): Rig {
  const clock = new ManualClock(1_700_000_000_000);
  const store = new MemoryBucket({ clock });
  const log = new CallLogBucket(store);
  const memory = new MemoryCache({ name: 'test-cache', maxSizeBytes: 64 << 20 }, { clock });
  const cache = new FlakyCache(memory);
  const registry = newMetricsRegistry();
  const bucket = new CachingBucket(log, config(cache), { clock, registry });
  return { clock, store, log, memory, cache, registry, bucket };
}

/** `n` bytes whose value at i is a function of i (so misplaced bytes show). */
export function pattern(n: number): Uint8Array {
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) out[i] = (i * 7 + (i >> 8)) & 0xff;
  return out;
}

export async function counter(
  registry: MetricsRegistry,
  name: string,
  labels: Record<string, string>,
): Promise<number> {
  const metric = registry.getSingleMetric(name);
  if (metric === undefined) return 0;
  const { values } = await metric.get();
  const hit = values.find((v) => Object.entries(labels).every(([k, l]) => v.labels[k] === l));
  return hit?.value ?? 0;
}
