import { Counter, Gauge } from 'prom-client';
import type { Clock, KV, Logger, MetricsRegistry, Timer } from '../runtime/index.js';
import type { DiscardedMetrics } from './discarded_metrics.js';
import { ReplicasNotMatchError, TooManyHAClustersError } from './errors.js';
import { decodeReplicaDesc, encodeReplicaDesc, type ReplicaDesc } from './ha_replica_desc.js';
import type { DistributorLimits } from './limits.js';
import type { WriteRequestData } from './write_request.js';

export interface HATrackerConfig {
  /** `-distributor.ha-tracker.update-timeout` (default 15s). */
  updateTimeoutMs: number;
  /**
   * The jitter added to the update timeout, already drawn by the caller from
   * [-update_timeout_jitter_max, +update_timeout_jitter_max) (Cortex draws it once per process).
   */
  updateTimeoutJitterMs?: number;
  /** `-distributor.ha-tracker.failover-timeout` (default 30s). */
  failoverTimeoutMs: number;
}

export const DEFAULT_HA_TRACKER_CONFIG: Readonly<HATrackerConfig> = Object.freeze({
  updateTimeoutMs: 15_000,
  failoverTimeoutMs: 30_000,
});

/** Cortex's cleanup: replicas idle this long are marked deleted, and deleted after as long again. */
export const HA_DELETION_TIMEOUT_MS = 30 * 60 * 1000;

export interface HATrackerDeps {
  /** A KV client for the HA tracker's key space (keys are `<tenant>/<cluster>`). */
  kv: KV;
  clock: Clock;
  registry: MetricsRegistry;
  logger: Logger;
  discarded: DiscardedMetrics;
}

/** One elected replica, for the status page. */
export interface ElectedReplica {
  readonly tenant: string;
  readonly cluster: string;
  readonly replica: string;
  readonly receivedAt: number;
}

/**
 * Cortex's HA tracker: of the Prometheus replicas that scrape the same targets (same
 * `ha_cluster_label` value, different `ha_replica_label` values), only the elected one's
 * samples are kept. The election lives in the KV store under `<tenant>/<cluster>` and is
 * renewed by CAS at most every `update_timeout`; another replica takes over only when the
 * elected one has not been heard from for `failover_timeout`. Samples of a non-elected replica
 * are answered with `ReplicasNotMatchError` (202 Accepted: dropped, not retried).
 */
export class HATracker {
  private readonly elected = new Map<string, ReplicaDesc>();
  private readonly clusters = new Map<string, Set<string>>();
  private readonly updateTimeoutMs: number;
  private readonly electedChanges: Counter<'user' | 'cluster'>;
  private readonly electedTimestamp: Gauge<'user' | 'cluster'>;
  private readonly casCalls: Counter<'user' | 'cluster'>;
  private readonly dedupedSamples: Counter<'user' | 'cluster'>;
  private readonly nonHASamples: Counter<'user'>;

  constructor(
    private readonly config: HATrackerConfig,
    private readonly deps: HATrackerDeps,
  ) {
    const jitter = config.updateTimeoutJitterMs ?? 0;
    this.updateTimeoutMs = config.updateTimeoutMs + jitter;
    if (config.failoverTimeoutMs < config.updateTimeoutMs + Math.abs(jitter) + 1000) {
      throw new RangeError(
        `HA Tracker failover timeout (${config.failoverTimeoutMs}ms) must be at least 1s greater than update timeout - max jitter (${config.updateTimeoutMs + Math.abs(jitter) + 1000}ms)`,
      );
    }
    const registers = [deps.registry];
    this.electedChanges = new Counter({
      name: 'cortex_ha_tracker_elected_replica_changes_total',
      help: 'The total number of times the elected replica has changed for a user ID/cluster.',
      labelNames: ['user', 'cluster'],
      registers,
    });
    this.electedTimestamp = new Gauge({
      name: 'cortex_ha_tracker_elected_replica_timestamp_seconds',
      help: 'The timestamp stored for the currently elected replica, from the KVStore.',
      labelNames: ['user', 'cluster'],
      registers,
    });
    this.casCalls = new Counter({
      name: 'cortex_ha_tracker_kv_store_cas_total',
      help: 'The total number of CAS calls to the KV store for a user ID/cluster.',
      labelNames: ['user', 'cluster'],
      registers,
    });
    this.dedupedSamples = new Counter({
      name: 'cortex_distributor_deduped_samples_total',
      help: 'The total number of deduplicated samples.',
      labelNames: ['user', 'cluster'],
      registers,
    });
    this.nonHASamples = new Counter({
      name: 'cortex_distributor_non_ha_samples_received_total',
      help: "The total number of received samples for a user that has HA tracking turned on, but the sample didn't contain both HA labels.",
      labelNames: ['user'],
      registers,
    });
  }

  /**
   * Watches the KV store so that elections made by other distributors reach this one, and
   * runs the cleanup of idle clusters every 30 minutes, until `signal` aborts.
   */
  async run(signal: AbortSignal): Promise<void> {
    const timer: Timer = this.deps.clock.every(HA_DELETION_TIMEOUT_MS, () =>
      this.cleanupOldReplicas(this.deps.clock.now() - HA_DELETION_TIMEOUT_MS, signal),
    );
    try {
      await this.deps.kv.watchPrefix('', signal, (key, value) => {
        this.applyKVValue(key, value);
        return !signal.aborted;
      });
    } finally {
      timer.cancel();
    }
  }

  /**
   * Decides on one push (Cortex looks at the first series only): resolves when the samples
   * are to be kept, returning whether the replica label must be removed from every series;
   * throws ReplicasNotMatchError (dedupe, 202) or TooManyHAClustersError (400).
   */
  async checkRequest(
    tenant: string,
    limits: DistributorLimits,
    req: WriteRequestData,
  ): Promise<{ removeReplicaLabel: boolean }> {
    const first = req.series[0];
    if (!limits.acceptHASamples || first === undefined) return { removeReplicaLabel: false };
    const samples = req.timestamps.length;
    const { cluster, replica } = findHALabels(
      first.labels,
      limits.haClusterLabel,
      limits.haReplicaLabel,
    );
    if (cluster === '' || replica === '') {
      this.nonHASamples.inc({ user: tenant }, samples);
      return { removeReplicaLabel: false };
    }
    // A replica label too long to be valid: accept, validation rejects the series later.
    if (new TextEncoder().encode(replica).length > limits.maxLabelValueLength) {
      return { removeReplicaLabel: false };
    }
    try {
      await this.checkReplica(tenant, cluster, replica, limits.haMaxClusters);
    } catch (err) {
      if (err instanceof ReplicasNotMatchError) {
        this.dedupedSamples.inc({ user: tenant, cluster }, samples);
      } else if (err instanceof TooManyHAClustersError) {
        this.deps.discarded.samples.inc({ reason: 'too_many_ha_clusters', user: tenant }, samples);
      }
      throw err;
    }
    return { removeReplicaLabel: true };
  }

  /** Cortex's checkReplica: from the local cache when fresh, otherwise by CAS in the KV. */
  async checkReplica(
    tenant: string,
    cluster: string,
    replica: string,
    maxClusters = 0,
  ): Promise<void> {
    const key = `${tenant}/${cluster}`;
    const now = this.deps.clock.now();
    const entry = this.elected.get(key);
    if (entry !== undefined && now - entry.receivedAt < this.updateTimeoutMs) {
      if (entry.replica !== replica) throw new ReplicasNotMatchError(replica, entry.replica);
      return;
    }
    if (entry === undefined && maxClusters > 0) {
      const known = this.clusters.get(tenant)?.size ?? 0;
      if (known + 1 > maxClusters) throw new TooManyHAClustersError(maxClusters);
    }
    let rejectedBy: string | undefined;
    let written: ReplicaDesc | undefined;
    this.casCalls.inc({ user: tenant, cluster });
    await this.deps.kv.cas(key, (current) => {
      rejectedBy = undefined;
      written = undefined;
      const desc = current === undefined ? undefined : safeDecode(current);
      if (desc !== undefined && desc.deletedAt === 0) {
        if (desc.replica === replica && now - desc.receivedAt < this.updateTimeoutMs)
          return undefined;
        if (desc.replica !== replica && now - desc.receivedAt < this.config.failoverTimeoutMs) {
          rejectedBy = desc.replica;
          this.remember(key, desc);
          return undefined;
        }
      }
      written = { replica, receivedAt: now, deletedAt: 0 };
      return encodeReplicaDesc(written);
    });
    if (rejectedBy !== undefined) throw new ReplicasNotMatchError(replica, rejectedBy);
    if (written !== undefined) this.remember(key, written);
  }

  /** The elected replicas this distributor knows, sorted by tenant then cluster. */
  electedReplicas(): ElectedReplica[] {
    const out: ElectedReplica[] = [];
    for (const [key, desc] of this.elected) {
      const slash = key.indexOf('/');
      out.push({
        tenant: key.slice(0, slash),
        cluster: key.slice(slash + 1),
        replica: desc.replica,
        receivedAt: desc.receivedAt,
      });
    }
    return out.sort((a, b) =>
      a.tenant !== b.tenant
        ? a.tenant < b.tenant
          ? -1
          : 1
        : a.cluster < b.cluster
          ? -1
          : a.cluster > b.cluster
            ? 1
            : 0,
    );
  }

  get updateTimeout(): number {
    return this.config.updateTimeoutMs;
  }

  get failoverTimeout(): number {
    return this.config.failoverTimeoutMs;
  }

  /**
   * Cortex's cleanup: entries marked deleted before `deadlineMs` are deleted; entries last
   * renewed before it are marked deleted (watchers drop them on the mark).
   */
  async cleanupOldReplicas(deadlineMs: number, signal?: AbortSignal): Promise<void> {
    const kv = this.deps.kv;
    const keys = await kv.list('', signal);
    for (const key of keys) {
      if (signal?.aborted) return;
      const value = await kv.get(key, signal);
      const desc = value === undefined ? undefined : safeDecode(value);
      if (desc === undefined) continue;
      if (desc.deletedAt > 0) {
        if (desc.deletedAt <= deadlineMs) {
          await kv.delete(key, signal);
          this.forget(key);
        }
        continue;
      }
      if (desc.receivedAt < deadlineMs) {
        const now = this.deps.clock.now();
        await kv.cas(
          key,
          (current) => {
            const d = current === undefined ? undefined : safeDecode(current);
            if (d === undefined || d.deletedAt > 0 || !(d.receivedAt < deadlineMs))
              return undefined;
            return encodeReplicaDesc({ ...d, deletedAt: now });
          },
          signal,
        );
        this.forget(key);
      }
    }
  }

  private applyKVValue(key: string, value: Uint8Array | undefined): void {
    const slash = key.indexOf('/');
    if (slash < 0) return;
    const desc = value === undefined ? undefined : safeDecode(value);
    if (desc === undefined || desc.deletedAt > 0) {
      if (value !== undefined && desc === undefined) {
        this.deps.logger.warn('HA tracker: undecodable replica value ignored', { key });
      }
      this.forget(key);
      return;
    }
    this.remember(key, desc);
  }

  private remember(key: string, desc: ReplicaDesc): void {
    const slash = key.indexOf('/');
    const tenant = key.slice(0, slash);
    const cluster = key.slice(slash + 1);
    const previous = this.elected.get(key);
    if (previous === undefined || previous.replica !== desc.replica) {
      this.electedChanges.inc({ user: tenant, cluster });
    }
    this.elected.set(key, desc);
    let set = this.clusters.get(tenant);
    if (set === undefined) this.clusters.set(tenant, (set = new Set()));
    set.add(cluster);
    this.electedTimestamp.set({ user: tenant, cluster }, Math.floor(desc.receivedAt / 1000));
  }

  private forget(key: string): void {
    const slash = key.indexOf('/');
    const tenant = key.slice(0, slash);
    const cluster = key.slice(slash + 1);
    this.elected.delete(key);
    this.clusters.get(tenant)?.delete(cluster);
    this.electedTimestamp.remove({ user: tenant, cluster });
  }
}

function safeDecode(value: Uint8Array): ReplicaDesc | undefined {
  try {
    return decodeReplicaDesc(value);
  } catch {
    return undefined;
  }
}

/** The values of the cluster and replica labels ('' when absent), last occurrence winning. */
export function findHALabels(
  labels: readonly string[],
  clusterLabel: string,
  replicaLabel: string,
): { cluster: string; replica: string } {
  let cluster = '';
  let replica = '';
  for (let i = 0; i + 1 < labels.length; i += 2) {
    if (labels[i] === replicaLabel) replica = labels[i + 1] as string;
    if (labels[i] === clusterLabel) cluster = labels[i + 1] as string;
  }
  return { cluster, replica };
}

/** Removes the first `name` label from every series (the replica label of accepted HA pushes). */
export function removeLabelFromAllSeries(req: WriteRequestData, name: string): void {
  for (const s of req.series) {
    for (let i = 0; i + 1 < s.labels.length; i += 2) {
      if (s.labels[i] === name) {
        // A copy, not splice: decoded label arrays may be shared with other requests.
        s.labels = [...s.labels.slice(0, i), ...s.labels.slice(i + 2)];
        break;
      }
    }
  }
}
