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

  /** In-memory series across the cluster; 0 = unlimited. */
  maxGlobalSeriesPerUser(tenant: string): number {
    return this.limit(tenant, 'max_global_series_per_user');
  }

  /** In-memory series per metric name across the cluster; 0 = unlimited. */
  maxGlobalSeriesPerMetric(tenant: string): number {
    return this.limit(tenant, 'max_global_series_per_metric');
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

  /** Tenants that have an entry in the runtime config, sorted. */
  tenantsWithOverrides(): string[] {
    if (this.source === undefined) return [];
    return [...this.source.current().overrides.keys()].sort();
  }

  private limit(tenant: string, name: LimitName): number {
    return this.tenantOverride(tenant)?.[name] ?? this.defaults[name];
  }

  private tenantOverride(tenant: string): TenantLimitsOverride | undefined {
    return this.source?.current().overrides.get(tenant);
  }
}
