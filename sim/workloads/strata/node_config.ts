import { defaultConfig, formatDuration, type Config } from '../../../src/config/index.js';
import type { StrataWorkloadConfig, TenantSpec } from './config.js';
import type { LongTermConfig } from './config_long_term.js';
import { applyHaTracker } from './config_ha.js';
import { applyLimits } from './config_limits.js';
import { applyFrontend } from './config_frontend.js';

import { RUNTIME_CONFIG_PATH, TSDB_DIR } from './node_paths.js';

/**
 * The blocks bucket every node opens. In the simulation every bucket spec maps to one
 * cluster-wide SimObjectStore named after its bucket, reached over the network as the
 * service `objstore`; an S3 spec says so better than a filesystem path would.
 */
export const SIM_BUCKET = 'strata-blocks';

/**
 * The Strata targets the workload runs on nodes (the other roles are clients). `all` is the
 * single binary: distributor, ingester, querier and the rest in one process, the distributor
 * pushing to its own ingester in process and to the others over RPC.
 */
export type StrataTarget =
  'distributor' | 'ingester' | 'querier' | 'store-gateway' | 'compactor' | 'all' | 'query-frontend';

export const STRATA_TARGETS: readonly StrataTarget[] = [
  'distributor',
  'ingester',
  'querier',
  'store-gateway',
  'compactor',
  'all',
  'query-frontend',
];

/** Whether a node of this target runs an ingester (its disk holds a TSDB, it is a replica). */
export function runsIngester(target: StrataTarget): boolean {
  return target === 'ingester' || target === 'all';
}

/**
 * The configuration of one simulated Strata process: the defaults, with the node's role as
 * target, the cluster-wide in-memory ring (one store shared by every simulated node), the
 * node name as ring id, quick heartbeats so crashed ingesters turn unhealthy within the run,
 * auth on (tenants come from `X-Scope-OrgID`), the runtime-config file for overrides, the
 * shared blocks bucket, and with `long_term` the long-term path's settings (the same on
 * every node, so each component reads the ones it uses).
 */
export function strataNodeConfig(
  target: StrataTarget,
  nodeName: string,
  c: StrataWorkloadConfig,
  /** Every Strata node of the cluster (memberlist joins the others). */
  strataNodes: readonly string[] = [],
): Config {
  const config = defaultConfig();
  config.target = target;
  config.auth_enabled = true;
  const lc = config.ingester.lifecycler;
  lc.id = nodeName;
  lc.heartbeat_period = c.heartbeatPeriodMs;
  lc.join_after = 0;
  lc.min_ready_duration = 0;
  lc.ring.kvstore.store = 'inmemory';
  lc.ring.heartbeat_timeout = c.heartbeatTimeoutMs;
  lc.ring.replication_factor = c.replicationFactor;
  config.tsdb.dir = TSDB_DIR;
  // One range: the head cuts blocks of it; longer ranges are the compactor's business, and
  // the ingester's retention must exceed the largest range listed.
  config.tsdb.block_ranges_period = [c.blockRangeMs];
  if (c.tenants.some((t) => t.outOfOrderWindowMs > 0))
    config.runtime_config.file = RUNTIME_CONFIG_PATH;
  // Every component that may touch the bucket finds one (ingesters ship by default).
  const s3 = config.tsdb.s3;
  config.tsdb.backend = 's3';
  s3.endpoint = 'objstore:9000';
  s3.bucket_name = SIM_BUCKET;
  s3.access_key_id = 'sim';
  s3.secret_access_key = 'sim';
  s3.insecure = true;
  if (c.longTerm !== undefined) applyLongTerm(config, nodeName, c, c.longTerm);
  if (c.ringStore === 'memberlist') applyMemberlist(config, nodeName, strataNodes);
  if (c.ha !== undefined) applyHaTracker(config, c.ha);
  if (c.limits !== undefined) applyLimits(config, c.limits, nodeName, c.heartbeatPeriodMs);
  if (c.frontend !== undefined) applyFrontend(config, c.frontend);
  return config;
}

/**
 * Every ring on memberlist (`-ring.store=memberlist`): gossip rides each node's RPC address
 * (its node name in the simulation); each node joins all the other Strata nodes, and re-joins
 * them periodically so that a healed partition merges the two halves again.
 */
function applyMemberlist(config: Config, nodeName: string, strataNodes: readonly string[]): void {
  for (const kv of [
    config.ingester.lifecycler.ring.kvstore,
    config.store_gateway.sharding_ring.kvstore,
    config.compactor.sharding_ring.kvstore,
  ])
    kv.store = 'memberlist';
  const ml = config.memberlist;
  ml.join_members = strataNodes.filter((n) => n !== nodeName);
  ml.abort_if_cluster_join_fails = false;
  ml.rejoin_interval = MEMBERLIST_REJOIN_INTERVAL_MS;
}

/** How often a member re-joins the others in the simulation (Cortex's default is never). */
const MEMBERLIST_REJOIN_INTERVAL_MS = 30_000;

function applyLongTerm(
  config: Config,
  nodeName: string,
  c: StrataWorkloadConfig,
  lt: LongTermConfig,
): void {
  const tsdb = config.tsdb;
  tsdb.ship_interval = lt.shipIntervalMs;
  tsdb.retention_period = lt.retentionPeriodMs;
  tsdb.head_compaction_interval = lt.headCompactionIntervalMs;
  tsdb.flush_blocks_on_shutdown = lt.flushOnShutdown;
  config.ingester.flush_on_shutdown_with_wal_enabled = lt.flushOnShutdown;
  tsdb.store_gateway_enabled = true;
  const bs = tsdb.bucket_store;
  bs.sync_dir = '/data/tsdb-sync';
  bs.sync_interval = lt.syncIntervalMs;
  bs.consistency_delay = lt.consistencyDelayMs;
  bs.ignore_deletion_mark_delay = lt.ignoreDeletionMarkDelayMs;
  // Blocks are queried however recent: the check compares every read with the model.
  config.querier.query_store_after = 0;
  const sg = config.store_gateway;
  sg.sharding_enabled = true;
  sg.sharding_ring.kvstore.store = 'inmemory';
  sg.sharding_ring.replication_factor = lt.storeGatewayReplicationFactor;
  sg.sharding_ring.heartbeat_period = c.heartbeatPeriodMs;
  sg.sharding_ring.heartbeat_timeout = c.heartbeatTimeoutMs;
  sg.sharding_ring.instance_id = nodeName;
  const compactor = config.compactor;
  compactor.data_dir = '/data/compactor';
  compactor.cleanup_interval = lt.cleanupIntervalMs;
  compactor.deletion_delay = lt.deletionDelayMs;
  const cs = lt.compactor;
  if (cs.blockRangesMs !== undefined) compactor.block_ranges = [...cs.blockRangesMs];
  if (cs.compactionIntervalMs !== undefined)
    compactor.compaction_interval = cs.compactionIntervalMs;
  if (cs.partialBlockDeletionDelayMs !== undefined)
    compactor.partial_block_deletion_delay = cs.partialBlockDeletionDelayMs;
  // Without sharding one compactor owns every tenant; with it, the compactor ring (RF 1)
  // shares them out, with the workload's quick heartbeats.
  compactor.sharding_enabled = cs.shardingEnabled;
  const ring = compactor.sharding_ring;
  ring.kvstore.store = 'inmemory';
  ring.instance_id = nodeName;
  ring.heartbeat_period = c.heartbeatPeriodMs;
  ring.heartbeat_timeout = c.heartbeatTimeoutMs;
}

/** The runtime-config file (Cortex format) with each tenant's overrides; '' when none. */
export function runtimeConfigYaml(tenants: readonly TenantSpec[]): string {
  const lines = tenants
    .filter((t) => t.outOfOrderWindowMs > 0)
    .map(
      (t) =>
        `  ${JSON.stringify(t.name)}:\n    out_of_order_time_window: ${formatDuration(t.outOfOrderWindowMs)}\n`,
    );
  return lines.length === 0 ? '' : `overrides:\n${lines.join('')}`;
}
