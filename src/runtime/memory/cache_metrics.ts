import { Counter, Gauge } from 'prom-client';
import type { MetricsRegistry } from '../metrics.js';

/**
 * The metrics of Thanos' in-memory cache (`thanos_cache_inmemory_*`, labelled by cache
 * `name`), which Cortex exposes for its in-memory index cache. Several caches usually share
 * one registry (index, chunks, metadata), so each metric is registered once per registry and
 * the caches share it through their `name` label.
 */
export class InMemoryCacheMetrics {
  readonly requests: Counter<'name'>;
  readonly hits: Counter<'name'>;
  readonly hitsExpired: Counter<'name'>;
  readonly added: Counter<'name'>;
  readonly evicted: Counter<'name'>;
  readonly overflowed: Counter<'name'>;
  readonly items: Gauge<'name'>;
  readonly itemsSizeBytes: Gauge<'name'>;
  readonly totalSizeBytes: Gauge<'name'>;
  readonly maxSizeBytes: Gauge<'name'>;
  readonly maxItemSizeBytes: Gauge<'name'>;

  constructor(registry: MetricsRegistry) {
    const counter = (name: string, help: string): Counter<'name'> =>
      shared(
        registry,
        name,
        () => new Counter({ name, help, labelNames: ['name'], registers: [registry] }),
      );
    const gauge = (name: string, help: string): Gauge<'name'> =>
      shared(
        registry,
        name,
        () => new Gauge({ name, help, labelNames: ['name'], registers: [registry] }),
      );

    this.requests = counter(
      'thanos_cache_inmemory_requests_total',
      'Total number of requests to the inmemory cache.',
    );
    this.hits = counter(
      'thanos_cache_inmemory_hits_total',
      'Total number of requests to the inmemory cache that were a hit.',
    );
    this.hitsExpired = counter(
      'thanos_cache_inmemory_hits_on_expired_data_total',
      'Total number of requests to the inmemory cache that were a hit but needed to be evicted due to TTL.',
    );
    this.added = counter(
      'thanos_cache_inmemory_items_added_total',
      'Total number of items that were added to the inmemory cache.',
    );
    this.evicted = counter(
      'thanos_cache_inmemory_items_evicted_total',
      'Total number of items that were evicted from the inmemory cache.',
    );
    this.overflowed = counter(
      'thanos_cache_inmemory_items_overflowed_total',
      'Total number of items that could not be added to the inmemory cache due to being too big.',
    );
    this.items = gauge(
      'thanos_cache_inmemory_items',
      'Current number of items in the inmemory cache.',
    );
    this.itemsSizeBytes = gauge(
      'thanos_cache_inmemory_items_size_bytes',
      'Current byte size of items in the inmemory cache.',
    );
    this.totalSizeBytes = gauge(
      'thanos_cache_inmemory_total_size_bytes',
      'Current byte size of items (both value and key) in the inmemory cache.',
    );
    this.maxSizeBytes = gauge(
      'thanos_cache_inmemory_max_size_bytes',
      'Maximum number of bytes to be held in the inmemory cache.',
    );
    this.maxItemSizeBytes = gauge(
      'thanos_cache_inmemory_max_item_size_bytes',
      'Maximum number of bytes for single entry to be held in the inmemory cache.',
    );
  }
}

function shared<M>(registry: MetricsRegistry, name: string, create: () => M): M {
  // Reusing by name is safe because only this class registers these names.
  return (registry.getSingleMetric(name) as M | undefined) ?? create();
}
