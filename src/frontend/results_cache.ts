/**
 * `-querier.cache-results` (Cortex resultsCache middleware): answers of (split) range queries
 * are kept as extents under Cortex's key, and a later request is answered from the extents it
 * overlaps plus downstream requests for the gaps only; the grown extents are stored back.
 * The last `max_cache_freshness` of data is never cached nor served from the cache, so late
 * samples show up once they arrive. A cache that is down, slow or holds garbage is a miss.
 *
 * One deviation from Cortex, for correctness: only requests whose start and end are
 * multiples of the step are cached (Mimir does the same). Cortex stitches cached samples of
 * one step grid onto a request on another grid, which changes answers; with
 * `-querier.align-querier-with-step` every request qualifies. Requests with `limit` or
 * `lookback_delta` (which Cortex does not forward at all) go straight through as well: the
 * key does not cover them.
 */
import type { Counter } from 'prom-client';
import {
  type Cache,
  type Clock,
  type Logger,
  type MetricsRegistry,
  registeredCounter,
} from '../runtime/index.js';
import { doRequests, type Parallelism } from './do_requests.js';
import type { RangeHandler, RangeMiddleware } from './handler.js';
import { mergeRangeResponses } from './merge.js';
import type { RangeRequest } from './range_request.js';
import type { RangeResponse } from './range_response.js';
import {
  type Extent,
  decodeCachedResponse,
  encodeCachedResponse,
  generateCacheKey,
  hashKey,
} from './results_cache_codec.js';
import {
  filterRecentExtents,
  mergeExtents,
  partition,
  shouldCacheResponse,
  toExtent,
} from './results_cache_extents.js';

/** Cortex's default `max_cache_freshness` (a per-tenant limit). */
export const DEFAULT_MAX_CACHE_FRESHNESS_MS = 60_000;

export interface ResultsCacheConfig {
  /** The split interval (ms, > 0): cache keys are per interval of the start time. */
  readonly splitInterval: number;
  /** Per tenant, ms; a multi-tenant query uses the largest (Cortex MaxDurationPerTenant). */
  readonly maxCacheFreshness: (tenantId: string) => number;
  /** Parallel gap requests of one query (`-querier.max-query-parallelism`). */
  readonly maxQueryParallelism: Parallelism;
  /** TTL handed to the cache with each entry, ms (0: the backend's default, no expiry). */
  readonly ttlMs: number;
}

export interface ResultsCacheDeps {
  readonly cache: Cache;
  readonly clock: Clock;
  readonly logger?: Logger;
  readonly metrics?: ResultsCacheMetrics;
}

export interface ResultsCacheMetrics {
  /** Entries found but not usable (`reason`: decode, key_mismatch). */
  readonly invalidEntries: Counter<'reason'>;
}

export function resultsCacheMetrics(registry: MetricsRegistry): ResultsCacheMetrics {
  return {
    invalidEntries: registeredCounter(
      registry,
      'strata_frontend_results_cache_invalid_entries_total',
      'Results cache entries ignored because they could not be decoded or belonged to another key.',
      ['reason'],
    ),
  };
}

function isStepAligned(req: RangeRequest): boolean {
  return req.start % req.step === 0 && req.end % req.step === 0;
}

function cacheable(req: RangeRequest): boolean {
  if (req.cachingDisabled || !isStepAligned(req)) return false;
  const p = req.params;
  return (p.limit === '' || p.limit === '0') && p.lookbackDelta === '';
}

export function resultsCacheMiddleware(
  config: ResultsCacheConfig,
  deps: ResultsCacheDeps,
): RangeMiddleware {
  if (!(config.splitInterval > 0)) {
    throw new Error(
      'querier.cache-results may only be enabled in conjunction with querier.split-queries-by-interval. Please set the latter',
    );
  }
  return (next) => (req, signal) => new ResultsCacheRun(config, deps, next).run(req, signal);
}

class ResultsCacheRun {
  constructor(
    private readonly config: ResultsCacheConfig,
    private readonly deps: ResultsCacheDeps,
    private readonly next: RangeHandler,
  ) {}

  async run(original: RangeRequest, signal: AbortSignal): Promise<RangeResponse> {
    // Stats are neither cached nor asked for (Cortex, without cache_queryable_samples_stats).
    const req: RangeRequest = { ...original, params: { ...original.params, stats: '' } };
    if (!cacheable(req)) return this.next(req, signal);
    const freshness = Math.max(...req.tenantIds.map((t) => this.config.maxCacheFreshness(t)), 0);
    const now = this.deps.clock.now();
    const maxCacheTime = now - freshness;
    if (req.start > maxCacheTime) return this.next(req, signal);

    const key = generateCacheKey(req, this.config.splitInterval);
    const cached = await this.get(key, signal);
    const { response, extents } =
      cached === undefined
        ? await this.handleMiss(req, signal, maxCacheTime)
        : await this.handleHit(req, signal, cached, maxCacheTime);
    if (extents.length > 0) {
      const kept = filterRecentExtents(extents, req.step, now, freshness);
      if (kept.length > 0) this.put(key, kept);
    }
    return response;
  }

  private async handleMiss(
    req: RangeRequest,
    signal: AbortSignal,
    maxCacheTime: number,
  ): Promise<{ response: RangeResponse; extents: Extent[] }> {
    const response = await this.next(req, signal);
    if (!shouldCacheResponse(req, response, maxCacheTime)) return { response, extents: [] };
    return { response, extents: [toExtent(req, response)] };
  }

  private async handleHit(
    req: RangeRequest,
    signal: AbortSignal,
    cached: readonly Extent[],
    maxCacheTime: number,
  ): Promise<{ response: RangeResponse; extents: Extent[] }> {
    const sorted = [...cached].sort((a, b) => a.start - b.start);
    const { requests, cached: responses } = partition(req, sorted);
    // Everything came from the cache: nothing new to store.
    if (requests.length === 0) return { response: mergeRangeResponses(responses), extents: [] };
    const fetched = await doRequests(this.next, requests, this.config.maxQueryParallelism, signal);
    const extents = [...sorted];
    for (const { request, response } of fetched) {
      responses.push(response);
      if (shouldCacheResponse(request, response, maxCacheTime)) {
        extents.push(toExtent(request, response));
      }
    }
    return {
      response: mergeRangeResponses(responses),
      extents: mergeExtents(extents, req.step),
    };
  }

  /** The cached extents under `key`, or undefined for a miss (garbage and foreign keys included). */
  private async get(key: string, signal: AbortSignal): Promise<Extent[] | undefined> {
    const hashed = hashKey(key);
    let found: Map<string, Uint8Array>;
    try {
      found = await this.deps.cache.getMulti([hashed], signal);
    } catch (err) {
      signal.throwIfAborted();
      // The Cache contract says failures are misses; a misbehaving backend is one too.
      this.deps.logger?.warn('results cache lookup failed', { err: String(err) });
      return undefined;
    }
    const bytes = found.get(hashed);
    if (bytes === undefined) return undefined;
    let value;
    try {
      value = decodeCachedResponse(bytes);
    } catch (err) {
      this.deps.metrics?.invalidEntries.inc({ reason: 'decode' });
      this.deps.logger?.warn('error unmarshalling cached value', {
        err: err instanceof Error ? err.message : String(err),
      });
      return undefined;
    }
    if (value.key !== key) {
      this.deps.metrics?.invalidEntries.inc({ reason: 'key_mismatch' });
      return undefined;
    }
    return [...value.extents];
  }

  private put(key: string, extents: readonly Extent[]): void {
    const bytes = encodeCachedResponse({ key, extents });
    this.deps.cache.setMulti(new Map([[hashKey(key), bytes]]), this.config.ttlMs);
  }
}
