/**
 * The query path's front: the query-frontend (its own per-tenant queue, or a query-scheduler
 * when `-frontend.scheduler-address` is set), the query-scheduler, and the querier's worker
 * that pulls from either. As in Cortex, a process that runs both the frontend and the querier
 * (`-target=all`) serves the query API through the frontend and its querier pulls from the
 * frontend of its own process; the querier's routes then live on an internal server.
 */
import type { Config } from '../config/index.js';
import {
  type RangeMiddlewaresConfig,
  buildInstantShardHandler,
  answersPassThrough,
  buildRangeHandler,
  smallestPositivePerTenant,
  querierRangeHandler,
  QueryStats,
  registerFrontendRoutes,
} from '../frontend/index.js';
import { newMetricsRegistry, type Cache, type CacheSpec, type Env } from '../runtime/index.js';
import {
  FrontendDispatcher,
  QuerierWorker,
  QueryScheduler,
  QueueService,
  queueMetrics,
  type QueueLimits,
} from '../scheduler/index.js';
import { HttpServer } from '../server/index.js';
import { BasicService, type Service } from '../services/index.js';
import type { StrataContext } from './context.js';

/** How often workers say they are alive, and how long a silent querier is still trusted. */
const HEARTBEAT_MS = 1_000;
const QUERIER_TIMEOUT_MS = 5_000;
/** One pull waits this long for work before the worker asks again. */
const PULL_WAIT_MS = 10_000;
/** Added to `-querier.timeout` so the querier's own timeout answers first. */
const TIMEOUT_MARGIN_MS = 10_000;
const ENGINE_HEADER = 'x-promql-enginetype';
const ONE_GIB = 1 << 30;

export function queryFrontendService(ctx: StrataContext): Service {
  const { config, env } = ctx;
  const http = ctx.need(ctx.http, 'server', 'query-frontend');
  const overrides = ctx.need(ctx.overrides, 'overrides', 'query-frontend');
  const logger = env.logger.child({ module: 'query-frontend' });
  const limits: QueueLimits = {
    maxOutstanding: (tenant) =>
      smallerBound(
        overrides.limits(tenant).max_outstanding_requests_per_tenant,
        config.frontend.max_outstanding_per_tenant,
      ),
    maxQueriers: (tenant) => overrides.limits(tenant).max_queriers_per_tenant,
  };
  const queueFactory = ctx.options.simCanaries?.frontendQueue;
  const local =
    config.frontend.scheduler_address === ''
      ? new QueueService(
          {
            role: 'frontend',
            querierTimeoutMs: QUERIER_TIMEOUT_MS,
            forgetDelayMs: config.frontend.querier_forget_delay,
          },
          {
            clock: env.clock,
            transport: env.transport,
            logger,
            limits,
            metrics: queueMetrics(env.metrics, 'cortex_query_frontend'),
            // Only the simulator's mutation canaries pass one (a deliberately unfair queue).
            ...(queueFactory !== undefined ? { newQueue: queueFactory } : {}),
          },
        )
      : undefined;
  const dispatcher = new FrontendDispatcher(
    {
      schedulerAddress: config.frontend.scheduler_address,
      timeoutMs: config.querier.timeout + TIMEOUT_MARGIN_MS,
    },
    {
      clock: env.clock,
      transport: env.transport,
      logger,
      random: env.random.stream('frontend/query-ids'),
      ...(local ? { local } : {}),
    },
  );
  const roundTrip = dispatcher.roundTrip.bind(dispatcher);
  const cache = config.query_range.cache_results ? openResultsCache(env, config) : undefined;
  const range = config.query_range;
  const shardSize = (tenant: string): number => overrides.limits(tenant).query_vertical_shard_size;
  const middlewares: RangeMiddlewaresConfig = {
    alignQueriesWithStep: range.align_queries_with_step,
    splitQueriesByInterval: range.split_queries_by_interval,
    cacheResults: range.cache_results,
    maxRetries: range.max_retries,
    // Cortex: the smallest positive limit among a federated query's tenants.
    maxQueryParallelism: (tenantIds) =>
      smallestPositivePerTenant(tenantIds, (t) => overrides.limits(t).max_query_parallelism),
    maxCacheFreshness: (tenant) => overrides.limits(tenant).max_cache_freshness,
    resultsCacheTtlMs: resultsTtl(config),
    shardSize,
    // Answers must equal the unsharded query's: sum/avg without a grouping would add the
    // shards' sums in another order than the engine (last-bit float differences), so they
    // run whole; grouped aggregations and count/min/max/topk/bottomk shard exactly.
    shardExactOnly: true,
  };
  const middlewareDeps = { clock: env.clock, logger, registry: env.metrics };
  const queryRange = querierRangeHandler(
    roundTrip,
    `${config.api.prometheus_http_prefix}/api/v1/query_range`,
    answersPassThrough(middlewares),
  );
  const rangeHandler = buildRangeHandler(
    middlewares,
    { ...middlewareDeps, ...(cache ? { cache } : {}) },
    queryRange,
  );
  const instantShards = buildInstantShardHandler(middlewares, middlewareDeps, queryRange);
  registerFrontendRoutes(http, {
    roundTrip,
    rangeHandler,
    stats: new QueryStats(
      {
        logQueriesLongerThanMs: config.frontend.log_queries_longer_than,
        queryStatsEnabled: config.frontend.query_stats_enabled,
      },
      { clock: env.clock, logger, registry: env.metrics },
    ),
    logger,
    maxBodyBytes: config.frontend.max_body_size,
    forwardHeaders: [ENGINE_HEADER],
    ...(instantShards === undefined
      ? {}
      : {
          instantSharding: {
            shardSize,
            exactOnly: middlewares.shardExactOnly === true,
            handler: instantShards,
            nowMs: () => env.clock.now(),
          },
        }),
  });
  return new BasicService('query-frontend', {
    starting: () => {
      local?.start();
      return Promise.resolve();
    },
    stopping: async () => {
      if (local !== undefined) {
        const left = local.stop();
        await Promise.all(
          left.map((q) => local.failToFrontend(q, 503, 'the query-frontend is stopping')),
        );
      }
      await cache?.close();
    },
  });
}

export function querySchedulerService(ctx: StrataContext): Service {
  const { config, env } = ctx;
  const overrides = ctx.need(ctx.overrides, 'overrides', 'query-scheduler');
  const scheduler = new QueryScheduler(
    {
      querierTimeoutMs: QUERIER_TIMEOUT_MS,
      forgetDelayMs: config.query_scheduler.querier_forget_delay,
    },
    {
      clock: env.clock,
      transport: env.transport,
      logger: env.logger.child({ module: 'query-scheduler' }),
      limits: {
        maxOutstanding: (tenant) =>
          smallerBound(
            overrides.limits(tenant).max_outstanding_requests_per_tenant,
            config.query_scheduler.max_outstanding_requests_per_tenant,
          ),
        maxQueriers: (tenant) => overrides.limits(tenant).max_queriers_per_tenant,
      },
      metrics: queueMetrics(env.metrics, 'cortex_query_scheduler'),
    },
  );
  return new BasicService('query-scheduler', {
    starting: () => {
      scheduler.start();
      return Promise.resolve();
    },
    stopping: () => scheduler.stop(),
  });
}

/** Whether this process's querier takes its queries from a frontend or scheduler. */
export function querierPullsQueries(ctx: StrataContext): boolean {
  const w = ctx.config.frontend_worker;
  return (
    w.frontend_address !== '' ||
    w.scheduler_address !== '' ||
    ctx.modules().includes('query-frontend')
  );
}

/** An HTTP server for the querier's routes that only its worker reaches. */
export function internalQuerierServer(ctx: StrataContext): HttpServer {
  const { config, env } = ctx;
  return new HttpServer(
    {
      authEnabled: config.auth_enabled,
      prefixes: {
        legacy: config.http_prefix,
        prometheus: config.api.prometheus_http_prefix,
        alertmanager: config.api.alertmanager_http_prefix,
      },
    },
    {
      clock: env.clock,
      logger: env.logger.child({ module: 'querier-internal-http' }),
      // Its request metrics would clash with the public server's in the process registry;
      // the frontend in front of it counts the requests.
      metrics: newMetricsRegistry(),
    },
  );
}

/** The worker pulling queries for this process's querier, run through `internal`. */
export function querierWorkerService(ctx: StrataContext, internal: HttpServer): Service {
  const { config, env } = ctx;
  const w = config.frontend_worker;
  let worker: QuerierWorker | undefined;
  return new BasicService('querier-worker', {
    starting: () => {
      // The in-process frontend's address is known once the server module listens.
      const configured = w.scheduler_address !== '' ? w.scheduler_address : w.frontend_address;
      const address = configured !== '' ? configured : (env.transport.address ?? '');
      worker = new QuerierWorker(
        {
          address,
          role: w.scheduler_address !== '' ? 'scheduler' : 'frontend',
          querierId: w.id || env.nodeName,
          parallelism: w.parallelism,
          pullWaitMs: PULL_WAIT_MS,
          heartbeatMs: HEARTBEAT_MS,
          queryTimeoutMs: config.querier.timeout + TIMEOUT_MARGIN_MS,
        },
        {
          clock: env.clock,
          transport: env.transport,
          logger: env.logger.child({ module: 'querier-worker' }),
          handler: internal.handler,
        },
      );
      worker.start();
      return Promise.resolve();
    },
    stopping: () => worker?.stop() ?? Promise.resolve(),
  });
}

/** Two upper bounds where 0 means none: the smaller one that is set. */
function smallerBound(a: number, b: number): number {
  if (a <= 0) return b;
  if (b <= 0) return a;
  return Math.min(a, b);
}

function resultsTtl(config: Config): number {
  const c = config.query_range.results_cache.cache;
  if (c.memcached_client.addresses.trim() !== '')
    return c.memcached.expiration || c.default_validity;
  return c.fifocache.validity || c.default_validity;
}

function openResultsCache(env: Env, config: Config): Cache {
  const c = config.query_range.results_cache.cache;
  const addresses = c.memcached_client.addresses
    .split(',')
    .map((a) => a.trim())
    .filter((a) => a !== '');
  const spec: CacheSpec =
    addresses.length > 0
      ? {
          backend: 'memcached',
          addresses,
          timeoutMs: c.memcached_client.timeout,
          maxIdleConnections: c.memcached_client.max_idle_conns,
          maxAsyncConcurrency: c.background.writeback_goroutines,
          maxAsyncBufferSize: c.background.writeback_buffer,
          maxGetMultiConcurrency: c.memcached.parallelism,
          maxGetMultiBatchSize: c.memcached.batch_size,
          maxItemSize: c.memcached_client.max_item_size,
          // 0 would re-resolve without pause: keep the client's default then.
          ...(c.memcached_client.update_interval > 0
            ? { dnsUpdateIntervalMs: c.memcached_client.update_interval }
            : {}),
        }
      : { backend: 'inmemory', maxSizeBytes: c.fifocache.max_size_bytes || ONE_GIB };
  return env.caches.open('frontend-cache', spec);
}
