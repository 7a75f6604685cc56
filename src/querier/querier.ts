/**
 * The querier component: the per-tenant Queryable over the ingesters, the two PromQL engines
 * configured from `-querier.*`, the tenant's user stats, and the RPCs the simulator's query
 * workload calls. HTTP routes are registered separately (`registerQuerierRoutes`).
 */
import type { BuildInfo, Engines } from '../api/index.js';
import type { IngesterClient } from '../ingester/index.js';
import { Engine } from '../promql/engine/index.js';
import type { Queryable } from '../promql/index.js';
import { VectorEngine } from '../promql/vector/index.js';
import type { ReadRing } from '../ring/index.js';
import type { Clock, Logger, MetricsRegistry, Transport } from '../runtime/index.js';
import { BasicService } from '../services/index.js';
import { IngesterQueryable } from './ingester_queryable.js';
import { QuerierMetrics } from './metrics.js';
import { registerQuerierRpcs } from './querier_rpc.js';
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
}

export class Querier extends BasicService {
  readonly engines: Engines;
  readonly ingesters: IngesterQueryable;

  constructor(
    readonly config: QuerierConfig,
    readonly deps: QuerierDeps,
  ) {
    super('querier');
    const engineOptions = {
      timeout: config.timeoutMs,
      maxSamples: config.maxSamples,
      lookbackDelta: config.lookbackDeltaMs,
    };
    this.engines = {
      prometheus: new Engine(engineOptions, { clock: deps.clock }),
      thanos: new VectorEngine(engineOptions, { clock: deps.clock }),
    };
    this.ingesters = new IngesterQueryable(
      {
        queryIngestersWithinMs: config.queryIngestersWithinMs,
        timeoutMs: config.timeoutMs,
      },
      {
        clock: deps.clock,
        logger: deps.logger,
        ring: deps.ingesterRing,
        client: deps.client,
        metrics: new QuerierMetrics(deps.metrics),
      },
    );
    registerQuerierRpcs(deps.transport, this);
  }

  /** One tenant's storage; `signal` cancels the ingester calls of its queries. */
  queryable(tenant: string, signal?: AbortSignal): Queryable {
    return this.ingesters.forTenant(tenant, signal);
  }

  userStats(tenant: string, signal?: AbortSignal): Promise<UserStats> {
    return collectUserStats(
      tenant,
      { ring: this.deps.ingesterRing, client: this.deps.client, timeoutMs: this.config.timeoutMs },
      signal,
    );
  }
}
