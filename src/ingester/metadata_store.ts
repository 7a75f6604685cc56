// Metric metadata on one ingester (Cortex ingester's per-user metrics metadata): what senders
// pushed as `WriteRequest.metadata` (TYPE, HELP, UNIT per metric family), kept in memory per
// tenant, refreshed on every push that repeats it and dropped once unseen for the retain
// period. It backs `/api/v1/metadata` through the `ingester.MetricsMetadata` RPC. Limits
// refuse entries beyond the tenant's share (counted in cortex_discarded_metadata_total, the
// push itself still succeeds, as in Cortex).
import { Counter, Gauge } from 'prom-client';
import { discardedMetrics, type MetricMetadata } from '../distributor/index.js';
import type { MetricsRegistry } from '../runtime/index.js';
import { convertGlobalToLocalLimit, type RingShape } from './series_limiter.js';

/** The tenant's metadata limits; `Overrides` satisfies it. 0 means unlimited. */
export interface MetadataLimits {
  maxMetadataPerUser(tenant: string): number;
  maxMetadataPerMetric(tenant: string): number;
  maxGlobalMetadataPerUser(tenant: string): number;
  maxGlobalMetadataPerMetric(tenant: string): number;
}

/** Why an entry was refused: the `reason` label of cortex_discarded_metadata_total. */
export type MetadataRefusalReason = 'per_user_metadata_limit' | 'per_metric_metadata_limit';

export interface MetadataRefusal {
  readonly reason: MetadataRefusalReason;
  readonly message: string;
}

interface Seen {
  readonly metadata: MetricMetadata;
  lastSeenMs: number;
}

/** Per metric family: each distinct (type, help, unit) with when it was last pushed. */
type Family = Map<string, Seen>;

const keyOf = (m: MetricMetadata): string => `${m.type}\u0000${m.help}\u0000${m.unit}`;

/** The smaller non-zero of two limits (0 = unlimited), as Cortex's minNonZero. */
function minNonZero(a: number, b: number): number {
  if (a === 0) return b;
  if (b === 0) return a;
  return Math.min(a, b);
}

interface StoreMetrics {
  readonly created: Counter<'user'>;
  readonly removed: Counter<'user'>;
  readonly discarded: Counter<'reason' | 'user'>;
}

export class MetadataStore {
  private readonly tenants = new Map<string, Map<string, Family>>();
  private entries = 0;
  private readonly m: StoreMetrics;

  constructor(
    private readonly limits: MetadataLimits,
    private readonly ring: RingShape,
    registry: MetricsRegistry,
  ) {
    const userCounter = (name: string, help: string): Counter<'user'> => {
      const existing = registry.getSingleMetric(name);
      if (existing instanceof Counter) return existing;
      return new Counter({ name, help, labelNames: ['user'], registers: [registry] });
    };
    this.m = {
      created: userCounter(
        'cortex_ingester_memory_metadata_created_total',
        'The total number of metadata that were created per user',
      ),
      removed: userCounter(
        'cortex_ingester_memory_metadata_removed_total',
        'The total number of metadata that were removed per user.',
      ),
      discarded: discardedMetrics(registry).metadata,
    };
    // One ingester per registry in practice; a second store would not be counted.
    if (registry.getSingleMetric('cortex_ingester_memory_metadata') === undefined) {
      const entries = (): number => this.entries;
      new Gauge({
        name: 'cortex_ingester_memory_metadata',
        help: 'The current number of metadata in memory.',
        registers: [registry],
        collect() {
          this.set(entries());
        },
      });
    }
  }

  /** Metadata entries held, over all tenants. */
  get size(): number {
    return this.entries;
  }

  /** The per-user limit (metric families with metadata) this ingester enforces; 0 = none. */
  localMetadataPerUser(tenant: string): number {
    return minNonZero(
      this.limits.maxMetadataPerUser(tenant),
      this.local(this.limits.maxGlobalMetadataPerUser(tenant)),
    );
  }

  /** The per-metric limit (distinct metadata of one family) this ingester enforces; 0 = none. */
  localMetadataPerMetric(tenant: string): number {
    return minNonZero(
      this.limits.maxMetadataPerMetric(tenant),
      this.local(this.limits.maxGlobalMetadataPerMetric(tenant)),
    );
  }

  /**
   * Records `list` as seen at `nowMs`; returns the refusals (each also counted). Entries
   * already known are refreshed whatever the limits.
   */
  add(tenant: string, list: readonly MetricMetadata[], nowMs: number): MetadataRefusal[] {
    const refusals: MetadataRefusal[] = [];
    if (list.length === 0) return refusals;
    let families = this.tenants.get(tenant);
    if (families === undefined) {
      families = new Map();
      this.tenants.set(tenant, families);
    }
    const perUser = this.localMetadataPerUser(tenant);
    const perMetric = this.localMetadataPerMetric(tenant);
    for (const md of list) {
      const key = keyOf(md);
      let family = families.get(md.metricFamilyName);
      const known = family?.get(key);
      if (known !== undefined) {
        known.lastSeenMs = Math.max(known.lastSeenMs, nowMs);
        continue;
      }
      if (family === undefined && perUser > 0 && families.size >= perUser) {
        refusals.push(
          this.refuse(
            tenant,
            'per_user_metadata_limit',
            `per-user metric metadata limit of ${perUser} exceeded, please contact administrator to raise it (local limit: ${this.limits.maxMetadataPerUser(tenant)} global limit: ${this.limits.maxGlobalMetadataPerUser(tenant)} actual local limit: ${perUser})`,
          ),
        );
        continue;
      }
      if (family !== undefined && perMetric > 0 && family.size >= perMetric) {
        refusals.push(
          this.refuse(
            tenant,
            'per_metric_metadata_limit',
            `per-metric metadata limit of ${perMetric} exceeded, please contact administrator to raise it (local limit: ${this.limits.maxMetadataPerMetric(tenant)} global limit: ${this.limits.maxGlobalMetadataPerMetric(tenant)} actual local limit: ${perMetric}) for metric ${md.metricFamilyName}`,
          ),
        );
        continue;
      }
      if (family === undefined) {
        family = new Map();
        families.set(md.metricFamilyName, family);
      }
      family.set(key, { metadata: md, lastSeenMs: nowMs });
      this.entries++;
      this.m.created.inc({ user: tenant });
    }
    if (families.size === 0) this.tenants.delete(tenant);
    return refusals;
  }

  /** Drops every entry last seen before `deadlineMs`; returns how many went. */
  purge(deadlineMs: number): number {
    let removed = 0;
    for (const [tenant, families] of this.tenants) {
      let fromTenant = 0;
      for (const [name, family] of families) {
        for (const [key, seen] of family) {
          if (seen.lastSeenMs >= deadlineMs) continue;
          family.delete(key);
          fromTenant++;
        }
        if (family.size === 0) families.delete(name);
      }
      if (families.size === 0) this.tenants.delete(tenant);
      if (fromTenant > 0) {
        this.m.removed.inc({ user: tenant }, fromTenant);
        this.entries -= fromTenant;
        removed += fromTenant;
      }
    }
    return removed;
  }

  /** Drops every entry of the tenant (its database was closed and deleted); returns how many. */
  forgetTenant(tenant: string): number {
    const families = this.tenants.get(tenant);
    if (families === undefined) return 0;
    let n = 0;
    for (const family of families.values()) n += family.size;
    this.tenants.delete(tenant);
    this.entries -= n;
    if (n > 0) this.m.removed.inc({ user: tenant }, n);
    return n;
  }

  /** Every entry of the tenant, by family name, then in the order first seen. */
  metadata(tenant: string): MetricMetadata[] {
    const families = this.tenants.get(tenant);
    if (families === undefined) return [];
    const out: MetricMetadata[] = [];
    for (const name of [...families.keys()].sort())
      for (const seen of (families.get(name) as Family).values()) out.push(seen.metadata);
    return out;
  }

  private refuse(tenant: string, reason: MetadataRefusalReason, message: string): MetadataRefusal {
    this.m.discarded.inc({ reason, user: tenant });
    return { reason, message };
  }

  private local(global: number): number {
    return convertGlobalToLocalLimit(
      global,
      this.ring.replicationFactor(),
      this.ring.healthyInstances(),
    );
  }
}
