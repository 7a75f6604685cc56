/**
 * The store-gateway's configuration from the YAML/flag tree: `tsdb.bucket_store.*` and
 * `store_gateway.*` in milliseconds and bytes. Settings the reference does not have (ring
 * stability wait, zone awareness, ring check period) take Cortex's values unless given.
 */
import type { StoreGatewayConfig as StoreGatewayYaml, TsdbConfig } from '../config/index.js';
import { RING_CHECK_PERIOD_MS } from './sharding.js';
import type { StoreGatewayConfig, StoreGatewayRingOptions } from './store_gateway.js';

export interface StoreGatewayConfigExtras {
  /** The Env's node name: the instance ID when `instance_id` is empty. */
  nodeName: string;
  zone?: string;
  zoneAwarenessEnabled?: boolean;
  /** Cortex: 1m; tests and single-process setups use 0. */
  waitStabilityMinMs?: number;
  /** Cortex: 5m. */
  waitStabilityMaxMs?: number;
  ringCheckPeriodMs?: number;
}

export function storeGatewayConfigFrom(
  tsdb: TsdbConfig,
  sg: StoreGatewayYaml,
  extras: StoreGatewayConfigExtras,
): StoreGatewayConfig {
  const bs = tsdb.bucket_store;
  const ring = sg.sharding_ring;
  const ringOptions: StoreGatewayRingOptions = {
    instanceId: ring.instance_id !== '' ? ring.instance_id : extras.nodeName,
    instanceAddr: ring.instance_addr,
    zone: extras.zone ?? ring.instance_availability_zone,
    heartbeatPeriodMs: ring.heartbeat_period,
    heartbeatTimeoutMs: ring.heartbeat_timeout,
    replicationFactor: ring.replication_factor,
    tokensFilePath: ring.tokens_file_path,
    zoneAwarenessEnabled: extras.zoneAwarenessEnabled ?? ring.zone_awareness_enabled,
    waitStabilityMinMs: extras.waitStabilityMinMs ?? ring.wait_stability_min_duration,
    waitStabilityMaxMs: extras.waitStabilityMaxMs ?? ring.wait_stability_max_duration,
    ringCheckPeriodMs: extras.ringCheckPeriodMs ?? RING_CHECK_PERIOD_MS,
  };
  return {
    shardingEnabled: sg.sharding_enabled,
    ring: ringOptions,
    bucketStore: {
      syncDir: bs.sync_dir,
      syncIntervalMs: bs.sync_interval,
      tenantSyncConcurrency: bs.tenant_sync_concurrency,
      blockSyncConcurrency: bs.block_sync_concurrency,
      metaSyncConcurrency: bs.meta_sync_concurrency,
      consistencyDelayMs: bs.consistency_delay,
      ignoreDeletionMarkDelayMs: bs.ignore_deletion_mark_delay,
      bucketIndexEnabled: bs.bucket_index.enabled,
      maxConcurrent: bs.max_concurrent,
      maxSampleCount: bs.max_sample_count,
      maxChunkPoolBytes: bs.max_chunk_pool_bytes,
      lazyLoadingEnabled: bs.index_header_lazy_loading_enabled,
      lazyLoadingIdleTimeoutMs: bs.index_header_lazy_loading_idle_timeout,
    },
  };
}
