// The ingester's own metrics (Cortex's names): samples ingested and refused, queries, and
// the in-memory users and series gauges read from the tenants' databases at scrape time.
import { Counter, Gauge, Histogram } from 'prom-client';
import { discardedMetrics } from '../distributor/index.js';
import type { MetricsRegistry } from '../runtime/index.js';
import type { TenantDBs } from './tenant_dbs.js';

export interface IngesterMetrics {
  ingested: Counter;
  failures: Counter;
  discarded: Counter<'reason' | 'user'>;
  queries: Counter;
  queriedSeries: Histogram;
  queriedSamples: Histogram;
}

/** Registers (or, on a registry that has them, reuses) the ingester's metrics. */
export function registerMetrics(registry: MetricsRegistry, dbs: TenantDBs): IngesterMetrics {
  const existing = <T>(name: string, type: abstract new (...args: never[]) => T): T | undefined => {
    const m = registry.getSingleMetric(name);
    return m instanceof type ? m : undefined;
  };
  const counter = (name: string, help: string): Counter =>
    existing(name, Counter) ?? new Counter({ name, help, registers: [registry] });
  const histogram = (name: string, help: string, buckets: number[]): Histogram =>
    existing(name, Histogram) ?? new Histogram({ name, help, buckets, registers: [registry] });
  if (existing('cortex_ingester_memory_users', Gauge) === undefined)
    new Gauge({
      name: 'cortex_ingester_memory_users',
      help: 'The current number of users in memory.',
      registers: [registry],
      collect() {
        this.set(dbs.tenantIds().length);
      },
    });
  if (existing('cortex_ingester_memory_series', Gauge) === undefined)
    new Gauge({
      name: 'cortex_ingester_memory_series',
      help: 'The current number of series in memory.',
      registers: [registry],
      collect() {
        let n = 0;
        for (const t of dbs.allUserStats()) n += t.stats.numSeries;
        this.set(n);
      },
    });
  return {
    ingested: counter(
      'cortex_ingester_ingested_samples_total',
      'The total number of samples ingested.',
    ),
    failures: counter(
      'cortex_ingester_ingested_samples_failures_total',
      'The total number of samples that errored on ingestion.',
    ),
    discarded: discardedMetrics(registry).samples,
    queries: counter(
      'cortex_ingester_queries_total',
      'The total number of queries the ingester has handled.',
    ),
    queriedSeries: histogram(
      'cortex_ingester_queried_series',
      'The total number of series returned from queries.',
      [10, 80, 640, 5120, 40960, 327680],
    ),
    queriedSamples: histogram(
      'cortex_ingester_queried_samples',
      'The total number of samples returned from queries.',
      [10, 80, 640, 5120, 40960, 327680, 2621440, 20971520],
    ),
  };
}
