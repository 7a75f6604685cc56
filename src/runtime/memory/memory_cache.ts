import type { Cache } from '../cache.js';
import { throwIfAborted, type Clock } from '../clock.js';
import type { MetricsRegistry } from '../metrics.js';
import { InMemoryCacheMetrics } from './cache_metrics.js';
import { settle } from './settle.js';

export interface MemoryCacheConfig {
  /** Labels the metrics (`name="index-cache"`) and names the cache in logs. */
  name: string;
  /** Upper bound of the UTF-8 bytes of all keys plus all values held. */
  maxSizeBytes: number;
  /** Entries (key + value) larger than this are not stored; defaults to `maxSizeBytes`. */
  maxItemSizeBytes?: number;
}

interface Entry {
  readonly value: Uint8Array;
  /** Infinity when stored without a TTL. */
  readonly expiresAt: number;
  readonly size: number;
}

/**
 * An LRU cache bounded by bytes, with per-entry TTL on the Env clock (so it expires in
 * virtual time in the simulator). Values are copied in and out. A Map keeps recency: its
 * insertion order is the LRU order, and a hit re-inserts the entry at the end.
 *
 * A TTL of 0 or less means "no expiry", as memcached treats an expiration of 0.
 */
export class MemoryCache implements Cache {
  readonly name: string;
  private readonly maxSizeBytes: number;
  private readonly maxItemSizeBytes: number;
  private readonly entries = new Map<string, Entry>();
  private readonly metrics: InMemoryCacheMetrics | undefined;
  private sizeBytes = 0;
  private valueBytes = 0;

  constructor(
    config: MemoryCacheConfig,
    private readonly deps: { clock: Clock; registry?: MetricsRegistry },
  ) {
    this.name = config.name;
    this.maxSizeBytes = config.maxSizeBytes;
    this.maxItemSizeBytes = config.maxItemSizeBytes ?? config.maxSizeBytes;
    if (!Number.isSafeInteger(this.maxSizeBytes) || this.maxSizeBytes <= 0) {
      throw new RangeError(
        `cache ${config.name}: maxSizeBytes must be a positive integer, got ${config.maxSizeBytes}`,
      );
    }
    if (!Number.isSafeInteger(this.maxItemSizeBytes) || this.maxItemSizeBytes <= 0) {
      throw new RangeError(
        `cache ${config.name}: maxItemSizeBytes must be a positive integer, got ${config.maxItemSizeBytes}`,
      );
    }
    if (this.maxItemSizeBytes > this.maxSizeBytes) {
      throw new RangeError(
        `cache ${config.name}: maxItemSizeBytes (${this.maxItemSizeBytes}) cannot be bigger than maxSizeBytes (${this.maxSizeBytes})`,
      );
    }
    this.metrics =
      deps.registry === undefined ? undefined : new InMemoryCacheMetrics(deps.registry);
    this.metrics?.maxSizeBytes.set({ name: this.name }, this.maxSizeBytes);
    this.metrics?.maxItemSizeBytes.set({ name: this.name }, this.maxItemSizeBytes);
    this.publishSizes();
  }

  getMulti(keys: readonly string[], signal?: AbortSignal): Promise<Map<string, Uint8Array>> {
    return settle(() => {
      throwIfAborted(signal);
      const now = this.deps.clock.now();
      const hits = new Map<string, Uint8Array>();
      let expired = false;
      for (const key of keys) {
        this.metrics?.requests.inc({ name: this.name });
        const entry = this.entries.get(key);
        if (entry === undefined) continue;
        if (now >= entry.expiresAt) {
          this.metrics?.hitsExpired.inc({ name: this.name });
          this.remove(key, entry);
          expired = true;
          continue;
        }
        this.metrics?.hits.inc({ name: this.name });
        this.entries.delete(key);
        this.entries.set(key, entry);
        hits.set(key, entry.value.slice());
      }
      if (expired) this.publishSizes();
      return hits;
    });
  }

  setMulti(entries: ReadonlyMap<string, Uint8Array>, ttlMs: number): void {
    const expiresAt = ttlMs > 0 ? this.deps.clock.now() + ttlMs : Infinity;
    for (const [key, value] of entries) this.set(key, value, expiresAt);
    this.publishSizes();
  }

  delete(key: string): Promise<void> {
    return settle(() => {
      const entry = this.entries.get(key);
      if (entry !== undefined) this.remove(key, entry);
      this.publishSizes();
    });
  }

  close(): Promise<void> {
    this.entries.clear();
    this.sizeBytes = 0;
    this.valueBytes = 0;
    this.publishSizes();
    return Promise.resolve();
  }

  /** Bytes currently accounted (keys + values); never above `maxSizeBytes`. */
  get usedBytes(): number {
    return this.sizeBytes;
  }

  private set(key: string, value: Uint8Array, expiresAt: number): void {
    const size = utf8ByteLength(key) + value.length;
    const previous = this.entries.get(key);
    if (previous !== undefined) this.remove(key, previous);
    if (size > this.maxItemSizeBytes) {
      this.metrics?.overflowed.inc({ name: this.name });
      return;
    }
    // Evict least recently used entries (the Map's first ones) until the new one fits.
    for (const [oldKey, oldEntry] of this.entries) {
      if (this.sizeBytes + size <= this.maxSizeBytes) break;
      this.remove(oldKey, oldEntry);
      this.metrics?.evicted.inc({ name: this.name });
    }
    this.entries.set(key, { value: value.slice(), expiresAt, size });
    this.sizeBytes += size;
    this.valueBytes += value.length;
    this.metrics?.added.inc({ name: this.name });
  }

  /** Callers publish the size gauges once their whole operation is done. */
  private remove(key: string, entry: Entry): void {
    this.entries.delete(key);
    this.sizeBytes -= entry.size;
    this.valueBytes -= entry.value.length;
  }

  private publishSizes(): void {
    if (this.metrics === undefined) return;
    const labels = { name: this.name };
    this.metrics.items.set(labels, this.entries.size);
    this.metrics.itemsSizeBytes.set(labels, this.valueBytes);
    this.metrics.totalSizeBytes.set(labels, this.sizeBytes);
  }
}

/** UTF-8 length without encoding: keys are hashed paths, this runs on every set. */
export function utf8ByteLength(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const next = s.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        n += 4;
        i++;
      } else n += 3;
    } else n += 3;
  }
  return n;
}
