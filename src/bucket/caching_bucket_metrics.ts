import { Counter } from 'prom-client';
import type { MetricsRegistry } from '../runtime/index.js';

/** Operations as the caching bucket's `operation` label names them (Thanos objstore's). */
export type CachedOperation = 'iter' | 'get' | 'get_range' | 'exists' | 'attributes';

/**
 * Thanos's caching bucket metrics (`thanos_store_bucket_cache_*`), labelled by the matching
 * configuration (`config`) and operation. Registered once per registry and shared, so several
 * caching buckets (store-gateway, querier, compactor in one process) do not clash.
 */
export class CachingBucketMetrics {
  readonly requestedGetRangeBytes: Counter<'config'>;
  readonly fetchedGetRangeBytes: Counter<'origin' | 'config'>;
  readonly refetchedGetRangeBytes: Counter<'origin' | 'config'>;
  readonly operationRequests: Counter<'operation' | 'config'>;
  readonly operationHits: Counter<'operation' | 'config'>;

  constructor(registry: MetricsRegistry) {
    const counter = <L extends string>(name: string, help: string, labelNames: L[]): Counter<L> =>
      (registry.getSingleMetric(name) as Counter<L> | undefined) ??
      new Counter({ name, help, labelNames, registers: [registry] });
    this.requestedGetRangeBytes = counter(
      'thanos_store_bucket_cache_getrange_requested_bytes_total',
      'Total number of bytes requested via GetRange.',
      ['config'],
    );
    this.fetchedGetRangeBytes = counter(
      'thanos_store_bucket_cache_getrange_fetched_bytes_total',
      'Total number of bytes fetched because of GetRange operation. Data from bucket is then stored to cache.',
      ['origin', 'config'],
    );
    this.refetchedGetRangeBytes = counter(
      'thanos_store_bucket_cache_getrange_refetched_bytes_total',
      'Total number of bytes re-fetched from storage because of GetRange operation, despite being in cache already.',
      ['origin', 'config'],
    );
    this.operationRequests = counter(
      'thanos_store_bucket_cache_operation_requests_total',
      'Number of requested operations matching given config.',
      ['operation', 'config'],
    );
    this.operationHits = counter(
      'thanos_store_bucket_cache_operation_hits_total',
      'Number of operations served from cache for given config.',
      ['operation', 'config'],
    );
  }

  /** Publishes the zero series of a configuration, as Thanos does when it is set up. */
  initOperation(operation: CachedOperation, config: string): void {
    this.operationRequests.inc({ operation, config }, 0);
    this.operationHits.inc({ operation, config }, 0);
    if (operation === 'get_range') {
      this.requestedGetRangeBytes.inc({ config }, 0);
      this.fetchedGetRangeBytes.inc({ origin: 'cache', config }, 0);
      this.fetchedGetRangeBytes.inc({ origin: 'bucket', config }, 0);
      this.refetchedGetRangeBytes.inc({ origin: 'cache', config }, 0);
    }
  }
}
