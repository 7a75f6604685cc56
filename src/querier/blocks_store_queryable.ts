/**
 * The blocks half of the querier (Cortex's BlocksStoreQueryable): for one call it finds the
 * tenant's blocks in range, asks store-gateways for them (each block on one instance of its
 * replica set, instances in parallel), then checks that every expected block was read.
 * Blocks not read (the instance did not have them loaded, or failed with a retryable
 * error) are asked again of an instance not tried yet, up to `maxConsistencyAttempts`
 * rounds; blocks still missing fail the query with Cortex's consistency error.
 *
 * `query_store_after` keeps the store out of the recent past, which the ingesters hold: the
 * store is asked only up to `now - query_store_after`, not at all when the whole range is
 * more recent.
 */
import { compareGoStrings, type Matcher } from '../model/index.js';
import { toWireMatchers } from '../ingester/index.js';
import { QueryExecutionError, StorageError, type FetchedBytesSink } from '../promql/index.js';
import { AbortError, RpcError, isAbortError, type Clock, type Logger } from '../runtime/index.js';
import { HttpError } from '../server/index.js';
import {
  isRetryableStoreGatewayError,
  type StoreGatewayCallOptions,
  type StoreSeries,
} from '../storegateway/index.js';
import type { BlocksConsistencyChecker } from './blocks_consistency_checker.js';
import { CONSISTENCY_CHECK_FAILED_PREFIX } from './blocks_consistency_checker.js';
import type { BlocksFinder } from './blocks_finder.js';
import type { BlocksStoreClient } from './blocks_store_client.js';
import type { BlocksStoreSet } from './blocks_store_set.js';
import { mergeStoreSeries } from './chunk_series.js';
import { countChunkAnswer } from './fetched_bytes.js';
import type { BlocksQuerierMetrics } from './metrics.js';

export interface BlocksStoreQueryableConfig {
  /** `-querier.query-store-after`; 0 asks the store for every range. */
  readonly queryStoreAfterMs: number;
  /** `-querier.store-gateway-consistency-check-max-attempts` (3). */
  readonly maxConsistencyAttempts: number;
  /** Per-call timeout of store-gateway RPCs (the query timeout); 0 means none. */
  readonly timeoutMs: number;
}

export interface BlocksStoreQueryableDeps {
  readonly clock: Clock;
  readonly logger: Logger;
  readonly finder: BlocksFinder;
  readonly stores: BlocksStoreSet;
  readonly client: BlocksStoreClient;
  readonly consistency: BlocksConsistencyChecker;
  readonly metrics: BlocksQuerierMetrics;
}

/** One store-gateway call's answer: what it returned and which blocks it read. */
interface Fetched<T> {
  readonly result: T;
  readonly queriedBlocks: readonly string[];
}

type Fetch<T> = (
  addr: string,
  blockIds: string[],
  minT: number,
  maxT: number,
  signal: AbortSignal,
) => Promise<Fetched<T>>;

export class BlocksStoreQueryable {
  constructor(
    private readonly config: BlocksStoreQueryableConfig,
    private readonly deps: BlocksStoreQueryableDeps,
  ) {}

  /** The part of [start, end] the store serves, or undefined when none (query_store_after). */
  storeWindow(start: number, end: number): { start: number; end: number } | undefined {
    const after = this.config.queryStoreAfterMs;
    if (after <= 0) return { start, end };
    const maxT = Math.min(end, this.deps.clock.now() - after);
    return maxT < start ? undefined : { start, end: maxT };
  }

  /**
   * The tenant's series matching `matchers` from blocks overlapping [start, end], one per
   * label set (with the chunks of every block and copy holding it), sorted by labels.
   * `skipChunks` asks for labels only (the series API); `fetched` is told each answer's
   * size, every store-gateway's and every attempt's (byte limits).
   */
  async series(
    tenant: string,
    matchers: readonly Matcher[],
    start: number,
    end: number,
    opts: {
      readonly skipChunks?: boolean;
      readonly signal?: AbortSignal;
      readonly fetched?: FetchedBytesSink | undefined;
    } = {},
  ): Promise<StoreSeries[]> {
    const wire = toWireMatchers(matchers);
    const answers = await this.queryWithConsistencyCheck(
      'series',
      tenant,
      start,
      end,
      opts.signal,
      async (addr, blockIds, minT, maxT, signal) => {
        const req = {
          start: minT,
          end: maxT,
          matchers: wire,
          blockIds,
          ...(opts.skipChunks === true ? { skipChunks: true } : {}),
        };
        const res = await this.deps.client.series(addr, tenant, req, this.callOptions(signal));
        return { result: res.series, queriedBlocks: res.queriedBlocks };
      },
    );
    for (const answer of answers) countChunkAnswer(opts.fetched, answer);
    return mergeStoreSeries(answers);
  }

  async labelNames(
    tenant: string,
    matchers: readonly Matcher[],
    start: number,
    end: number,
    signal?: AbortSignal,
  ): Promise<string[]> {
    const wire = toWireMatchers(matchers);
    const answers = await this.queryWithConsistencyCheck(
      'label names',
      tenant,
      start,
      end,
      signal,
      async (addr, blockIds, minT, maxT, callSignal) => {
        const req = { start: minT, end: maxT, matchers: wire, blockIds };
        const res = await this.deps.client.labelNames(
          addr,
          tenant,
          req,
          this.callOptions(callSignal),
        );
        return { result: res.values, queriedBlocks: res.queriedBlocks };
      },
    );
    return sortedUnion(answers);
  }

  async labelValues(
    tenant: string,
    name: string,
    matchers: readonly Matcher[],
    start: number,
    end: number,
    signal?: AbortSignal,
  ): Promise<string[]> {
    const wire = toWireMatchers(matchers);
    const answers = await this.queryWithConsistencyCheck(
      'label values',
      tenant,
      start,
      end,
      signal,
      async (addr, blockIds, minT, maxT, callSignal) => {
        const req = { start: minT, end: maxT, name, matchers: wire, blockIds };
        const res = await this.deps.client.labelValues(
          addr,
          tenant,
          req,
          this.callOptions(callSignal),
        );
        return { result: res.values, queriedBlocks: res.queriedBlocks };
      },
    );
    return sortedUnion(answers);
  }

  private callOptions(signal: AbortSignal): StoreGatewayCallOptions {
    return this.config.timeoutMs > 0 ? { signal, timeoutMs: this.config.timeoutMs } : { signal };
  }

  /**
   * Cortex's queryWithConsistencyCheck: the answers of every store-gateway call of every
   * attempt (in a fixed order: attempt, then address order of the store set's grouping).
   */
  private async queryWithConsistencyCheck<T>(
    what: string,
    tenant: string,
    start: number,
    end: number,
    signal: AbortSignal | undefined,
    fetch: Fetch<T>,
  ): Promise<T[]> {
    const { finder, stores, consistency, metrics, logger } = this.deps;
    const window = this.storeWindow(start, end);
    if (window === undefined) {
      metrics.storesHit.observe(0);
      return [];
    }
    const { start: minT, end: maxT } = window;
    let found;
    try {
      found = await finder.getBlocks(tenant, minT, maxT, signal);
    } catch (err) {
      if (isAbortError(err)) throw err;
      throw new StorageError(message(err), err);
    }
    if (found.blocks.length === 0) {
      metrics.storesHit.observe(0);
      return [];
    }

    let remaining = found.blocks.map((b) => b.block_id);
    const attempted = new Map<string, string[]>();
    const touched = new Set<string>();
    const queried = new Set<string>();
    const failed = new Set<string>();
    const results: T[] = [];
    let retryable: unknown[] = [];
    const maxAttempts = Math.max(1, this.config.maxConsistencyAttempts);
    for (let attempt = 1; attempt <= maxAttempts; attempt++) {
      let clients: Map<string, string[]>;
      try {
        clients = stores.clientsFor(tenant, remaining, attempted);
      } catch (err) {
        // On a retry this means no instance is left to try: stop retrying.
        if (attempt > 1) {
          logger.warn(
            'unable to get store-gateway clients while retrying to fetch missing blocks',
            {
              err: message(err),
            },
          );
          break;
        }
        throw new StorageError(message(err), err);
      }
      const round = await this.fetchAll(what, clients, minT, maxT, signal, fetch);
      retryable = round.retryable;
      results.push(...round.results);
      for (const id of round.queriedBlocks) queried.add(id);
      for (const [addr, ids] of clients) {
        touched.add(addr);
        for (const id of ids) {
          const tried = attempted.get(id);
          if (tried === undefined) attempted.set(id, [addr]);
          else tried.push(addr);
        }
      }
      // Blocks whose store-gateway could not be asked (reset, timeout, overload) are missing
      // whatever their age: the upload grace period excuses a gateway that answered without
      // a block it has not loaded yet, not one that never answered. Without this a transient
      // failure over recently uploaded blocks became an empty 200 answer (and a frontend
      // cached the hole).
      for (const id of round.failedBlocks) if (!queried.has(id)) failed.add(id);
      for (const id of queried) failed.delete(id);
      const checked = consistency.check(found.blocks, found.deletionMarks, queried);
      const missing = [...checked, ...[...failed].filter((id) => !checked.includes(id))];
      if (missing.length === 0) {
        metrics.storesHit.observe(touched.size);
        metrics.refetches.observe(attempt - 1);
        return results;
      }
      logger.debug('consistency check failed', { attempt, missing: missing.join(' ') });
      remaining = missing;
    }
    // A retryable failure on the last round says more than "not queried" does.
    if (retryable.length > 0) throw new StorageError(joinErrors(retryable), retryable[0]);
    logger.warn('failed consistency check', { user: tenant, missing: remaining.join(' ') });
    throw new StorageError(`${CONSISTENCY_CHECK_FAILED_PREFIX}${remaining.join(' ')}`);
  }

  /**
   * Calls every store-gateway of one round in parallel. Retryable failures leave their
   * blocks unqueried (the check retries them elsewhere); any other failure cancels the
   * round's other calls and fails the query.
   */
  private async fetchAll<T>(
    what: string,
    clients: ReadonlyMap<string, string[]>,
    minT: number,
    maxT: number,
    signal: AbortSignal | undefined,
    fetch: Fetch<T>,
  ): Promise<{
    results: T[];
    queriedBlocks: string[];
    retryable: unknown[];
    failedBlocks: string[];
  }> {
    const controller = new AbortController();
    const callSignal =
      signal === undefined ? controller.signal : AbortSignal.any([signal, controller.signal]);
    const entries = [...clients];
    const answers: (Fetched<T> | undefined)[] = entries.map(() => undefined);
    const retryable: unknown[] = [];
    const failedBlocks: string[] = [];
    try {
      await Promise.all(
        entries.map(async ([addr, blockIds], i) => {
          try {
            answers[i] = await fetch(addr, blockIds, minT, maxT, callSignal);
          } catch (err) {
            if (signal?.aborted === true) throw new AbortError();
            if (isRetryableStoreGatewayError(err)) {
              this.deps.logger.warn(`failed to fetch ${what} due to retryable error`, {
                instance: addr,
                err: message(err),
              });
              retryable.push(err);
              failedBlocks.push(...blockIds);
              return;
            }
            controller.abort();
            throw translateStoreError(err, what, addr);
          }
        }),
      );
    } finally {
      controller.abort();
    }
    const results: T[] = [];
    const queriedBlocks: string[] = [];
    for (const answer of answers) {
      if (answer === undefined) continue;
      results.push(answer.result);
      queriedBlocks.push(...answer.queriedBlocks);
    }
    return { results, queriedBlocks, retryable, failedBlocks };
  }
}

/**
 * A store-gateway's own failure as the query's: a limit it enforced (`max_sample_count`,
 * `failed_precondition` over RPC, a coded HTTP error in process) is the query's fault and
 * keeps its message (422, as Cortex's LimitError); anything else is a storage failure
 * naming the instance (500).
 */
function translateStoreError(err: unknown, what: string, addr: string): Error {
  if (isAbortError(err) || err instanceof HttpError) return err as Error;
  if (err instanceof RpcError && err.code === 'failed_precondition') {
    return new QueryExecutionError(err.message);
  }
  return new StorageError(`failed to fetch ${what} from ${addr}: ${message(err)}`, err);
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Cortex's multierror text: the error itself when alone. */
function joinErrors(errs: readonly unknown[]): string {
  if (errs.length === 1) return message(errs[0]);
  return `${errs.length} errors: ${errs.map(message).join('; ')}`;
}

function sortedUnion(lists: readonly (readonly string[])[]): string[] {
  const all = new Set<string>();
  for (const list of lists) for (const s of list) all.add(s);
  return [...all].sort(compareGoStrings);
}
