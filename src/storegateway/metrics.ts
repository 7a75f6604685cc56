/**
 * The store-gateway's metrics, under Cortex's names so existing dashboards and alerts work:
 * block loads and drops, tenants discovered and synced, the meta fetcher's per-state block
 * counts, bucket index loads, the query gate, what queries read, and the syncs by reason.
 * Gauges that several instances could share in one registry move with inc/dec, never set.
 */
import type { Counter, Gauge, Histogram } from 'prom-client';
import { exponentialBuckets } from 'prom-client';
import {
  registeredCounter as counter,
  registeredGauge as gauge,
  registeredHistogram as histogram,
} from '../runtime/index.js';
import type { MetricsRegistry } from '../runtime/index.js';

/** Why a fetched block was left out (Thanos `blocks_meta_synced` states, Cortex's additions). */
export type MetaSyncState =
  | 'loaded'
  | 'failed'
  | 'no-meta-json'
  | 'corrupted-meta-json'
  | 'too-fresh'
  | 'marked-for-deletion'
  | 'shard-excluded'
  | 'no-bucket-index'
  | 'corrupted-bucket-index';

export const META_SYNC_STATES: readonly MetaSyncState[] = [
  'loaded',
  'failed',
  'no-meta-json',
  'corrupted-meta-json',
  'too-fresh',
  'marked-for-deletion',
  'shard-excluded',
  'no-bucket-index',
  'corrupted-bucket-index',
];

export type SyncReason = 'initial' | 'periodic' | 'ring-change';

export class StoreGatewayMetrics {
  readonly blocksLoaded: Gauge;
  readonly blockLoads: Counter;
  readonly blockLoadFailures: Counter;
  readonly blockDrops: Counter;
  readonly blockDropFailures: Counter;
  readonly blockQueryFailures: Counter;
  readonly tenantsDiscovered: Gauge;
  readonly tenantsSynced: Gauge;
  readonly syncSeconds: Histogram;
  readonly lastSuccessfulSync: Gauge;
  readonly bucketSyncs: Counter<'reason'>;
  readonly metaSyncs: Counter;
  readonly metaSyncFailures: Counter;
  readonly metaSynced: Gauge<'state'>;
  readonly bucketIndexLoads: Counter;
  readonly bucketIndexLoadFailures: Counter;
  readonly gateInFlight: Gauge;
  readonly gateWaiting: Gauge;
  readonly gateMax: Gauge;
  readonly gateSeconds: Histogram;
  readonly dataFetched: Histogram<'data_type'>;
  readonly dataSizeFetched: Histogram<'data_type'>;
  readonly blocksQueried: Histogram;
  readonly resultSeries: Histogram;
  readonly queriesDropped: Counter;
  readonly lazyLoads: Counter;
  readonly lazyLoadFailures: Counter;
  readonly lazyUnloads: Counter;
  readonly lazyUnloadFailures: Counter;

  constructor(registry: MetricsRegistry) {
    const c = (name: string, help: string): Counter => counter(registry, name, help, []);
    const g = (name: string, help: string): Gauge => gauge(registry, name, help, []);
    this.blocksLoaded = g(
      'cortex_bucket_store_blocks_loaded',
      'Number of currently loaded blocks.',
    );
    this.blockLoads = c(
      'cortex_bucket_store_block_loads_total',
      'Total number of remote block loading attempts.',
    );
    this.blockLoadFailures = c(
      'cortex_bucket_store_block_load_failures_total',
      'Total number of failed remote block loading attempts.',
    );
    this.blockDrops = c(
      'cortex_bucket_store_block_drops_total',
      'Total number of local blocks that were dropped.',
    );
    this.blockDropFailures = c(
      'cortex_bucket_store_block_drop_failures_total',
      'Total number of local blocks that failed to be dropped.',
    );
    this.blockQueryFailures = c(
      'strata_bucket_store_block_query_failures_total',
      'Block queries that failed (bucket read errors, corrupt data); the block is left out of the answer so the querier retries it elsewhere.',
    );
    this.tenantsDiscovered = g(
      'cortex_bucket_stores_tenants_discovered',
      'Number of tenants discovered in the bucket.',
    );
    this.tenantsSynced = g('cortex_bucket_stores_tenants_synced', 'Number of tenants synced.');
    this.syncSeconds = histogram(
      registry,
      'cortex_bucket_stores_blocks_sync_seconds',
      'The total time it takes to perform a sync stores',
      [0.1, 1, 10, 30, 60, 120, 300, 600, 900],
    );
    this.lastSuccessfulSync = g(
      'cortex_bucket_stores_blocks_last_successful_sync_timestamp_seconds',
      'Unix timestamp of the last successful blocks sync.',
    );
    this.bucketSyncs = counter(
      registry,
      'cortex_storegateway_bucket_sync_total',
      'Total number of times the bucket sync operation triggered.',
      ['reason'],
    );
    for (const reason of ['initial', 'periodic', 'ring-change'] as const)
      this.bucketSyncs.inc({ reason }, 0);
    this.metaSyncs = c(
      'cortex_blocks_meta_syncs_total',
      'Total blocks metadata synchronization attempts',
    );
    this.metaSyncFailures = c(
      'cortex_blocks_meta_sync_failures_total',
      'Total blocks metadata synchronization failures',
    );
    this.metaSynced = gauge(
      registry,
      'cortex_blocks_meta_synced',
      'Reflects current state of synced blocks (over all tenants).',
      ['state'],
    );
    this.bucketIndexLoads = c(
      'cortex_bucket_index_loads_total',
      'Total number of bucket index loading attempts.',
    );
    this.bucketIndexLoadFailures = c(
      'cortex_bucket_index_load_failures_total',
      'Total number of bucket index loading failures.',
    );
    this.gateInFlight = g(
      'cortex_bucket_stores_gate_queries_in_flight',
      'Number of queries that are currently in flight.',
    );
    this.gateWaiting = g(
      'strata_bucket_stores_gate_queries_waiting',
      'Number of queries waiting for a per-tenant concurrency slot (max_concurrent).',
    );
    this.gateMax = g(
      'cortex_bucket_stores_gate_queries_concurrent_max',
      'Number of maximum concurrent queries allowed.',
    );
    this.gateSeconds = histogram(
      registry,
      'cortex_bucket_stores_gate_duration_seconds',
      'How many seconds it took for queries to wait at the gate.',
      [0.01, 0.1, 0.3, 0.6, 1, 3, 6, 10, 15, 20, 30, 45, 60, 120, 240, 360, 720],
    );
    // Thanos and Cortex export these four as summaries; prom-client's Summary reads the wall
    // clock (its sliding window), which a simulated process must not, so they are histograms
    // here (same names, `_bucket` series instead of quantiles).
    const counts = exponentialBuckets(1, 4, 12);
    this.dataFetched = histogram(
      registry,
      'cortex_bucket_store_series_data_fetched',
      'How many items of a data type in a block were fetched for a single series request.',
      counts,
      ['data_type'],
    );
    this.dataSizeFetched = histogram(
      registry,
      'cortex_bucket_store_series_data_size_fetched_bytes',
      'Size of all items of a data type in a block were fetched for a single series request.',
      exponentialBuckets(256, 4, 12),
      ['data_type'],
    );
    this.blocksQueried = histogram(
      registry,
      'cortex_bucket_store_series_blocks_queried',
      'Number of blocks in a bucket store that were touched to satisfy a query.',
      counts,
    );
    this.resultSeries = histogram(
      registry,
      'cortex_bucket_store_series_result_series',
      'Number of series observed in the final result of a query.',
      counts,
    );
    this.queriesDropped = c(
      'cortex_bucket_store_queries_dropped_total',
      'Number of queries that were dropped due to the max sample count limit.',
    );
    this.lazyLoads = c(
      'cortex_bucket_store_indexheader_lazy_load_total',
      'Total number of index-header lazy load operations.',
    );
    this.lazyLoadFailures = c(
      'cortex_bucket_store_indexheader_lazy_load_failed_total',
      'Total number of failed index-header lazy load operations.',
    );
    this.lazyUnloads = c(
      'cortex_bucket_store_indexheader_lazy_unload_total',
      'Total number of index-header lazy unload operations.',
    );
    this.lazyUnloadFailures = c(
      'cortex_bucket_store_indexheader_lazy_unload_failed_total',
      'Total number of failed index-header lazy unload operations.',
    );
  }
}
