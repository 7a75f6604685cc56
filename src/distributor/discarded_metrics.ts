import { Counter } from 'prom-client';
import type { MetricsRegistry } from '../runtime/index.js';

/**
 * Cortex's discard counters (`cortex_discarded_{samples,exemplars,metadata}_total` by reason
 * and user). The distributor and the ingester both count into them, so when a process runs
 * both, the second asks the registry for the counter the first registered.
 */
export interface DiscardedMetrics {
  samples: Counter<'reason' | 'user'>;
  exemplars: Counter<'reason' | 'user'>;
  metadata: Counter<'reason' | 'user'>;
}

export function discardedMetrics(registry: MetricsRegistry): DiscardedMetrics {
  const counter = (what: string): Counter<'reason' | 'user'> => {
    const name = `cortex_discarded_${what}_total`;
    const existing = registry.getSingleMetric(name);
    if (existing instanceof Counter) return existing;
    return new Counter({
      name,
      help: `The total number of ${what} that were discarded.`,
      labelNames: ['reason', 'user'],
      registers: [registry],
    });
  };
  return {
    samples: counter('samples'),
    exemplars: counter('exemplars'),
    metadata: counter('metadata'),
  };
}
