/**
 * The querier's metrics (Cortex names, so existing dashboards work): per-ingester query and
 * failure counts and the duration of each fan-out by method and outcome.
 */
import { Counter, Histogram } from 'prom-client';
import type { MetricsRegistry } from '../runtime/index.js';

export class QuerierMetrics {
  readonly ingesterQueries: Counter<'ingester'>;
  readonly ingesterQueryFailures: Counter<'ingester'>;
  readonly queryDuration: Histogram<'method' | 'status_code'>;

  constructor(registry: MetricsRegistry) {
    this.ingesterQueries = counter(
      registry,
      'cortex_distributor_ingester_queries_total',
      'The total number of queries sent to ingesters.',
    );
    this.ingesterQueryFailures = counter(
      registry,
      'cortex_distributor_ingester_query_failures_total',
      'The total number of failed queries sent to ingesters.',
    );
    const existing = registry.getSingleMetric('cortex_distributor_query_duration_seconds');
    this.queryDuration =
      existing instanceof Histogram
        ? existing
        : new Histogram({
            name: 'cortex_distributor_query_duration_seconds',
            help: 'Time spent executing expression and exemplar queries.',
            labelNames: ['method', 'status_code'],
            buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30],
            registers: [registry],
          });
  }
}

// Several queriers may share a registry in one process (tests, the single binary's ruler
// later): reuse a metric that is already registered instead of failing on the duplicate.
function counter(registry: MetricsRegistry, name: string, help: string): Counter<'ingester'> {
  const existing = registry.getSingleMetric(name);
  if (existing instanceof Counter) return existing;
  return new Counter({ name, help, labelNames: ['ingester'], registers: [registry] });
}
