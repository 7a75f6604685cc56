/**
 * A Bucket that answers some reads from caches (Thanos's CachingBucket as Cortex configures
 * it, see caching_bucket_config.ts): listings, existence and contents of meta files, object
 * attributes and chunk segment sub-ranges. Everything else, and every name no configuration
 * matches, goes to the wrapped bucket unchanged.
 *
 * A cache is best effort: a failing cache or a value that does not decode is a miss, and the
 * answer then comes from the bucket. Entries are stored with their TTL minus the time the
 * bucket call took (Thanos), on the Env clock. Writes and deletes through this bucket drop the
 * entries of that object, so a process sees its own writes (the listings' TTLs bound the rest).
 */
import {
  ObjectNotFoundError,
  isObjectNotFound,
  type Bucket,
  type BucketCallOptions,
  type BucketListOptions,
  type Cache,
  type Clock,
  type Logger,
  type MetricsRegistry,
  type ObjectAttributes,
  type UploadSource,
} from '../runtime/index.js';
import {
  findConfig,
  type CachingBucketConfig,
  type ExistsConfig,
  type GetRangeConfig,
} from './caching_bucket_config.js';
import {
  attributesKey,
  contentKey,
  decodeAttributes,
  decodeExists,
  decodeIter,
  encodeAttributes,
  encodeExists,
  encodeIter,
  existsKey,
  iterKey,
} from './caching_bucket_codec.js';
import { CachingBucketMetrics, type CachedOperation } from './caching_bucket_metrics.js';
import { cachedGetRange } from './caching_bucket_range.js';

export interface CachingBucketDeps {
  clock: Clock;
  registry?: MetricsRegistry;
  logger?: Logger;
}

export class CachingBucket implements Bucket {
  readonly name: string;
  private readonly metrics: CachingBucketMetrics | undefined;

  constructor(
    private readonly inner: Bucket,
    private readonly config: CachingBucketConfig,
    private readonly deps: CachingBucketDeps,
  ) {
    this.name = `caching: ${inner.name}`;
    this.metrics =
      deps.registry === undefined ? undefined : new CachingBucketMetrics(deps.registry);
    const init = (op: CachedOperation, configs: readonly { name: string }[]): void => {
      for (const c of configs) this.metrics?.initOperation(op, c.name);
    };
    init('iter', config.iter);
    init('exists', config.exists);
    init('get', config.get);
    init('get_range', config.getRange);
    init('attributes', config.attributes);
  }

  async list(dir: string, opts: BucketListOptions = {}): Promise<string[]> {
    const cfg = findConfig(this.config.iter, dir);
    if (cfg === undefined) return this.inner.list(dir, opts);
    this.count('iter', cfg.name);
    const key = iterKey(dir, opts.recursive === true, cfg.configHash);
    const raw = (await this.fetch(cfg.cache, [key], opts.signal)).get(key);
    const cached = raw === undefined ? undefined : decodeIter(raw, dir);
    if (cached !== undefined) {
      this.hit('iter', cfg.name);
      return cached;
    }
    const started = this.deps.clock.now();
    const names = await this.inner.list(dir, opts);
    this.store(cfg.cache, key, encodeIter(names), cfg.ttlMs, started);
    return names;
  }

  async exists(name: string, opts: BucketCallOptions = {}): Promise<boolean> {
    const cfg = findConfig(this.config.exists, name);
    if (cfg === undefined) return this.inner.exists(name, opts);
    this.count('exists', cfg.name);
    const key = existsKey(name);
    const raw = (await this.fetch(cfg.cache, [key], opts.signal)).get(key);
    const cached = raw === undefined ? undefined : decodeExists(raw);
    if (cached !== undefined) {
      this.hit('exists', cfg.name);
      return cached;
    }
    const started = this.deps.clock.now();
    const exists = await this.inner.exists(name, opts);
    this.storeExists(cfg, key, exists, started);
    return exists;
  }

  async get(name: string, opts: BucketCallOptions = {}): Promise<Uint8Array> {
    const cfg = findConfig(this.config.get, name);
    if (cfg === undefined) return this.inner.get(name, opts);
    this.count('get', cfg.name);
    const cKey = contentKey(name);
    const eKey = existsKey(name);
    const hits = await this.fetch(cfg.cache, [cKey, eKey], opts.signal);
    const content = cfg.contentTtlMs > 0 ? hits.get(cKey) : undefined;
    if (content !== undefined && plausibleContent(name, content)) {
      this.hit('get', cfg.name);
      return content;
    }
    // A cached "does not exist" answers too (deletion marks are mostly absent).
    const exists = hits.get(eKey);
    if (cfg.doesntExistTtlMs > 0 && exists !== undefined && decodeExists(exists) === false) {
      this.hit('get', cfg.name);
      throw new ObjectNotFoundError(name);
    }
    const started = this.deps.clock.now();
    let data: Uint8Array;
    try {
      data = await this.inner.get(name, opts);
    } catch (err) {
      if (isObjectNotFound(err)) this.storeExists(cfg, eKey, false, started);
      throw err;
    }
    if (data.length <= cfg.maxCacheableSize) {
      this.store(cfg.cache, cKey, data, cfg.contentTtlMs, started);
    }
    this.storeExists(cfg, eKey, true, started);
    return data;
  }

  getRange(
    name: string,
    offset: number,
    length: number,
    opts: BucketCallOptions = {},
  ): Promise<Uint8Array> {
    const cfg = offset >= 0 && length > 0 ? findConfig(this.config.getRange, name) : undefined;
    if (cfg === undefined) return this.inner.getRange(name, offset, length, opts);
    return cachedGetRange(
      {
        bucket: this.inner,
        metrics: this.metrics,
        attributes: (n, o, fresh) => this.rangeAttributes(cfg, n, o, fresh),
        fetch: (c, keys, signal) => this.fetch(c.cache, keys, signal),
      },
      cfg,
      name,
      offset,
      length,
      opts,
    );
  }

  async attributes(name: string, opts: BucketCallOptions = {}): Promise<ObjectAttributes> {
    const cfg = findConfig(this.config.attributes, name);
    if (cfg === undefined) return this.inner.attributes(name, opts);
    return this.cachedAttributes(cfg.name, cfg.cache, cfg.ttlMs, name, opts, false);
  }

  async upload(name: string, data: Uint8Array, opts?: BucketCallOptions): Promise<void> {
    try {
      await this.inner.upload(name, data, opts);
    } finally {
      await this.invalidate(name);
    }
  }

  async uploadStream(name: string, source: UploadSource, opts?: BucketCallOptions): Promise<void> {
    try {
      await this.inner.uploadStream(name, source, opts);
    } finally {
      await this.invalidate(name);
    }
  }

  async delete(name: string, opts?: BucketCallOptions): Promise<void> {
    try {
      await this.inner.delete(name, opts);
    } finally {
      await this.invalidate(name);
    }
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  private rangeAttributes(
    cfg: GetRangeConfig,
    name: string,
    opts: BucketCallOptions,
    fresh: boolean,
  ): Promise<ObjectAttributes> {
    if (cfg.attributesTtlMs <= 0) return this.inner.attributes(name, opts);
    return this.cachedAttributes(cfg.name, cfg.cache, cfg.attributesTtlMs, name, opts, fresh);
  }

  /** Attributes from the cache (unless `fresh`), else from the bucket and then cached. */
  private async cachedAttributes(
    config: string,
    cache: Cache,
    ttlMs: number,
    name: string,
    opts: BucketCallOptions,
    fresh: boolean,
  ): Promise<ObjectAttributes> {
    const key = attributesKey(name);
    if (!fresh) {
      this.count('attributes', config);
      const raw = (await this.fetch(cache, [key], opts.signal)).get(key);
      const cached = raw === undefined ? undefined : decodeAttributes(raw);
      if (cached !== undefined) {
        this.hit('attributes', config);
        return cached;
      }
    }
    const started = this.deps.clock.now();
    const attrs = await this.inner.attributes(name, opts);
    this.store(cache, key, encodeAttributes(attrs), ttlMs, started);
    return attrs;
  }

  private storeExists(cfg: ExistsConfig, key: string, exists: boolean, started: number): void {
    const ttl = exists ? cfg.existsTtlMs : cfg.doesntExistTtlMs;
    this.store(cfg.cache, key, encodeExists(exists), ttl, started);
  }

  /** Stores `value` for what is left of `ttlMs` since `started`; nothing when none is left. */
  private store(
    cache: Cache,
    key: string,
    value: Uint8Array,
    ttlMs: number,
    started: number,
  ): void {
    const remaining = ttlMs - (this.deps.clock.now() - started);
    if (ttlMs <= 0 || remaining <= 0) return;
    try {
      cache.setMulti(new Map([[key, value]]), remaining);
    } catch (err) {
      this.deps.logger?.debug('caching bucket: failed to store', { key, err: String(err) });
    }
  }

  private async fetch(
    cache: Cache,
    keys: readonly string[],
    signal: AbortSignal | undefined,
  ): Promise<Map<string, Uint8Array>> {
    try {
      return await cache.getMulti(keys, signal);
    } catch (err) {
      // The caller's own abort still ends the call at its next bucket request.
      this.deps.logger?.debug('caching bucket: cache fetch failed', { err: String(err) });
      return new Map();
    }
  }

  /** Drops what the caches may hold about `name` after this process changed it. */
  private async invalidate(name: string): Promise<void> {
    const caches = new Map<Cache, string[]>();
    const add = (cache: Cache | undefined, key: string): void => {
      if (cache === undefined) return;
      caches.set(cache, [...(caches.get(cache) ?? []), key]);
    };
    add(findConfig(this.config.get, name)?.cache, contentKey(name));
    add(findConfig(this.config.get, name)?.cache, existsKey(name));
    add(findConfig(this.config.exists, name)?.cache, existsKey(name));
    add(findConfig(this.config.attributes, name)?.cache, attributesKey(name));
    for (const [cache, keys] of caches) {
      for (const key of new Set(keys)) {
        try {
          await cache.delete(key);
        } catch {
          // Best effort: the entry's TTL bounds how long it can be stale.
        }
      }
    }
  }

  private count(op: CachedOperation, config: string): void {
    this.metrics?.operationRequests.inc({ operation: op, config });
  }

  private hit(op: CachedOperation, config: string): void {
    this.metrics?.operationHits.inc({ operation: op, config });
  }
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Whether a cached content can be the object's: meta files are JSON objects and the bucket
 * index is gzip. This turns a truncated or foreign value into a miss instead of an answer.
 */
function plausibleContent(name: string, data: Uint8Array): boolean {
  if (name.endsWith('.gz')) return data.length >= 18 && data[0] === 0x1f && data[1] === 0x8b;
  if (!name.endsWith('.json')) return true;
  try {
    const parsed: unknown = JSON.parse(utf8.decode(data));
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed);
  } catch {
    return false;
  }
}
