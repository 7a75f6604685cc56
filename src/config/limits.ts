/**
 * Per-tenant limits: the `limits` block of the YAML config. The same keys are
 * used by the runtime-config overrides file, so this shape is shared with the
 * overrides module. Names, flags and defaults are Cortex's (pkg/util/validation).
 */
export interface LimitsConfig {
  /** -distributor.ingestion-rate-limit: samples per second per tenant. */
  ingestion_rate: number;
  /**
   * -distributor.ingestion-rate-limit-strategy: `local` or `global`. As in Cortex only the
   * default applies; a tenant's override is accepted but not used.
   */
  ingestion_rate_strategy: string;
  /** -distributor.ingestion-burst-size: token-bucket burst in samples. */
  ingestion_burst_size: number;
  /** -distributor.ha-tracker.enable-for-all-users: deduplicate HA Prometheus pairs. */
  accept_ha_samples: boolean;
  /** -distributor.ha-tracker.cluster: label naming the HA cluster. */
  ha_cluster_label: string;
  /** -distributor.ha-tracker.replica: label naming the HA replica. */
  ha_replica_label: string;
  /** -distributor.ha-tracker.max-clusters: 0 = unlimited. */
  ha_max_clusters: number;
  /** -validation.max-length-label-name: bytes. */
  max_label_name_length: number;
  /** -validation.max-length-label-value: bytes (applies to the metric name too). */
  max_label_value_length: number;
  /** -validation.max-label-names-per-series. */
  max_label_names_per_series: number;
  /** -validation.max-metadata-length: bytes of metric name, HELP and UNIT. */
  max_metadata_length: number;
  /** -validation.reject-old-samples. */
  reject_old_samples: boolean;
  /** -validation.reject-old-samples.max-age: milliseconds. */
  reject_old_samples_max_age: number;
  /** -validation.create-grace-period: milliseconds a sample may be in the future. */
  creation_grace_period: number;
  /** -validation.enforce-metadata-metric-name. */
  enforce_metadata_metric_name: boolean;
  /** -validation.enforce-metric-name. */
  enforce_metric_name: boolean;
  /** -ingester.max-global-series-per-user: 0 = unlimited. */
  max_global_series_per_user: number;
  /** -ingester.max-global-series-per-metric: 0 = unlimited. */
  max_global_series_per_metric: number;
  /** -ingester.max-metadata-per-user: metric families with metadata per ingester; 0 = unlimited. */
  max_metadata_per_user: number;
  /** -ingester.max-metadata-per-metric: metadata per metric family per ingester; 0 = unlimited. */
  max_metadata_per_metric: number;
  /** -ingester.max-global-metadata-per-user: across the cluster; 0 = unlimited. */
  max_global_metadata_per_user: number;
  /** -ingester.max-global-metadata-per-metric: across the cluster; 0 = unlimited. */
  max_global_metadata_per_metric: number;
  /** -ruler.max-rules-per-rule-group: 0 = unlimited. */
  ruler_max_rules_per_rule_group: number;
  /** -ruler.max-rule-groups-per-tenant: 0 = unlimited. */
  ruler_max_rule_groups_per_tenant: number;
  /** -ingester.out-of-order-time-window: milliseconds; 0 = disabled. */
  out_of_order_time_window: number;
  /**
   * -compactor.blocks-retention-period: milliseconds; the compactor marks a tenant's blocks
   * that ended longer ago for deletion. 0 = keep everything.
   */
  compactor_blocks_retention_period: number;
  /**
   * -compactor.tenant-shard-size: compactors in the tenant's shard under the shuffle-sharding
   * strategy; 0 = every compactor.
   */
  compactor_tenant_shard_size: number;
  /**
   * -querier.max-fetched-series-per-query: unique series one query may fetch from ingesters
   * and store-gateways together (422 past it); 0 = no limit.
   */
  max_fetched_series_per_query: number;
  /**
   * -querier.max-fetched-chunk-bytes-per-query: bytes of chunks one query may fetch from
   * ingesters and store-gateways together, every replica's copy counted (422 past it); 0 = no limit.
   */
  max_fetched_chunk_bytes_per_query: number;
  /**
   * -querier.max-fetched-data-bytes-per-query: bytes of series (labels and chunks) one query
   * may fetch, counted as the chunk bytes are (422 past it); 0 = no limit.
   */
  max_fetched_data_bytes_per_query: number;
  /** -frontend.max-cache-freshness: milliseconds; newer results are never cached or served from cache. */
  max_cache_freshness: number;
  /** -frontend.max-queriers-per-tenant: queriers in the tenant's shuffle shard; 0 = all. */
  max_queriers_per_tenant: number;
  /** -frontend.max-outstanding-requests-per-tenant: queued requests per tenant per queue (429 beyond). */
  max_outstanding_requests_per_tenant: number;
  /**
   * -querier.max-query-parallelism: sub-queries (split intervals, cache gaps, shards) of one
   * query the frontend runs at once; 0 runs them one at a time.
   */
  max_query_parallelism: number;
  /** -frontend.query-vertical-shard-size: shards of a shardable query; 0 or 1 = off. */
  query_vertical_shard_size: number;
}

/** The values `ingestion_rate_strategy` accepts. */
export const INGESTION_RATE_STRATEGIES = ['local', 'global'] as const;
