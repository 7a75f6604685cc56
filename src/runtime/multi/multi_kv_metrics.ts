import { Counter, Gauge } from 'prom-client';
import type { MetricsRegistry } from '../metrics.js';

/**
 * Cortex's multi-client metrics (`cortex_multikv_*`). Every ring opens its own multi client,
 * so the metrics carry the client's `kv_name` (Cortex wraps each client's registerer with
 * it) and are registered once per registry, shared by all clients.
 */
export class MultiKVMetrics {
  readonly primaryStore: Gauge<'kv_name' | 'store'>;
  readonly mirrorEnabled: Gauge<'kv_name'>;
  readonly mirrorWrites: Counter<'kv_name'>;
  readonly mirrorWriteErrors: Counter<'kv_name'>;

  constructor(registry: MetricsRegistry) {
    this.primaryStore = shared(
      registry,
      'cortex_multikv_primary_store',
      (name) =>
        new Gauge({
          name,
          help: 'Selected primary KV store',
          labelNames: ['kv_name', 'store'],
          registers: [registry],
        }),
    );
    this.mirrorEnabled = shared(
      registry,
      'cortex_multikv_mirror_enabled',
      (name) =>
        new Gauge({
          name,
          help: 'Is mirroring to secondary store enabled',
          labelNames: ['kv_name'],
          registers: [registry],
        }),
    );
    this.mirrorWrites = shared(
      registry,
      'cortex_multikv_mirror_writes_total',
      (name) =>
        new Counter({
          name,
          help: 'Number of mirror-writes to secondary store',
          labelNames: ['kv_name'],
          registers: [registry],
        }),
    );
    this.mirrorWriteErrors = shared(
      registry,
      'cortex_multikv_mirror_write_errors_total',
      (name) =>
        new Counter({
          name,
          help: 'Number of failures to mirror-write to secondary store',
          labelNames: ['kv_name'],
          registers: [registry],
        }),
    );
  }
}

function shared<M>(registry: MetricsRegistry, name: string, create: (name: string) => M): M {
  // Reusing by name is safe because only this class registers these names.
  return (registry.getSingleMetric(name) as M | undefined) ?? create(name);
}
