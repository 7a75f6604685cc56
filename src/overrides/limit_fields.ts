import { INGESTION_RATE_STRATEGIES, type LimitsConfig } from '../config/index.js';

export type LimitName = keyof LimitsConfig;

/**
 * How a limit is written in YAML: `rate` is any non-negative number (samples per second),
 * `count` a non-negative integer, `duration` a Go duration string held as milliseconds,
 * `bool` true/false, `string` any string (a label name), `choice` one of a fixed set.
 */
export type LimitKind = 'rate' | 'count' | 'duration' | 'bool' | 'string' | 'choice';

// A Record over every key, so adding a field to LimitsConfig fails to compile until it is
// described here; the key order is the order `/runtime_config` prints (the config table's).
const LIMIT_KINDS: Readonly<Record<LimitName, LimitKind>> = {
  ingestion_rate: 'rate',
  ingestion_rate_strategy: 'choice',
  ingestion_burst_size: 'count',
  accept_ha_samples: 'bool',
  ha_cluster_label: 'string',
  ha_replica_label: 'string',
  ha_max_clusters: 'count',
  max_label_name_length: 'count',
  max_label_value_length: 'count',
  max_label_names_per_series: 'count',
  max_metadata_length: 'count',
  reject_old_samples: 'bool',
  reject_old_samples_max_age: 'duration',
  creation_grace_period: 'duration',
  enforce_metadata_metric_name: 'bool',
  enforce_metric_name: 'bool',
  max_global_series_per_user: 'count',
  max_global_series_per_metric: 'count',
  max_metadata_per_user: 'count',
  max_metadata_per_metric: 'count',
  max_global_metadata_per_user: 'count',
  max_global_metadata_per_metric: 'count',
  ruler_max_rules_per_rule_group: 'count',
  ruler_max_rule_groups_per_tenant: 'count',
  out_of_order_time_window: 'duration',
  compactor_blocks_retention_period: 'duration',
  compactor_tenant_shard_size: 'count',
  max_fetched_series_per_query: 'count',
  max_fetched_chunk_bytes_per_query: 'count',
  max_fetched_data_bytes_per_query: 'count',
  max_cache_freshness: 'duration',
  max_queriers_per_tenant: 'count',
  max_outstanding_requests_per_tenant: 'count',
  max_query_parallelism: 'count',
  query_vertical_shard_size: 'count',
};

// The allowed values of each `choice` limit.
const LIMIT_CHOICES: Readonly<Partial<Record<LimitName, readonly string[]>>> = {
  ingestion_rate_strategy: INGESTION_RATE_STRATEGIES,
};

export const LIMIT_NAMES: readonly LimitName[] = Object.keys(LIMIT_KINDS) as LimitName[];

export function isLimitName(key: string): key is LimitName {
  return Object.hasOwn(LIMIT_KINDS, key);
}

export function limitKind(name: LimitName): LimitKind {
  return LIMIT_KINDS[name];
}

/** The values a `choice` limit accepts; empty for other kinds. */
export function limitChoices(name: LimitName): readonly string[] {
  return LIMIT_CHOICES[name] ?? [];
}
