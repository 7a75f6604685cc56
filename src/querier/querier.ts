/**
 * The querier component: the per-tenant Queryable over the ingesters and, when the blocks
 * path is wired, the store-gateways; the two PromQL engines configured from `-querier.*`,
 * the tenant's user stats, and the RPCs the simulator's query workload calls. HTTP routes
 * are registered separately (`registerQuerierRoutes`).
 *
 * With the blocks path the querier runs its blocks finder and is not ready until the
 * finder's first discovery (and an embedded store's first sync) completed: before that a
 * query could silently miss every block.
 */
import type { BuildInfo, Engines } from '../api/index.js';
import type { IngesterClient, SeriesSamples } from '../ingester/index.js';
import type { Matcher } from '../model/index.js';
import { Engine } from '../promql/engine/index.js';
import {
  DEFAULT_ENGINE_OPTIONS,
  readSeriesSamples,
  type EngineOptions,
  type Queryable,
  type StorageSeries,
} from '../promql/index.js';
import { VectorEngine } from '../promql/vector/index.js';
import type { ReadRing } from '../ring/index.js';
import type { Clock, ComputePool, Logger, MetricsRegistry, Transport } from '../runtime/index.js';
import { OffloadedEngine } from './offload_engine.js';
import { BasicService } from '../services/index.js';
import {
  BlocksConsistencyChecker,
  consistencyCheckerConfig,
} from './blocks_consistency_checker.js';
import type { BlocksFinder } from './blocks_finder.js';
import type { BlocksStoreClient } from './blocks_store_client.js';
import { BlocksStoreQueryable } from './blocks_store_queryable.js';
import type { BlocksStoreSet } from './blocks_store_set.js';
import { DistributorStoreQueryable } from './distributor_store_merge.js';
import { IngesterQueryable } from './ingester_queryable.js';
import { BlocksQuerierMetrics, QuerierMetrics } from './metrics.js';
import { registerQuerierRpcs } from './querier_rpc.js';
import { limitedQueryable, type QueryLimits } from './query_limiter.js';
import { shardingQueryable } from './query_shard.js';
import { collectUserStats, type UserStats } from './user_stats.js';

export interface QuerierConfig {
  /** `-querier.timeout` (2m): the query timeout, also bounding each ingester call. */
  timeoutMs: number;
  /** `-querier.max-samples`: samples one query may hold in memory. */
  maxSamples: number;
  /** `-querier.lookback-delta` (5m). */
  lookbackDeltaMs: number;
  /** `-querier.query-ingesters-within` (0 = always query ingesters). */
  queryIngestersWithinMs: number;
  /** `-querier.query-store-after` (0 = always query the store). Blocks path only. */
  queryStoreAfterMs?: number;
  /** Settings of the blocks path; used when `deps.blocks` is given. */
  blocks?: QuerierBlocksConfig;
  /** The simulator's mutation canary `skip_read_dedup` only (`SimCanaryHooks`); no flag sets it. */
  skipReplicaDedup?: boolean;
}

export interface QuerierBlocksConfig {
  /** `-querier.store-gateway-consistency-check-max-attempts` (3). */
  maxConsistencyAttempts: number;
  /** `-blocks-storage.bucket-store.consistency-delay`. */
  consistencyDelayMs: number;
  /** `-blocks-storage.bucket-store.sync-interval`. */
  syncIntervalMs: number;
  /** `-blocks-storage.bucket-store.ignore-deletion-marks-delay`. */
  ignoreDeletionMarksDelayMs: number;
}

/** Cortex's defaults for the blocks path. */
export const DEFAULT_QUERIER_BLOCKS_CONFIG: QuerierBlocksConfig = {
  maxConsistencyAttempts: 3,
  consistencyDelayMs: 0,
  syncIntervalMs: 15 * 60_000,
  ignoreDeletionMarksDelayMs: 6 * 60 * 60_000,
};

/** What the blocks path needs (see `newBlocksFinder` and the store sets). */
export interface QuerierBlocksDeps {
  /** Started and stopped with the querier. */
  finder: BlocksFinder;
  stores: BlocksStoreSet;
  client: BlocksStoreClient;
  /** Readiness of a store embedded in this process (its initial sync), if any. */
  storeReadiness?: () => string | undefined;
}

export interface QuerierDeps {
  clock: Clock;
  logger: Logger;
  metrics: MetricsRegistry;
  /** The querier's RPCs (`querier.Select`, `querier.Query`) are registered on it. */
  transport: Transport;
  ingesterRing: ReadRing;
  client: IngesterClient;
  buildInfo: BuildInfo;
  /** The blocks path; without it the querier reads the ingesters only. */
  blocks?: QuerierBlocksDeps;
  /**
   * A tenant's `max_fetched_series_per_query`, `max_fetched_chunk_bytes_per_query` and
   * `max_fetched_data_bytes_per_query` (0 = no limit; no limits without it).
   */
  queryLimits?: (tenant: string) => QueryLimits;
  /**
   * Where queries are evaluated: without it on this event loop; with it on the pool's
   * workers (a real process's worker threads), so evaluation never stalls ingestion.
   */
  compute?: ComputePool;
}

export class Querier extends BasicService {
  readonly engines: Engines;
  readonly ingesters: IngesterQueryable;
  /** The store-gateway side, when the blocks path is wired. */
  readonly store: BlocksStoreQueryable | undefined;
  private readonly merged: DistributorStoreQueryable | undefined;

  constructor(
    readonly config: QuerierConfig,
    readonly deps: QuerierDeps,
  ) {
    super('querier', {
      starting: (signal) => this.startBlocks(signal),
      stopping: () => this.deps.blocks?.finder.stop() ?? Promise.resolve(),
      isReady: () => this.blocksReadiness(),
    });
    const engineOptions = {
      timeout: config.timeoutMs,
      maxSamples: config.maxSamples,
      lookbackDelta: config.lookbackDeltaMs,
    };
    const compute = deps.compute;
    this.engines =
      compute === undefined
        ? {
            prometheus: new Engine(engineOptions, { clock: deps.clock }),
            thanos: new VectorEngine(engineOptions, { clock: deps.clock }),
          }
        : {
            prometheus: new OffloadedEngine(
              'prometheus',
              fullOptions(engineOptions),
              compute,
              deps.clock,
            ),
            thanos: new OffloadedEngine('thanos', fullOptions(engineOptions), compute, deps.clock),
          };
    this.ingesters = new IngesterQueryable(
      {
        queryIngestersWithinMs: config.queryIngestersWithinMs,
        timeoutMs: config.timeoutMs,
        ...(config.skipReplicaDedup === true ? { skipReplicaDedup: true } : {}),
      },
      {
        clock: deps.clock,
        logger: deps.logger,
        ring: deps.ingesterRing,
        client: deps.client,
        metrics: new QuerierMetrics(deps.metrics),
      },
    );
    this.store = deps.blocks === undefined ? undefined : this.newStore(deps.blocks);
    this.merged =
      this.store === undefined
        ? undefined
        : new DistributorStoreQueryable(this.ingesters, this.store);
    registerQuerierRpcs(deps.transport, this);
  }

  private newStore(blocks: QuerierBlocksDeps): BlocksStoreQueryable {
    const { clock, logger } = this.deps;
    const settings = this.config.blocks ?? DEFAULT_QUERIER_BLOCKS_CONFIG;
    const metrics = new BlocksQuerierMetrics(this.deps.metrics);
    return new BlocksStoreQueryable(
      {
        queryStoreAfterMs: this.config.queryStoreAfterMs ?? 0,
        maxConsistencyAttempts: settings.maxConsistencyAttempts,
        timeoutMs: this.config.timeoutMs,
      },
      {
        clock,
        logger,
        finder: blocks.finder,
        stores: blocks.stores,
        client: blocks.client,
        consistency: new BlocksConsistencyChecker(consistencyCheckerConfig(settings), {
          clock,
          logger,
          metrics,
        }),
        metrics,
      },
    );
  }

  private async startBlocks(signal: AbortSignal): Promise<void> {
    await this.deps.blocks?.finder.start(signal);
  }

  private blocksReadiness(): string | undefined {
    const blocks = this.deps.blocks;
    if (blocks === undefined) return undefined;
    return blocks.finder.isReady?.() ?? blocks.storeReadiness?.();
  }

  /**
   * One tenant's storage; `signal` cancels the ingester and store-gateway calls of its
   * queries. Query-shard selectors from the frontend are honoured (and removed) here.
   */
  queryable(tenant: string, signal?: AbortSignal): Queryable {
    const storage = shardingQueryable((this.merged ?? this.ingesters).forTenant(tenant, signal));
    const limits = this.deps.queryLimits;
    // Outside the shard filter: a shard sub-query counts the series of its shard (its
    // bytes are what was fetched for it, other shards' series included, as in Cortex).
    return limits === undefined ? storage : limitedQueryable(storage, () => limits(tenant));
  }

  /**
   * The tenant's merged series in [start, end] with their samples as arrays (what the
   * `querier.Select` RPC returns): both sources, each sample once.
   */
  async selectSamples(
    tenant: string,
    matchers: readonly Matcher[],
    start: number,
    end: number,
    signal?: AbortSignal,
  ): Promise<SeriesSamples[]> {
    if (this.merged === undefined)
      return toSamples(await this.ingesters.select(tenant, matchers, start, end, signal));
    const q = await this.queryable(tenant, signal).querier(start, end);
    try {
      return toSamples(await q.select(matchers, { start, end, ...(signal ? { signal } : {}) }));
    } finally {
      await q.close();
    }
  }

  userStats(tenant: string, signal?: AbortSignal): Promise<UserStats> {
    return collectUserStats(
      tenant,
      { ring: this.deps.ingesterRing, client: this.deps.client, timeoutMs: this.config.timeoutMs },
      signal,
    );
  }
}

/** Series decoded into arrays; series without a sample (a chunk only touched the window) left out. */
function toSamples(series: readonly StorageSeries[]): SeriesSamples[] {
  const out: SeriesSamples[] = [];
  for (const s of series) {
    const { ts, fs } = readSeriesSamples(s, -Infinity, Infinity);
    if (ts.length > 0) out.push({ labels: s.labels, timestamps: ts, values: fs });
  }
  return out;
}

/** The engines' options as they complete them from the defaults. */
function fullOptions(o: {
  timeout: number;
  maxSamples: number;
  lookbackDelta: number;
}): EngineOptions {
  return { ...DEFAULT_ENGINE_OPTIONS, ...o };
}
