import type { Config } from '../../../src/config/index.js';
import {
  ScenarioError,
  formatDuration,
  readArray,
  readDuration,
  readNumber,
  readChoice,
  readObject,
  readString,
} from '../../fields/index.js';

/**
 * Deliberately broken query-frontends, for proving that the frontend scenario's checks catch
 * what they claim to. The harness breaks them from outside the product:
 * `ignore_cache_freshness` sets `limits.max_cache_freshness` to 0, so the results cache keeps
 * and serves the newest data too, and samples that arrive late are never seen by a repeated
 * query; `fifo_queue` hands the frontend a queue that serves all tenants in one FIFO
 * (`canaries_frontend.ts`), so a flooding tenant's backlog delays every other tenant's query.
 */
export const BROKEN_FRONTEND_MODES = ['none', 'ignore_cache_freshness', 'fifo_queue'] as const;
export type BrokenFrontend = (typeof BROKEN_FRONTEND_MODES)[number];

/**
 * The query path in front of the queriers (`workload.frontend`): the query-frontend's
 * splitting, results cache, sharding and per-tenant queues, the store caches, and the load
 * the reader puts on it (range queries of the scenario's queries, a flooding tenant).
 */
export interface FrontendSimConfig {
  /** `query_range.split_queries_by_interval` (0: no splitting). */
  splitIntervalMs: number;
  /** Results cache: memcached (the scenario's `memcached` servers), fifo, or none. */
  resultsCache: 'memcached' | 'fifo' | 'none';
  /** `limits.max_cache_freshness`. */
  maxCacheFreshnessMs: number;
  /** The store-gateways' index and chunks caches on memcached (else in-memory / none). */
  storeCachesOnMemcached: boolean;
  /** The memcached addresses every cache uses (e.g. `dns+memcached.sim:11211`). */
  memcachedAddresses: string;
  /** `limits.query_vertical_shard_size` (0: no sharding). */
  shardSize: number;
  /** `limits.max_outstanding_requests_per_tenant` (and the frontend's own bound). */
  maxOutstandingPerTenant: number;
  /** `frontend_worker.parallelism` of each querier. */
  workerParallelism: number;
  /** The reader's range queries during the run: one every `interval` (0: none). */
  rangeIntervalMs: number;
  /** The range of those queries (end = now, rounded to the step). */
  rangeMs: number;
  /** Their step. */
  stepMs: number;
  /**
   * Offsets at which the reader runs every scenario query as a range query ending then; each
   * one is repeated, with the same parameters, twice after the final reads, and those
   * repetitions are judged against the model (the first may be answered from the cache).
   */
  warmAtMs: number[];
  /** How long the reader waits for any answer before counting the request lost. */
  requestTimeoutMs: number;
  /** The flooding tenant and its load: `concurrency` range queries kept in flight. */
  flood: FloodConfig | undefined;
  broken: BrokenFrontend;
  /** The query-frontend node the queriers pull from (set from the topology at start). */
  address?: string;
}

export interface FloodConfig {
  tenant: string;
  concurrency: number;
  fromMs: number;
  untilMs: number;
}

export function parseFrontendSim(
  value: unknown,
  where: string,
  tenants: ReadonlySet<string>,
): FrontendSimConfig | undefined {
  if (value === undefined || value === null) return undefined;
  const o = readObject(value, where, [
    'split_interval',
    'results_cache',
    'max_cache_freshness',
    'store_caches',
    'memcached_addresses',
    'shard_size',
    'max_outstanding_per_tenant',
    'worker_parallelism',
    'range_interval',
    'range',
    'step',
    'warm_at',
    'request_timeout',
    'flood',
    'broken',
  ]);
  const resultsCache = readChoice(
    o.results_cache,
    `${where}.results_cache`,
    ['memcached', 'fifo', 'none'] as const,
    'memcached',
    'backend',
  );
  const storeCaches = readChoice(
    o.store_caches,
    `${where}.store_caches`,
    ['memcached', 'inmemory'] as const,
    'memcached',
    'backend',
  );
  const broken = readChoice(o.broken, `${where}.broken`, BROKEN_FRONTEND_MODES, 'none', 'mode');
  const stepMs = readDuration(o.step, `${where}.step`, 15_000);
  if (stepMs <= 0) throw new ScenarioError(`${where}.step: must be positive`);
  const c: FrontendSimConfig = {
    splitIntervalMs: readDuration(o.split_interval, `${where}.split_interval`, 60_000),
    resultsCache,
    maxCacheFreshnessMs: readDuration(
      o.max_cache_freshness,
      `${where}.max_cache_freshness`,
      60_000,
    ),
    storeCachesOnMemcached: storeCaches === 'memcached',
    memcachedAddresses: readString(o.memcached_addresses, `${where}.memcached_addresses`, ''),
    shardSize: readNumber(o.shard_size, `${where}.shard_size`, 0, { min: 0, integer: true }),
    maxOutstandingPerTenant: readNumber(
      o.max_outstanding_per_tenant,
      `${where}.max_outstanding_per_tenant`,
      100,
      { min: 1, integer: true },
    ),
    workerParallelism: readNumber(o.worker_parallelism, `${where}.worker_parallelism`, 2, {
      min: 1,
      integer: true,
    }),
    rangeIntervalMs: readDuration(o.range_interval, `${where}.range_interval`, 5_000),
    rangeMs: readDuration(o.range, `${where}.range`, 10 * 60_000),
    stepMs,
    warmAtMs: readArray(o.warm_at ?? [], `${where}.warm_at`).map((a, i) =>
      readDuration(a, `${where}.warm_at[${i}]`),
    ),
    requestTimeoutMs: readDuration(o.request_timeout, `${where}.request_timeout`, 60_000),
    flood: parseFlood(o.flood, `${where}.flood`, tenants),
    broken,
  };
  if ((resultsCache === 'memcached' || c.storeCachesOnMemcached) && c.memcachedAddresses === '')
    throw new ScenarioError(`${where}.memcached_addresses: required by memcached caches`);
  return c;
}

function parseFlood(
  value: unknown,
  where: string,
  tenants: ReadonlySet<string>,
): FloodConfig | undefined {
  if (value === undefined || value === null) return undefined;
  const o = readObject(value, where, ['tenant', 'concurrency', 'from', 'until']);
  const tenant = readString(o.tenant, `${where}.tenant`);
  if (!tenants.has(tenant)) throw new ScenarioError(`${where}.tenant: unknown tenant ${tenant}`);
  const fromMs = readDuration(o.from, `${where}.from`);
  const untilMs = readDuration(o.until, `${where}.until`);
  if (untilMs <= fromMs) throw new ScenarioError(`${where}.until: must follow from`);
  return {
    tenant,
    concurrency: readNumber(o.concurrency, `${where}.concurrency`, 20, { min: 1, integer: true }),
    fromMs,
    untilMs,
  };
}

/**
 * The frontend settings of one node (the same on every node, each component reads its own):
 * `f.address` is the query-frontend node the queriers pull work from (its RPC address is its
 * node name).
 */
export function applyFrontend(config: Config, f: FrontendSimConfig): void {
  const frontendAddress = f.address;
  const qr = config.query_range;
  qr.split_queries_by_interval = f.splitIntervalMs;
  qr.align_queries_with_step = true;
  qr.cache_results = f.resultsCache !== 'none';
  if (f.resultsCache === 'memcached')
    qr.results_cache.cache.memcached_client.addresses = f.memcachedAddresses;
  if (f.resultsCache === 'fifo') qr.results_cache.cache.enable_fifocache = true;
  config.limits.max_cache_freshness =
    f.broken === 'ignore_cache_freshness' ? 0 : f.maxCacheFreshnessMs;
  config.limits.query_vertical_shard_size = f.shardSize;
  config.limits.max_outstanding_requests_per_tenant = f.maxOutstandingPerTenant;
  config.frontend.max_outstanding_per_tenant = f.maxOutstandingPerTenant;
  if (config.target === 'querier' && frontendAddress !== undefined) {
    config.frontend_worker.frontend_address = frontendAddress;
    config.frontend_worker.parallelism = f.workerParallelism;
  }
  if (f.storeCachesOnMemcached) {
    const bs = config.tsdb.bucket_store;
    bs.index_cache.backend = 'memcached';
    bs.index_cache.memcached.addresses = f.memcachedAddresses;
    bs.chunks_cache.backend = 'memcached';
    bs.chunks_cache.memcached.addresses = f.memcachedAddresses;
  }
}

export function describeFrontendSim(f: FrontendSimConfig): string {
  const d = formatDuration;
  return (
    `  query-frontend: split by ${d(f.splitIntervalMs)}, results cache ${f.resultsCache} (freshness ${d(f.maxCacheFreshnessMs)}), ` +
    `store caches ${f.storeCachesOnMemcached ? 'memcached' : 'in-memory'}, shard size ${f.shardSize}, ` +
    `${f.maxOutstandingPerTenant} outstanding per tenant, worker parallelism ${f.workerParallelism}; ` +
    `range queries of ${d(f.rangeMs)} every ${d(f.rangeIntervalMs)}` +
    (f.flood === undefined
      ? ''
      : `; ${f.flood.tenant} floods with ${f.flood.concurrency} queries from +${d(f.flood.fromMs)} to +${d(f.flood.untilMs)}`) +
    (f.broken === 'none' ? '' : `; BROKEN: ${f.broken}`)
  );
}
