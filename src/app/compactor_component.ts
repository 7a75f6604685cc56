/**
 * The compactor as a module: its blocks cleaner (bucket index, deletion of blocks past their
 * deletion delay, partial blocks, deleted tenants) and its compaction loop, owning every
 * tenant or, with sharding, the tenants the compactor ring gives it; its ring page at
 * `/compactor/ring`.
 */
import {
  COMPACTOR_RING_KEY,
  COMPACTOR_RING_NUM_TOKENS,
  Compactor,
  type CompactorShardingStrategy,
} from '../compactor/index.js';
import type { Service } from '../services/index.js';
import { withClosedBucket } from './bucket.js';
import type { StrataContext } from './context.js';
import { deferredKV, registerRingPage } from './ring_client.js';
import { openCachedComponentBucket } from './store_caches.js';

export function compactorService(ctx: StrataContext): Service {
  const { config, env } = ctx;
  const c = config.compactor;
  const http = ctx.need(ctx.http, 'server', 'compactor');
  const { bucket } = openCachedComponentBucket(ctx, 'compactor');
  const overrides = ctx.need(ctx.overrides, 'overrides', 'compactor');
  const compactor = new Compactor(
    {
      dataDir: c.data_dir,
      cleanupIntervalMs: c.cleanup_interval,
      cleanupConcurrency: c.cleanup_concurrency,
      partialBlockDeletionDelayMs: c.partial_block_deletion_delay,
      deletionDelayMs: c.deletion_delay,
      tenantCleanupDelayMs: c.tenant_cleanup_delay,
      compaction: {
        blockRangesMs: c.block_ranges,
        blockSyncConcurrency: c.block_sync_concurrency,
        metaSyncConcurrency: c.meta_sync_concurrency,
        consistencyDelayMs: c.consistency_delay,
        compactionIntervalMs: c.compaction_interval,
        compactionRetries: c.compaction_retries,
        compactionConcurrency: c.compaction_concurrency,
        skipBlocksWithOutOfOrderChunksEnabled: c.skip_blocks_with_out_of_order_chunks_enabled,
      },
      shardingEnabled: c.sharding_enabled,
      shardingStrategy: c.sharding_strategy as CompactorShardingStrategy,
      blockVisitMarkerTimeoutMs: c.block_visit_marker_timeout,
      blockVisitMarkerFileUpdateIntervalMs: c.block_visit_marker_file_update_interval,
      ring: {
        instanceId: c.sharding_ring.instance_id === '' ? env.nodeName : c.sharding_ring.instance_id,
        instanceAddr: c.sharding_ring.instance_addr,
        heartbeatPeriodMs: c.sharding_ring.heartbeat_period,
        heartbeatTimeoutMs: c.sharding_ring.heartbeat_timeout,
        numTokens: COMPACTOR_RING_NUM_TOKENS,
        autoForgetDelayMs: c.sharding_ring.auto_forget_delay,
        waitStabilityMinDurationMs: c.sharding_ring.wait_stability_min_duration,
        waitStabilityMaxDurationMs: c.sharding_ring.wait_stability_max_duration,
      },
    },
    {
      bucket,
      clock: env.clock,
      random: env.random,
      logger: env.logger,
      metrics: env.metrics,
      fs: env.fs,
      address: () => env.transport.address,
      // Read per cleanup, so a runtime-config reload applies at the next one.
      retentionPeriodMs: (tenant) => overrides.compactorBlocksRetentionPeriod(tenant),
      tenantShardSize: (tenant) => overrides.compactorTenantShardSize(tenant),
      ...(c.sharding_enabled ? { kv: deferredKV(ctx, 'compactor') } : {}),
    },
  );
  registerRingPage(http, ctx, {
    path: '/compactor/ring',
    description: 'Compactor ring status (tokens per compactor); forget unhealthy instances',
    key: COMPACTOR_RING_KEY,
    ring: () => compactor.ring,
    kv: () => ctx.rings?.compactor,
    notRunning: c.sharding_enabled
      ? 'the compactor ring is not running yet'
      : 'compactor sharding is disabled (-compactor.sharding-enabled=false): there is no compactor ring',
  });
  return withClosedBucket(compactor, () => bucket.close());
}
