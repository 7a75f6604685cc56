/**
 * Per-tenant limits: the `limits` block of the YAML config. The same keys are
 * used by the runtime-config overrides file, so this shape is shared with the
 * overrides module.
 */
export interface LimitsConfig {
  /** -distributor.ingestion-rate-limit: samples per second per tenant. */
  ingestion_rate: number;
  /** -distributor.ingestion-burst-size: token-bucket burst in samples. */
  ingestion_burst_size: number;
  /** -ingester.max-global-series-per-user: 0 = unlimited. */
  max_global_series_per_user: number;
  /** -ingester.max-global-series-per-metric: 0 = unlimited. */
  max_global_series_per_metric: number;
  /** -ruler.max-rules-per-rule-group: 0 = unlimited. */
  ruler_max_rules_per_rule_group: number;
  /** -ruler.max-rule-groups-per-tenant: 0 = unlimited. */
  ruler_max_rule_groups_per_tenant: number;
  /** -ingester.out-of-order-time-window: milliseconds; 0 = disabled. */
  out_of_order_time_window: number;
}
