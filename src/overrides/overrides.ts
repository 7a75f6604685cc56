import type { LimitsConfig } from '../config/index.js';
import type { LimitName } from './limit_fields.js';
import type { RuntimeConfig, TenantLimitsOverride } from './runtime_config.js';

/** Anything that holds the applied runtime config (the RuntimeConfigManager, or a test's). */
export interface RuntimeConfigSource {
  current(): RuntimeConfig;
}

/**
 * The one accessor every component uses for per-tenant limits: the static defaults (the
 * `limits` block and its flags) merged with the tenant's entry in the runtime config.
 *
 * It asks `source` on every call rather than caching, so a reload applies to the next
 * request without anyone subscribing. With no source (no `-runtime-config.file`), every
 * tenant gets the defaults.
 */
export class Overrides {
  private readonly defaults: Readonly<LimitsConfig>;

  constructor(
    defaults: LimitsConfig,
    private readonly source: RuntimeConfigSource | undefined,
  ) {
    // A copy, so a caller mutating its config object later cannot change limits behind our back.
    this.defaults = Object.freeze({ ...defaults });
  }

  /** The tenant's effective limits (a fresh object the caller may keep). */
  limits(tenant: string): LimitsConfig {
    return { ...this.defaults, ...this.tenantOverride(tenant) };
  }

  /** The static defaults, without any tenant's overrides. */
  defaultLimits(): LimitsConfig {
    return { ...this.defaults };
  }

  /** Samples per second (-distributor.ingestion-rate-limit). */
  ingestionRate(tenant: string): number {
    return this.limit(tenant, 'ingestion_rate');
  }

  /** Token-bucket burst in samples (-distributor.ingestion-burst-size). */
  ingestionBurstSize(tenant: string): number {
    return this.limit(tenant, 'ingestion_burst_size');
  }

  /**
   * `local` or `global`. Like Cortex, the default only: a tenant cannot change how the rate
   * limit is shared between distributors, so a runtime-config entry for it is ignored.
   */
  ingestionRateStrategy(): string {
    return this.defaults.ingestion_rate_strategy;
  }

  /** Whether HA-pair deduplication applies to the tenant (-distributor.ha-tracker.enable-for-all-users). */
  acceptHASamples(tenant: string): boolean {
    return this.limit(tenant, 'accept_ha_samples');
  }

  /** The label naming a sample's HA cluster. */
  haClusterLabel(tenant: string): string {
    return this.limit(tenant, 'ha_cluster_label');
  }

  /** The label naming a sample's HA replica (dropped from accepted samples). */
  haReplicaLabel(tenant: string): string {
    return this.limit(tenant, 'ha_replica_label');
  }

  /** HA clusters the tracker keeps per tenant; 0 = unlimited. */
  haMaxClusters(tenant: string): number {
    return this.limit(tenant, 'ha_max_clusters');
  }

  /** Bytes. */
  maxLabelNameLength(tenant: string): number {
    return this.limit(tenant, 'max_label_name_length');
  }

  /** Bytes; also bounds the metric name. */
  maxLabelValueLength(tenant: string): number {
    return this.limit(tenant, 'max_label_value_length');
  }

  maxLabelNamesPerSeries(tenant: string): number {
    return this.limit(tenant, 'max_label_names_per_series');
  }

  /** Bytes of a metadata entry's metric name, HELP and UNIT. */
  maxMetadataLength(tenant: string): number {
    return this.limit(tenant, 'max_metadata_length');
  }

  rejectOldSamples(tenant: string): boolean {
    return this.limit(tenant, 'reject_old_samples');
  }

  /** Milliseconds; only used when rejectOldSamples is on. */
  rejectOldSamplesMaxAge(tenant: string): number {
    return this.limit(tenant, 'reject_old_samples_max_age');
  }

  /** Milliseconds a sample's timestamp may be ahead of now. */
  creationGracePeriod(tenant: string): number {
    return this.limit(tenant, 'creation_grace_period');
  }

  enforceMetadataMetricName(tenant: string): boolean {
    return this.limit(tenant, 'enforce_metadata_metric_name');
  }

  enforceMetricName(tenant: string): boolean {
    return this.limit(tenant, 'enforce_metric_name');
  }

  /** In-memory series across the cluster; 0 = unlimited. */
  maxGlobalSeriesPerUser(tenant: string): number {
    return this.limit(tenant, 'max_global_series_per_user');
  }

  /** In-memory series per metric name across the cluster; 0 = unlimited. */
  maxGlobalSeriesPerMetric(tenant: string): number {
    return this.limit(tenant, 'max_global_series_per_metric');
  }

  /** Metric families with metadata on one ingester; 0 = unlimited. */
  maxMetadataPerUser(tenant: string): number {
    return this.limit(tenant, 'max_metadata_per_user');
  }

  /** Metadata per metric family on one ingester; 0 = unlimited. */
  maxMetadataPerMetric(tenant: string): number {
    return this.limit(tenant, 'max_metadata_per_metric');
  }

  /** Metric families with metadata across the cluster; 0 = unlimited. */
  maxGlobalMetadataPerUser(tenant: string): number {
    return this.limit(tenant, 'max_global_metadata_per_user');
  }

  /** Metadata per metric family across the cluster; 0 = unlimited. */
  maxGlobalMetadataPerMetric(tenant: string): number {
    return this.limit(tenant, 'max_global_metadata_per_metric');
  }

  /** 0 = unlimited. */
  rulerMaxRulesPerRuleGroup(tenant: string): number {
    return this.limit(tenant, 'ruler_max_rules_per_rule_group');
  }

  /** 0 = unlimited. */
  rulerMaxRuleGroupsPerTenant(tenant: string): number {
    return this.limit(tenant, 'ruler_max_rule_groups_per_tenant');
  }

  /** Milliseconds behind the tenant's newest sample still accepted; 0 = disabled. */
  outOfOrderTimeWindow(tenant: string): number {
    return this.limit(tenant, 'out_of_order_time_window');
  }

  /** Milliseconds after a block's end before the compactor marks it for deletion; 0 = never. */
  compactorBlocksRetentionPeriod(tenant: string): number {
    return this.limit(tenant, 'compactor_blocks_retention_period');
  }

  /** Compactors in the tenant's shuffle shard; 0 = all of them. */
  compactorTenantShardSize(tenant: string): number {
    return this.limit(tenant, 'compactor_tenant_shard_size');
  }

  /** Tenants that have an entry in the runtime config, sorted. */
  tenantsWithOverrides(): string[] {
    if (this.source === undefined) return [];
    return [...this.source.current().overrides.keys()].sort();
  }

  private limit<N extends LimitName>(tenant: string, name: N): LimitsConfig[N] {
    return this.tenantOverride(tenant)?.[name] ?? this.defaults[name];
  }

  private tenantOverride(tenant: string): TenantLimitsOverride | undefined {
    return this.source?.current().overrides.get(tenant);
  }
}
