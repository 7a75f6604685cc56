/**
 * The store-gateway's index cache (Thanos's IndexCache as Cortex configures it): postings
 * lists by label pair, expanded postings by matcher set, and series entries by reference, per
 * block, over any runtime `Cache` (the in-memory LRU or memcached). Keys and values are
 * Thanos's remote index cache's, so a memcached shared with Cortex neither collides nor
 * confuses either side:
 *   `P:<block>:<b64url(blake2b256(name:value))>:dss`, `EP:<block>:<b64url(blake2b256(matchers))>:dss`,
 *   `S:<block>:<seriesRef>`.
 * A failing cache or a value that does not decode is a miss; storing is fire-and-forget.
 */
import { Counter } from 'prom-client';
import { goQuote, type Matcher } from '../model/index.js';
import type { Cache, MetricsRegistry } from '../runtime/index.js';
import { blake2b256 } from './blake2b.js';
import { POSTINGS_CODEC, decodePostingsValue, encodePostingsValue } from './index_cache_codec.js';

export type IndexCacheItemType = 'Postings' | 'ExpandedPostings' | 'Series';
const ITEM_TYPES: readonly IndexCacheItemType[] = ['Postings', 'ExpandedPostings', 'Series'];

/** Thanos's TTL of remote index cache entries; the in-memory cache keeps entries until evicted. */
export const MEMCACHED_INDEX_CACHE_TTL_MS = 24 * 3600 * 1000;

export interface IndexCacheDeps {
  cache: Cache;
  registry?: MetricsRegistry;
  /** TTL of stored entries; 0 = none (in-memory LRU). */
  ttlMs?: number;
}

const encoder = new TextEncoder();

/** Thanos's `base64.RawURLEncoding` of BLAKE2b-256 of `s`. */
function hashKey(s: string): string {
  return Buffer.from(blake2b256(encoder.encode(s))).toString('base64url');
}

export function postingsCacheKey(block: string, name: string, value: string): string {
  return `P:${block}:${hashKey(`${name}:${value}`)}:${POSTINGS_CODEC}`;
}

export function expandedPostingsCacheKey(block: string, matchers: readonly Matcher[]): string {
  return `EP:${block}:${hashKey(matchersString(matchers))}:${POSTINGS_CODEC}`;
}

export function seriesCacheKey(block: string, ref: number): string {
  return `S:${block}:${ref}`;
}

/** Thanos's LabelMatchersToString: Prometheus's Matcher.String() joined by `;`. */
export function matchersString(matchers: readonly Matcher[]): string {
  return matchers
    .map((m) => {
      const name = /^[a-zA-Z_][a-zA-Z0-9_]*$/.test(m.name) ? m.name : goQuote(m.name);
      return `${name}${m.type}${goQuote(m.value)}`;
    })
    .join(';');
}

export class IndexCacheMetrics {
  readonly requests: Counter<'item_type'>;
  readonly hits: Counter<'item_type'>;
  readonly added: Counter<'item_type'>;

  constructor(registry: MetricsRegistry) {
    const counter = (name: string, help: string): Counter<'item_type'> =>
      (registry.getSingleMetric(name) as Counter<'item_type'> | undefined) ??
      new Counter({ name, help, labelNames: ['item_type'], registers: [registry] });
    this.requests = counter(
      'thanos_store_index_cache_requests_total',
      'Total number of items requests to the cache.',
    );
    this.hits = counter(
      'thanos_store_index_cache_hits_total',
      'Total number of items requests to the cache that were a hit.',
    );
    this.added = counter(
      'thanos_store_index_cache_items_added_total',
      'Total number of items that were added to the index cache.',
    );
    for (const t of ITEM_TYPES) {
      this.requests.inc({ item_type: t }, 0);
      this.hits.inc({ item_type: t }, 0);
      this.added.inc({ item_type: t }, 0);
    }
  }
}

/** Label pairs whose key hashes an IndexCache remembers (they are block-independent). */
const LABEL_HASHES_KEPT = 100_000;

export class IndexCache {
  private readonly metrics: IndexCacheMetrics | undefined;
  private readonly ttlMs: number;
  /**
   * `name:value` → its key hash, oldest first: the same label pairs are looked up in every
   * block and query, and hashing is the costly part of building a postings key.
   */
  private readonly labelHashes = new Map<string, string>();

  constructor(private readonly deps: IndexCacheDeps) {
    this.metrics = deps.registry === undefined ? undefined : new IndexCacheMetrics(deps.registry);
    this.ttlMs = deps.ttlMs ?? 0;
  }

  /** The postings lists of `name` = each of `values` found in the cache. */
  async fetchPostings(
    block: string,
    name: string,
    values: readonly string[],
    signal?: AbortSignal,
  ): Promise<Map<string, Uint32Array>> {
    const keys = values.map((v) => this.postingsKey(block, name, v));
    const found = await this.get('Postings', keys, signal);
    const out = new Map<string, Uint32Array>();
    values.forEach((v, i) => {
      const raw = found.get(keys[i] as string);
      const refs = raw === undefined ? undefined : decodePostingsValue(raw);
      if (refs !== undefined) out.set(v, refs);
    });
    this.metrics?.hits.inc({ item_type: 'Postings' }, out.size);
    return out;
  }

  storePostings(block: string, name: string, value: string, refs: ArrayLike<number>): void {
    this.set('Postings', this.postingsKey(block, name, value), encodePostingsValue(refs));
  }

  /** postingsCacheKey, with the label pair's hash remembered. */
  private postingsKey(block: string, name: string, value: string): string {
    const pair = `${name}:${value}`;
    let hash = this.labelHashes.get(pair);
    if (hash === undefined) {
      hash = hashKey(pair);
      if (this.labelHashes.size >= LABEL_HASHES_KEPT) {
        const oldest = this.labelHashes.keys().next();
        if (oldest.done !== true) this.labelHashes.delete(oldest.value);
      }
      this.labelHashes.set(pair, hash);
    }
    return `P:${block}:${hash}:${POSTINGS_CODEC}`;
  }

  async fetchExpandedPostings(
    block: string,
    matchers: readonly Matcher[],
    signal?: AbortSignal,
  ): Promise<Uint32Array | undefined> {
    const key = expandedPostingsCacheKey(block, matchers);
    const raw = (await this.get('ExpandedPostings', [key], signal)).get(key);
    const refs = raw === undefined ? undefined : decodePostingsValue(raw);
    if (refs !== undefined) this.metrics?.hits.inc({ item_type: 'ExpandedPostings' });
    return refs;
  }

  storeExpandedPostings(
    block: string,
    matchers: readonly Matcher[],
    refs: ArrayLike<number>,
  ): void {
    this.set(
      'ExpandedPostings',
      expandedPostingsCacheKey(block, matchers),
      encodePostingsValue(refs),
    );
  }

  /** Series entry bodies by reference, for those found in the cache. */
  async fetchSeries(
    block: string,
    refs: ArrayLike<number>,
    signal?: AbortSignal,
  ): Promise<Map<number, Uint8Array>> {
    const keys: string[] = [];
    for (let i = 0; i < refs.length; i++) keys.push(seriesCacheKey(block, refs[i] as number));
    const found = await this.get('Series', keys, signal);
    const out = new Map<number, Uint8Array>();
    for (let i = 0; i < refs.length; i++) {
      const raw = found.get(keys[i] as string);
      if (raw !== undefined && raw.length > 0) out.set(refs[i] as number, raw);
    }
    return out;
  }

  /** Counts a series hit once the caller decoded the entry successfully. */
  countSeriesHits(n: number): void {
    this.metrics?.hits.inc({ item_type: 'Series' }, n);
  }

  storeSeries(block: string, ref: number, body: Uint8Array): void {
    this.set('Series', seriesCacheKey(block, ref), body.slice());
  }

  private async get(
    type: IndexCacheItemType,
    keys: readonly string[],
    signal: AbortSignal | undefined,
  ): Promise<Map<string, Uint8Array>> {
    if (keys.length === 0) return new Map();
    this.metrics?.requests.inc({ item_type: type }, keys.length);
    try {
      return await this.deps.cache.getMulti(keys, signal);
    } catch {
      // A cache that fails is a cache that misses (aborts surface from the caller's own work).
      return new Map();
    }
  }

  private set(type: IndexCacheItemType, key: string, value: Uint8Array): void {
    try {
      this.deps.cache.setMulti(new Map([[key, value]]), this.ttlMs);
      this.metrics?.added.inc({ item_type: type });
    } catch {
      // Storing is best effort.
    }
  }
}
