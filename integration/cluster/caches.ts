/**
 * Helpers of the query-frontend and cache tests on real memcached: three Debian memcached
 * processes listening on every address `localhost` resolves to, the flags that point the
 * results, index, chunks and metadata caches at them through `dns+localhost:PORT`, raw
 * query API calls whose bodies the tests compare byte for byte, and the results cache's
 * memcached key as the frontend computes it.
 */
import { lookup } from 'node:dns/promises';
import {
  EMPTY_HEADERS,
  generateCacheKey,
  hashKey,
  type RangeRequest,
} from '../../src/frontend/index.js';
import { startMemcached, type MemcachedService } from '../services/memcached.js';
import { memcachedGet } from '../services/memcached_text.js';

export interface MemcachedTrio {
  readonly servers: readonly MemcachedService[];
  /** The addresses `localhost` resolves to (what `dns+localhost` discovers per port). */
  readonly localhostIps: readonly string[];
}

export async function startMemcachedTrio(): Promise<MemcachedTrio> {
  const localhostIps = [
    ...new Set((await lookup('localhost', { all: true })).map((a) => a.address)),
  ];
  const servers = await Promise.all([0, 1, 2].map(() => startMemcached({ listen: localhostIps })));
  return { servers, localhostIps };
}

/** `dns+localhost:PORT,...` for the given servers. */
export function dnsAddresses(servers: readonly MemcachedService[]): string {
  return servers.map((s) => `dns+localhost:${s.port}`).join(',');
}

/** Which servers each cache uses (indexes into the trio). */
export interface CacheLayout {
  readonly results: readonly number[];
  readonly index: readonly number[];
  readonly chunks: readonly number[];
  readonly metadata: readonly number[];
}

/** Every cache on all three servers. */
export const ALL_ON_THREE: CacheLayout = {
  results: [0, 1, 2],
  index: [0, 1, 2],
  chunks: [0, 1, 2],
  metadata: [0, 1, 2],
};

/** The `cortex_memcache_client_servers` a cache of `layout` should report. */
export function expectedServers(trio: MemcachedTrio, servers: readonly number[]): number {
  return servers.length * trio.localhostIps.length;
}

/** Flags for the results cache (with 1h splitting) and the three store caches on memcached. */
export function cacheFlags(trio: MemcachedTrio, layout: CacheLayout = ALL_ON_THREE): string[] {
  const pick = (ix: readonly number[]): string => dnsAddresses(ix.map((i) => trio.servers[i]!));
  const store = '-experimental.tsdb.bucket-store';
  return [
    '-querier.cache-results=true',
    '-querier.split-queries-by-interval=1h',
    `-frontend.memcached.addresses=${pick(layout.results)}`,
    `${store}.index-cache.backend=memcached`,
    `${store}.index-cache.memcached.addresses=${pick(layout.index)}`,
    `${store}.chunks-cache.backend=memcached`,
    `${store}.chunks-cache.memcached.addresses=${pick(layout.chunks)}`,
    // Cortex's spelling of the same flag (an alias).
    '-blocks-storage.bucket-store.metadata-cache.backend=memcached',
    `-blocks-storage.bucket-store.metadata-cache.memcached.addresses=${pick(layout.metadata)}`,
    // Cortex caches the tenants and block lists for 15 min: the list read at startup (no
    // tenant yet) would hide the test's tenant from the compactor and store-gateway.
    `${store}.metadata-cache.tenants-list-ttl=1s`,
    `${store}.metadata-cache.tenant-blocks-list-ttl=1s`,
  ];
}

export interface RawAnswer {
  readonly status: number;
  readonly text: string;
}

export interface RangeParams {
  readonly query: string;
  /** ms */
  readonly start: number;
  readonly end: number;
  /** ms, or a string sent as is (bad input). */
  readonly step: number | string;
}

/** GET `<url>/prometheus/api/v1/<path>?<params>`; the body kept as sent. */
export async function apiGet(
  url: string,
  path: 'query' | 'query_range',
  params: Readonly<Record<string, string>>,
  tenant?: string,
): Promise<RawAnswer> {
  const qs = new URLSearchParams(params).toString();
  const res = await fetch(`${url}/prometheus/api/v1/${path}?${qs}`, {
    headers: tenant === undefined ? {} : { 'X-Scope-OrgID': tenant },
  });
  return { status: res.status, text: await res.text() };
}

export function rangeQuery(url: string, p: RangeParams, tenant?: string): Promise<RawAnswer> {
  return apiGet(
    url,
    'query_range',
    {
      query: p.query,
      start: String(p.start / 1000),
      end: String(p.end / 1000),
      step: typeof p.step === 'number' ? String(p.step / 1000) : p.step,
    },
    tenant,
  );
}

export function instantQuery(
  url: string,
  query: string,
  timeMs: number,
  tenant?: string,
): Promise<RawAnswer> {
  return apiGet(url, 'query', { query, time: String(timeMs / 1000) }, tenant);
}

/**
 * The logical results-cache key and its memcached key for the sub-query of `p` starting at
 * `subStartMs` (the frontend keys each split interval by its start).
 */
export function resultsCacheKey(
  tenant: string,
  p: RangeParams & { step: number },
  subStartMs: number,
  intervalMs: number,
): { key: string; hashed: string } {
  const req: RangeRequest = {
    tenantIds: [tenant],
    query: p.query,
    start: subStartMs,
    end: p.end,
    step: p.step,
    params: { limit: '', timeout: '', lookbackDelta: '', stats: '' },
    headers: EMPTY_HEADERS,
    cachingDisabled: false,
  };
  const key = generateCacheKey(req, intervalMs);
  return { key, hashed: hashKey(key) };
}

/** The server of the trio holding `key`, with its value; undefined when none does. */
export async function findEntry(
  trio: MemcachedTrio,
  key: string,
): Promise<{ server: MemcachedService; value: Buffer } | undefined> {
  for (const server of trio.servers) {
    const value = await memcachedGet(server.port, key).catch(() => undefined);
    if (value !== undefined) return { server, value };
  }
  return undefined;
}
