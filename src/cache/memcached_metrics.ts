import type { Counter, Gauge, Histogram } from 'prom-client';
import {
  registeredCounter,
  registeredGauge,
  registeredHistogram,
  type MetricsRegistry,
} from '../runtime/metrics.js';

export type Operation = 'getmulti' | 'set' | 'delete';

/**
 * The memcached client's metrics under the names Thanos (`pkg/cacheutil/memcached_client.go`,
 * `pkg/cache/memcached.go`) and Cortex (`pkg/chunk/cache/memcached_client.go`, its DNS
 * provider) use. Every series carries the cache `name`, so the index, chunks, metadata and
 * results caches of one process share each metric in one registry without clashing.
 */
export class MemcachedMetrics {
  readonly operations: Counter<'name' | 'operation'>;
  readonly failures: Counter<'name' | 'operation' | 'reason'>;
  readonly skipped: Counter<'name' | 'operation' | 'reason'>;
  readonly duration: Histogram<'name' | 'operation'>;
  readonly dataSize: Histogram<'name' | 'operation'>;
  readonly servers: Gauge<'name'>;
  readonly requests: Counter<'name'>;
  readonly hits: Counter<'name'>;
  readonly dnsLookups: Counter<'name'>;
  readonly dnsFailures: Counter<'name'>;

  constructor(registry: MetricsRegistry, name: string) {
    const op = ['name', 'operation'] as const;
    const opReason = ['name', 'operation', 'reason'] as const;
    this.operations = registeredCounter(
      registry,
      'thanos_memcached_operations_total',
      'Total number of operations against memcached.',
      op,
    );
    this.failures = registeredCounter(
      registry,
      'thanos_memcached_operation_failures_total',
      'Total number of operations against memcached that failed.',
      opReason,
    );
    this.skipped = registeredCounter(
      registry,
      'thanos_memcached_operation_skipped_total',
      'Total number of operations against memcached that have been skipped.',
      opReason,
    );
    this.duration = registeredHistogram(
      registry,
      'thanos_memcached_operation_duration_seconds',
      'Duration of operations against memcached.',
      [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.2, 0.5, 1, 3, 6, 10],
      op,
    );
    this.dataSize = registeredHistogram(
      registry,
      'thanos_memcached_operation_data_size_bytes',
      'Tracks the size of the data stored in and fetched from memcached.',
      [32, 256, 512, 1024, 32 << 10, 256 << 10, 512 << 10, 1 << 20, 32 << 20, 256 << 20, 512 << 20],
      op,
    );
    this.servers = registeredGauge(
      registry,
      'cortex_memcache_client_servers',
      'The number of memcache servers discovered.',
      ['name'],
    );
    this.requests = registeredCounter(
      registry,
      'thanos_cache_memcached_requests_total',
      'Total number of items requests to memcached.',
      ['name'],
    );
    this.hits = registeredCounter(
      registry,
      'thanos_cache_memcached_hits_total',
      'Total number of items requests to the cache that were a hit.',
      ['name'],
    );
    this.dnsLookups = registeredCounter(
      registry,
      'cortex_dns_lookups_total',
      'The number of DNS lookups resolutions attempts',
      ['name'],
    );
    this.dnsFailures = registeredCounter(
      registry,
      'cortex_dns_failures_total',
      'The number of DNS lookup failures',
      ['name'],
    );
    // Zero series up front, as Thanos does, so dashboards see the cache before its first use.
    for (const operation of ['getmulti', 'set', 'delete'] as const) {
      this.operations.inc({ name, operation }, 0);
      for (const reason of ['timeout', 'malformed-key', 'server-error', 'network-error', 'other']) {
        this.failures.inc({ name, operation, reason }, 0);
      }
    }
    this.skipped.inc({ name, operation: 'set', reason: 'max-item-size' }, 0);
    this.skipped.inc({ name, operation: 'set', reason: 'async-buffer-full' }, 0);
    this.servers.set({ name }, 0);
    this.requests.inc({ name }, 0);
    this.hits.inc({ name }, 0);
  }
}
