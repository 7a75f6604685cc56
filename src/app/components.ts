/**
 * The write- and read-path components as modules: the distributor, the ingester and the
 * querier, each built from the configuration and the Env, with its routes on the shared
 * HTTP server and its RPC handlers on the Env's transport. They find each other through the
 * ingester ring the `ring` module runs.
 */
import { Distributor, registerDistributorRoutes } from '../distributor/index.js';
import {
  Ingester,
  LocalFirstIngesterClient,
  TransportIngesterClient,
  registerIngesterRoutes,
  tenantDBsConfigFrom,
  type IngesterClient,
} from '../ingester/index.js';
import { Querier, registerQuerierRoutes } from '../querier/index.js';
import type { StrataContext } from './context.js';
import { DEV_BUILD_INFO } from './build_info.js';
import { distributorLifecyclerService } from './distributor_ring.js';
import { INGESTER_RING_KEY, deferredKV, ingesterRingProxy } from './ring_client.js';
import type { Service } from '../services/index.js';
import { openComponentBucket, withClosedBucket, withSubservices } from './bucket.js';
import { querierBlocksWiring } from './storegateway_component.js';
import {
  internalQuerierServer,
  querierPullsQueries,
  querierWorkerService,
} from './frontend_component.js';

/**
 * One client per process, shared by the distributor and the querier. Pushes to the ingester
 * of this process skip the encode/decode round trip (the single binary's hot path).
 */
function ingesterClient(ctx: StrataContext): IngesterClient {
  ctx.ingesterClient ??= new LocalFirstIngesterClient(
    new TransportIngesterClient(ctx.env.transport),
    () => ctx.localIngester,
  );
  return ctx.ingesterClient;
}

export function distributorService(ctx: StrataContext): Service {
  const { config, env } = ctx;
  const d = config.distributor;
  const http = ctx.need(ctx.http, 'server', 'distributor');
  const distributor = new Distributor(
    {
      shardByAllLabels: d.shard_by_all_labels,
      remoteTimeoutMs: d.remote_timeout,
      extendWrites: d.extend_writes,
      maxRecvMsgSize: d.max_recv_msg_size,
      seriesLabelsCacheEntries: d.series_labels_cache_size,
      haTracker: {
        enabled: d.ha_tracker.enable_ha_tracker,
        updateTimeoutMs: d.ha_tracker.ha_tracker_update_timeout,
        updateTimeoutJitterMaxMs: d.ha_tracker.ha_tracker_update_timeout_jitter_max,
        failoverTimeoutMs: d.ha_tracker.ha_tracker_failover_timeout,
      },
      ingestionRateStrategy:
        config.limits.ingestion_rate_strategy === 'global' ? 'global' : 'local',
    },
    {
      clock: env.clock,
      random: env.random,
      logger: env.logger.child({ module: 'distributor' }),
      metrics: env.metrics,
      transport: env.transport,
      ingesterRing: ingesterRingProxy(ctx),
      client: ingesterClient(ctx),
      overrides: ctx.need(ctx.overrides, 'overrides', 'distributor'),
      ...(d.ha_tracker.enable_ha_tracker ? { haKV: deferredKV(ctx, 'haTracker') } : {}),
      // Cortex divides the global limit by the healthy distributors of the distributor ring.
      distributorCount: () => Math.max(1, ctx.distributorRing?.healthyInstancesCount() ?? 1),
    },
  );
  registerDistributorRoutes(http, distributor);
  return withSubservices(distributor, [distributorLifecyclerService(ctx)]);
}

export function ingesterService(ctx: StrataContext): Service {
  const { config, env } = ctx;
  const lc = config.ingester.lifecycler;
  const http = ctx.need(ctx.http, 'server', 'ingester');
  const ring = ingesterRingProxy(ctx);
  // With shipping disabled the ingester never touches the bucket (and keeps its blocks).
  const bucket = config.tsdb.ship_interval > 0 ? openComponentBucket(ctx, 'ingester') : undefined;
  const ingester = new Ingester(
    {
      tenantDBs: tenantDBsConfigFrom(config.tsdb),
      lifecycler: {
        ringName: 'ingester',
        key: INGESTER_RING_KEY,
        id: lc.id === '' ? env.nodeName : lc.id,
        addr: lc.address,
        zone: lc.availability_zone,
        numTokens: lc.num_tokens,
        heartbeatPeriodMs: lc.heartbeat_period,
        joinAfterMs: lc.join_after,
        tokensFilePath: lc.tokens_file_path,
        unregisterOnShutdown: config.ingester.unregister_on_shutdown,
      },
      flushOnShutdown:
        config.ingester.flush_on_shutdown_with_wal_enabled || config.tsdb.flush_blocks_on_shutdown,
      minReadyDurationMs: lc.min_ready_duration,
      metadataRetainPeriodMs: config.ingester.metadata_retain_period,
      seriesLabelsCacheEntries: config.ingester.series_labels_cache_size,
    },
    {
      fs: env.fs,
      clock: env.clock,
      random: env.random,
      logger: env.logger.child({ module: 'ingester' }),
      metrics: env.metrics,
      transport: env.transport,
      kv: deferredKV(ctx, 'ingester'),
      ring,
      limits: ctx.need(ctx.overrides, 'overrides', 'ingester'),
      ...(bucket === undefined ? {} : { bucket }),
    },
  );
  ctx.runtimeConfig?.onChange(() => ingester.dbs.applyOverrides());
  ctx.localIngester = ingester;
  registerIngesterRoutes(http, ingester);
  return bucket === undefined ? ingester : withClosedBucket(ingester, () => bucket.close());
}

export function querierService(ctx: StrataContext): Service {
  const { config, env } = ctx;
  const q = config.querier;
  const bs = config.tsdb.bucket_store;
  const wiring = querierBlocksWiring(ctx);
  const overrides = ctx.need(ctx.overrides, 'overrides', 'querier');
  const querier = new Querier(
    {
      timeoutMs: q.timeout,
      maxSamples: q.max_samples,
      lookbackDeltaMs: q.lookback_delta,
      queryIngestersWithinMs: q.query_ingesters_within,
      queryStoreAfterMs: q.query_store_after,
      ...(ctx.options.simCanaries?.skipReplicaDedupOnRead === true
        ? { skipReplicaDedup: true }
        : {}),
      blocks: {
        maxConsistencyAttempts: STORE_CONSISTENCY_ATTEMPTS,
        consistencyDelayMs: bs.consistency_delay,
        syncIntervalMs: bs.sync_interval,
        ignoreDeletionMarksDelayMs: bs.ignore_deletion_mark_delay,
      },
    },
    {
      clock: env.clock,
      logger: env.logger.child({ module: 'querier' }),
      metrics: env.metrics,
      transport: env.transport,
      ingesterRing: ingesterRingProxy(ctx),
      client: ingesterClient(ctx),
      buildInfo: ctx.options.buildInfo ?? DEV_BUILD_INFO,
      blocks: wiring.blocks,
      ...(env.compute === undefined ? {} : { compute: env.compute }),
      queryLimits: (tenant) => {
        const l = overrides.limits(tenant);
        return {
          maxSeries: l.max_fetched_series_per_query,
          maxChunkBytes: l.max_fetched_chunk_bytes_per_query,
          maxDataBytes: l.max_fetched_data_bytes_per_query,
        };
      },
    },
  );
  const followers: Service[] = [];
  if (querierPullsQueries(ctx)) {
    // Queries come through a frontend (Cortex: the querier's API is then internal only);
    // the worker starts pulling once the querier runs.
    const internal = internalQuerierServer(ctx);
    registerQuerierRoutes(internal, querier);
    followers.push(querierWorkerService(ctx, internal));
  } else {
    registerQuerierRoutes(ctx.need(ctx.http, 'server', 'querier'), querier);
  }
  return withClosedBucket(withSubservices(querier, wiring.services, followers), () =>
    wiring.bucket.close(),
  );
}

/** Cortex's maxFetchSeriesAttempts: a block is tried on at most three store-gateways. */
const STORE_CONSISTENCY_ATTEMPTS = 3;
