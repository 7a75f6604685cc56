import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { defaultConfig, type LimitsConfig } from '../config/index.js';
import { LIMIT_NAMES } from './limit_fields.js';
import { Overrides } from './overrides.js';
import {
  parseRuntimeConfig,
  type RuntimeConfig,
  type TenantLimitsOverride,
} from './runtime_config.js';

const DEFAULTS: LimitsConfig = defaultConfig().limits;

/** A source whose config the test swaps, standing in for a manager that reloaded. */
class SwappableSource {
  constructor(public config: RuntimeConfig) {}
  current(): RuntimeConfig {
    return this.config;
  }
}

describe('Overrides', () => {
  const source = new SwappableSource(
    parseRuntimeConfig(`
overrides:
  tenant-b:
    ingestion_rate: 100
    out_of_order_time_window: 30m
  tenant-a:
    max_global_series_per_user: 5000
`),
  );
  const overrides = new Overrides(DEFAULTS, source);

  it('merges the tenant overrides over the defaults', () => {
    expect(overrides.limits('tenant-b')).toEqual({
      ...DEFAULTS,
      ingestion_rate: 100,
      out_of_order_time_window: 30 * 60_000,
    });
    expect(overrides.limits('tenant-a')).toEqual({ ...DEFAULTS, max_global_series_per_user: 5000 });
  });

  it('gives tenants without overrides the defaults', () => {
    expect(overrides.limits('someone-else')).toEqual(DEFAULTS);
  });

  it('answers every typed getter from the merged limits', () => {
    expect(overrides.ingestionRate('tenant-b')).toBe(100);
    expect(overrides.ingestionBurstSize('tenant-b')).toBe(50000);
    expect(overrides.maxGlobalSeriesPerUser('tenant-a')).toBe(5000);
    expect(overrides.maxGlobalSeriesPerMetric('tenant-a')).toBe(0);
    expect(overrides.rulerMaxRulesPerRuleGroup('tenant-a')).toBe(0);
    expect(overrides.rulerMaxRuleGroupsPerTenant('tenant-a')).toBe(0);
    expect(overrides.outOfOrderTimeWindow('tenant-b')).toBe(30 * 60_000);
    expect(overrides.outOfOrderTimeWindow('tenant-a')).toBe(0);
  });

  it('answers the validation and HA getters, with the rate strategy from the defaults only', () => {
    const ha = new Overrides(
      { ...DEFAULTS, ingestion_rate_strategy: 'global' },
      new SwappableSource(
        parseRuntimeConfig(`
overrides:
  t:
    ingestion_rate_strategy: local
    accept_ha_samples: true
    ha_cluster_label: dc
    ha_replica_label: pod
    ha_max_clusters: 2
    enforce_metric_name: false
    enforce_metadata_metric_name: false
    max_label_names_per_series: 3
    max_label_name_length: 4
    max_label_value_length: 5
    max_metadata_length: 6
    reject_old_samples: true
    reject_old_samples_max_age: 1h
    creation_grace_period: 1m
`),
      ),
    );
    expect(ha.ingestionRateStrategy()).toBe('global');
    expect(ha.limits('t').ingestion_rate_strategy).toBe('local');
    expect(ha.acceptHASamples('t')).toBe(true);
    expect(ha.acceptHASamples('other')).toBe(false);
    expect(ha.haClusterLabel('t')).toBe('dc');
    expect(ha.haClusterLabel('other')).toBe('cluster');
    expect(ha.haReplicaLabel('t')).toBe('pod');
    expect(ha.haReplicaLabel('other')).toBe('__replica__');
    expect(ha.haMaxClusters('t')).toBe(2);
    expect(ha.enforceMetricName('t')).toBe(false);
    expect(ha.enforceMetricName('other')).toBe(true);
    expect(ha.enforceMetadataMetricName('t')).toBe(false);
    expect(ha.maxLabelNamesPerSeries('t')).toBe(3);
    expect(ha.maxLabelNamesPerSeries('other')).toBe(30);
    expect(ha.maxLabelNameLength('t')).toBe(4);
    expect(ha.maxLabelValueLength('t')).toBe(5);
    expect(ha.maxMetadataLength('t')).toBe(6);
    expect(ha.rejectOldSamples('t')).toBe(true);
    expect(ha.rejectOldSamplesMaxAge('t')).toBe(3_600_000);
    expect(ha.rejectOldSamplesMaxAge('other')).toBe(14 * 24 * 3_600_000);
    expect(ha.creationGracePeriod('t')).toBe(60_000);
    expect(ha.creationGracePeriod('other')).toBe(600_000);
  });

  it('lists tenants with overrides sorted', () => {
    expect(overrides.tenantsWithOverrides()).toEqual(['tenant-a', 'tenant-b']);
  });

  it('always reads the latest config from its source', () => {
    const s = new SwappableSource(parseRuntimeConfig('overrides:\n  t: {ingestion_rate: 1}\n'));
    const o = new Overrides(DEFAULTS, s);
    expect(o.ingestionRate('t')).toBe(1);
    s.config = parseRuntimeConfig('overrides:\n  t: {ingestion_rate: 2}\n');
    expect(o.ingestionRate('t')).toBe(2);
    s.config = parseRuntimeConfig('');
    expect(o.ingestionRate('t')).toBe(DEFAULTS.ingestion_rate);
    expect(o.tenantsWithOverrides()).toEqual([]);
  });

  it('uses the defaults for everyone without a runtime config', () => {
    const o = new Overrides(DEFAULTS, undefined);
    expect(o.limits('t')).toEqual(DEFAULTS);
    expect(o.ingestionBurstSize('t')).toBe(DEFAULTS.ingestion_burst_size);
    expect(o.tenantsWithOverrides()).toEqual([]);
  });

  it('is not affected by later changes to the defaults object or to returned limits', () => {
    const defaults = { ...DEFAULTS };
    const o = new Overrides(defaults, undefined);
    defaults.ingestion_rate = 1;
    const got = o.limits('t');
    got.ingestion_burst_size = 2;
    expect(o.limits('t')).toEqual(DEFAULTS);
  });

  it('property: limits(t) is the defaults overlaid with the tenant overrides', () => {
    const nonNegative = fc.nat({ max: 2 ** 40 });
    const tenantOverride: fc.Arbitrary<TenantLimitsOverride> = fc.record(
      {
        ingestion_rate: fc.double({ min: 0, max: 1e9, noNaN: true }),
        ingestion_burst_size: nonNegative,
        max_global_series_per_user: nonNegative,
        max_global_series_per_metric: nonNegative,
        ruler_max_rules_per_rule_group: nonNegative,
        ruler_max_rule_groups_per_tenant: nonNegative,
        out_of_order_time_window: nonNegative,
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(
        fc.dictionary(fc.string({ minLength: 1 }), tenantOverride, { noNullPrototype: true }),
        fc.string({ minLength: 1 }),
        (byTenant, stranger) => {
          const config: RuntimeConfig = {
            overrides: new Map(Object.entries(byTenant)),
            multi_kv_config: {},
          };
          const o = new Overrides(DEFAULTS, { current: () => config });
          for (const [tenant, override] of Object.entries(byTenant)) {
            const expected = { ...DEFAULTS, ...override };
            expect(o.limits(tenant)).toEqual(expected);
            expect(o.ingestionRate(tenant)).toBe(expected.ingestion_rate);
            expect(o.ingestionBurstSize(tenant)).toBe(expected.ingestion_burst_size);
            expect(o.maxGlobalSeriesPerUser(tenant)).toBe(expected.max_global_series_per_user);
            expect(o.maxGlobalSeriesPerMetric(tenant)).toBe(expected.max_global_series_per_metric);
            expect(o.rulerMaxRulesPerRuleGroup(tenant)).toBe(
              expected.ruler_max_rules_per_rule_group,
            );
            expect(o.rulerMaxRuleGroupsPerTenant(tenant)).toBe(
              expected.ruler_max_rule_groups_per_tenant,
            );
            expect(o.outOfOrderTimeWindow(tenant)).toBe(expected.out_of_order_time_window);
          }
          if (!Object.hasOwn(byTenant, stranger)) expect(o.limits(stranger)).toEqual(DEFAULTS);
          expect(o.tenantsWithOverrides()).toEqual(Object.keys(byTenant).sort());
        },
      ),
    );
  });

  it('knows every LimitsConfig key', () => {
    // DEFAULTS is typed LimitsConfig, so its keys are exactly the interface's.
    expect([...LIMIT_NAMES].sort()).toEqual(Object.keys(DEFAULTS).sort());
  });
});
