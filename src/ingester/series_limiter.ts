// Per-tenant series limits on one ingester (Cortex ingester/limiter.go). The limits are set
// cluster-wide (`max_global_series_per_user`, `max_global_series_per_metric`); series are
// sharded by all their labels, so each ingester holds about global × RF / ingesters of a
// tenant's series and enforces that share locally.

/** Where the limiter learns the cluster's shape; asked on every check, so ring changes apply. */
export interface RingShape {
  /** Replication factor of the ingester ring. */
  replicationFactor(): number;
  /** Healthy ingesters in the ring (0 while unknown: the global limit is then ignored). */
  healthyInstances(): number;
}

/** The tenant's global limits; `Overrides` satisfies it. */
export interface SeriesLimits {
  maxGlobalSeriesPerUser(tenant: string): number;
  maxGlobalSeriesPerMetric(tenant: string): number;
}

/**
 * Cortex's convertGlobalToLocalLimit: 0 stays 0 (unlimited); with no healthy ingester known
 * the limit is ignored (0) rather than enforced against a wrong count.
 */
export function convertGlobalToLocalLimit(
  globalLimit: number,
  replicationFactor: number,
  healthyInstances: number,
): number {
  if (globalLimit <= 0 || healthyInstances <= 0) return 0;
  return Math.trunc((globalLimit / healthyInstances) * replicationFactor);
}

export class SeriesLimiter {
  constructor(
    private readonly limits: SeriesLimits,
    private readonly ring: RingShape,
  ) {}

  /** The per-user limit this ingester enforces; 0 = unlimited. */
  localSeriesPerUser(tenant: string): number {
    return this.local(this.limits.maxGlobalSeriesPerUser(tenant));
  }

  /** The per-metric limit this ingester enforces; 0 = unlimited. */
  localSeriesPerMetric(tenant: string): number {
    return this.local(this.limits.maxGlobalSeriesPerMetric(tenant));
  }

  globalSeriesPerUser(tenant: string): number {
    return this.limits.maxGlobalSeriesPerUser(tenant);
  }

  globalSeriesPerMetric(tenant: string): number {
    return this.limits.maxGlobalSeriesPerMetric(tenant);
  }

  private local(global: number): number {
    return convertGlobalToLocalLimit(
      global,
      this.ring.replicationFactor(),
      this.ring.healthyInstances(),
    );
  }
}
