/**
 * The querier's metrics (Cortex names, so existing dashboards work): per-ingester query and
 * failure counts and the duration of each fan-out by method and outcome; for the blocks
 * path, the store-gateways hit and re-fetches per query, the consistency checks, and the
 * bucket index loads.
 */
import type { Counter, Gauge, Histogram } from 'prom-client';
import {
  registeredCounter as counter,
  registeredGauge,
  registeredHistogram as histogram,
} from '../runtime/index.js';
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
      ['ingester'],
    );
    this.ingesterQueryFailures = counter(
      registry,
      'cortex_distributor_ingester_query_failures_total',
      'The total number of failed queries sent to ingesters.',
      ['ingester'],
    );
    this.queryDuration = histogram(
      registry,
      'cortex_distributor_query_duration_seconds',
      'Time spent executing expression and exemplar queries.',
      [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30],
      ['method', 'status_code'],
    );
  }
}

/** What the blocks store queryable and its consistency checker record. */
export class BlocksQuerierMetrics {
  readonly storesHit: Histogram;
  readonly refetches: Histogram;
  readonly consistencyChecks: Counter;
  readonly consistencyChecksFailed: Counter;

  constructor(registry: MetricsRegistry) {
    this.storesHit = histogram(
      registry,
      'cortex_querier_storegateway_instances_hit_per_query',
      'Number of store-gateway instances hit for a single query.',
      [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
    );
    this.refetches = histogram(
      registry,
      'cortex_querier_storegateway_refetches_per_query',
      'Number of re-fetches attempted while querying store-gateway instances due to missing blocks.',
      [0, 1, 2],
    );
    this.consistencyChecks = counter(
      registry,
      'cortex_querier_blocks_consistency_checks_total',
      'Total number of consistency checks run on queried blocks.',
    );
    this.consistencyChecksFailed = counter(
      registry,
      'cortex_querier_blocks_consistency_checks_failed_total',
      'Total number of consistency checks failed on queried blocks.',
    );
  }
}

/** The bucket index loader's metrics (Cortex's bucketindex.Loader). */
export class BucketIndexLoaderMetrics {
  readonly loads: Counter;
  readonly loadFailures: Counter;
  readonly loadDuration: Histogram;
  /**
   * Moved with inc/dec rather than set: several loaders may share a registry (tests, the
   * ruler's querier later) and each must add only its own indexes.
   */
  readonly loaded: Gauge;

  constructor(registry: MetricsRegistry) {
    this.loads = counter(
      registry,
      'cortex_bucket_index_loads_total',
      'Total number of bucket index loading attempts.',
    );
    this.loadFailures = counter(
      registry,
      'cortex_bucket_index_load_failures_total',
      'Total number of bucket index loading failures.',
    );
    this.loadDuration = histogram(
      registry,
      'cortex_bucket_index_load_duration_seconds',
      'Duration of the a single bucket index loading operation in seconds.',
      [0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 1, 10],
    );
    this.loaded = registeredGauge(
      registry,
      'cortex_bucket_index_loaded',
      'Number of bucket indexes currently loaded in-memory.',
    );
  }
}
