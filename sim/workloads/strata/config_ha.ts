import type { Config } from '../../../src/config/index.js';
import {
  ScenarioError,
  formatDuration,
  readDuration,
  readNumber,
  readObject,
  readString,
  readStringList,
} from '../../fields/index.js';

/**
 * Deliberately broken HA trackers, for proving that the HA checks catch what they claim to.
 * `none` runs the real distributors; the harness breaks the others from outside.
 */
export const BROKEN_HA_MODES = [
  'none',
  /**
   * The distributors' HA KV store reports every elected replica as heard from just now, so
   * the tracker never sees the failover timeout pass and never fails over.
   */
  'never_failover',
] as const;

export type BrokenHaMode = (typeof BROKEN_HA_MODES)[number];

/** Cortex's label names (the `limits` defaults): the cluster and the replica label. */
export const HA_CLUSTER_LABEL = 'cluster';
export const HA_REPLICA_LABEL = '__replica__';
/** The HA writers' metric names: `strata_ha_m0`, `strata_ha_m1`, … */
export const HA_METRIC_PREFIX = 'strata_ha_m';

/** One replica (one writer node) of an HA cluster. */
export interface HaReplica {
  cluster: string;
  /** The `__replica__` value: the writer's node name. */
  replica: string;
  /** Its place in the cluster's list: replica k scrapes k/n of an interval after replica 0. */
  index: number;
  of: number;
}

export interface HaConfig {
  /** `distributor.ha_tracker.ha_tracker_update_timeout`. */
  updateTimeoutMs: number;
  /** `distributor.ha_tracker.ha_tracker_update_timeout_jitter_max`. */
  updateTimeoutJitterMaxMs: number;
  /** `distributor.ha_tracker.ha_tracker_failover_timeout`. */
  failoverTimeoutMs: number;
  /** Cluster name → the writer nodes that are its replicas, in order. */
  clusters: ReadonlyMap<string, readonly string[]>;
  /** Series per cluster and tenant (each replica scrapes the same ones). */
  series: number;
  broken: BrokenHaMode;
}

/** Parses the workload's `ha_tracker` section; undefined when absent (no HA tracker). */
export function parseHaConfig(value: unknown, where: string): HaConfig | undefined {
  if (value === undefined) return undefined;
  const o = readObject(value, where, [
    'update_timeout',
    'update_timeout_jitter_max',
    'failover_timeout',
    'clusters',
    'series',
    'broken',
  ]);
  const updateTimeoutMs = readDuration(o.update_timeout, `${where}.update_timeout`, 15_000);
  const updateTimeoutJitterMaxMs = readDuration(
    o.update_timeout_jitter_max,
    `${where}.update_timeout_jitter_max`,
    5_000,
  );
  const failoverTimeoutMs = readDuration(o.failover_timeout, `${where}.failover_timeout`, 30_000);
  // Cortex's validation of the tracker config (ha_tracker.go, HATrackerConfig.Validate).
  if (failoverTimeoutMs < updateTimeoutMs + updateTimeoutJitterMaxMs + 1_000)
    throw new ScenarioError(
      `${where}.failover_timeout: must be at least 1s greater than update_timeout + update_timeout_jitter_max (${formatDuration(updateTimeoutMs + updateTimeoutJitterMaxMs + 1_000)}), got ${formatDuration(failoverTimeoutMs)}`,
    );
  const rawClusters = readObject(o.clusters, `${where}.clusters`, Object.keys(o.clusters ?? {}));
  const clusters = new Map<string, string[]>();
  const seen = new Set<string>();
  for (const [cluster, list] of Object.entries(rawClusters)) {
    const replicas = readStringList(list, `${where}.clusters.${cluster}`);
    if (replicas.length < 2)
      throw new ScenarioError(
        `${where}.clusters.${cluster}: an HA cluster needs at least two replicas, got ${replicas.length}`,
      );
    for (const r of replicas) {
      if (seen.has(r))
        throw new ScenarioError(`${where}.clusters.${cluster}: ${r} is a replica twice`);
      seen.add(r);
    }
    clusters.set(cluster, replicas);
  }
  if (clusters.size === 0) throw new ScenarioError(`${where}.clusters: names no cluster`);
  const broken = readString(o.broken, `${where}.broken`, 'none');
  if (!(BROKEN_HA_MODES as readonly string[]).includes(broken))
    throw new ScenarioError(
      `${where}.broken: unknown mode ${JSON.stringify(broken)} (known: ${BROKEN_HA_MODES.join(', ')})`,
    );
  return {
    updateTimeoutMs,
    updateTimeoutJitterMaxMs,
    failoverTimeoutMs,
    clusters,
    series: readNumber(o.series, `${where}.series`, 4, { min: 1, integer: true }),
    broken: broken as BrokenHaMode,
  };
}

/** The replica a writer node is, if it is one. */
export function haReplicaOf(ha: HaConfig | undefined, node: string): HaReplica | undefined {
  if (ha === undefined) return undefined;
  for (const [cluster, replicas] of ha.clusters) {
    const index = replicas.indexOf(node);
    if (index >= 0) return { cluster, replica: node, index, of: replicas.length };
  }
  return undefined;
}

/**
 * The distributor settings of the HA tracker: enabled, with the scenario's timeouts, on the
 * cluster's shared in-memory KV (the `kv` service every simulated node reaches), and HA
 * samples accepted for every tenant (Cortex's `accept_ha_samples`, default labels).
 */
export function applyHaTracker(config: Config, ha: HaConfig): void {
  const t = config.distributor.ha_tracker;
  t.enable_ha_tracker = true;
  t.ha_tracker_update_timeout = ha.updateTimeoutMs;
  t.ha_tracker_update_timeout_jitter_max = ha.updateTimeoutJitterMaxMs;
  t.ha_tracker_failover_timeout = ha.failoverTimeoutMs;
  t.kvstore.store = 'inmemory';
  config.limits.accept_ha_samples = true;
  config.limits.ha_cluster_label = HA_CLUSTER_LABEL;
  config.limits.ha_replica_label = HA_REPLICA_LABEL;
}

export function describeHa(ha: HaConfig): string[] {
  const lines = [
    `  HA tracker: update timeout ${formatDuration(ha.updateTimeoutMs)} (jitter up to ${formatDuration(ha.updateTimeoutJitterMaxMs)}), failover timeout ${formatDuration(ha.failoverTimeoutMs)}; ${ha.series} series per cluster and tenant (the replicas' writers ignore scrape.series), labels ${HA_CLUSTER_LABEL}/${HA_REPLICA_LABEL}`,
    ...[...ha.clusters].map(
      ([c, rs]) => `    cluster ${c}: replicas ${rs.join(', ')} (each scrapes the same series)`,
    ),
  ];
  if (ha.broken === 'never_failover')
    lines.push(
      '  [DELIBERATE BUG: HA tracker never fails over (its KV shows every elected replica as just heard from)]',
    );
  return lines;
}
