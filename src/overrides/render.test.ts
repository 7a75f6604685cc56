import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { defaultConfig, formatDuration, type LimitsConfig } from '../config/index.js';
import { Overrides } from './overrides.js';
import { renderRuntimeConfig } from './render.js';
import {
  parseRuntimeConfig,
  type RuntimeConfig,
  type TenantLimitsOverride,
} from './runtime_config.js';

const DEFAULTS: LimitsConfig = defaultConfig().limits;

const FILE = `
overrides:
  tenant-b:
    ingestion_rate: 100
    out_of_order_time_window: 30m
  tenant-a:
    max_global_series_per_user: 5000
  "123":
    ingestion_rate: 25000
multi_kv_config:
  primary: etcd
`;

describe('renderRuntimeConfig', () => {
  const config = parseRuntimeConfig(FILE);

  it('all: every tenant with its full effective limits, sorted, and the multi KV block', () => {
    const out = renderRuntimeConfig(config, 'all', DEFAULTS);
    const full = (o: Partial<LimitsConfig>) => {
      const l = { ...DEFAULTS, ...o };
      return {
        ...l,
        out_of_order_time_window: formatDuration(l.out_of_order_time_window),
        reject_old_samples_max_age: formatDuration(l.reject_old_samples_max_age),
        creation_grace_period: formatDuration(l.creation_grace_period),
        compactor_blocks_retention_period: formatDuration(l.compactor_blocks_retention_period),
        max_cache_freshness: formatDuration(l.max_cache_freshness),
      };
    };
    expect(parseYaml(out)).toEqual({
      overrides: {
        '123': full({}),
        'tenant-a': full({ max_global_series_per_user: 5000 }),
        'tenant-b': full({ ingestion_rate: 100, out_of_order_time_window: 30 * 60_000 }),
      },
      multi_kv_config: { primary: 'etcd', mirror_enabled: null },
    });
    expect(out.indexOf('"123"')).toBeLessThan(out.indexOf('tenant-a'));
    expect(out.indexOf('tenant-a')).toBeLessThan(out.indexOf('tenant-b'));
  });

  it('diff: only values that differ from the defaults, tenants without differences omitted', () => {
    const out = renderRuntimeConfig(config, 'diff', DEFAULTS);
    expect(parseYaml(out)).toEqual({
      overrides: {
        'tenant-a': { max_global_series_per_user: 5000 },
        'tenant-b': { ingestion_rate: 100, out_of_order_time_window: formatDuration(30 * 60_000) },
      },
      multi_kv_config: { primary: 'etcd' },
    });
  });

  it('diff of a config that changes nothing is an empty mapping', () => {
    const same = parseRuntimeConfig('overrides:\n  t:\n    ingestion_rate: 25000\n');
    expect(renderRuntimeConfig(same, 'diff', DEFAULTS)).toBe('{}\n');
    expect(renderRuntimeConfig(parseRuntimeConfig(''), 'diff', DEFAULTS)).toBe('{}\n');
  });

  it('all of an empty config still shows the (empty) blocks', () => {
    expect(parseYaml(renderRuntimeConfig(parseRuntimeConfig(''), 'all', DEFAULTS))).toEqual({
      overrides: {},
      multi_kv_config: { primary: '', mirror_enabled: null },
    });
  });

  it('property: the rendered config parses back to the same effective limits', () => {
    const count = fc.nat({ max: 2 ** 40 });
    const override: fc.Arbitrary<TenantLimitsOverride> = fc.record(
      {
        ingestion_rate: fc.double({ min: 0, max: 1e12, noNaN: true }),
        ingestion_burst_size: count,
        max_global_series_per_user: count,
        max_global_series_per_metric: count,
        ruler_max_rules_per_rule_group: count,
        ruler_max_rule_groups_per_tenant: count,
        // Whole seconds: what operators write, and exact through any Go-style formatter.
        out_of_order_time_window: fc.nat({ max: 10 * 24 * 3600 }).map((s) => s * 1000),
        ingestion_rate_strategy: fc.constantFrom('local', 'global'),
        accept_ha_samples: fc.boolean(),
        ha_cluster_label: fc.string(),
        ha_replica_label: fc.stringMatching(/^[a-zA-Z_][a-zA-Z0-9_]*$/),
        ha_max_clusters: count,
        max_label_name_length: count,
        max_label_value_length: count,
        max_label_names_per_series: count,
        max_metadata_length: count,
        reject_old_samples: fc.boolean(),
        reject_old_samples_max_age: fc.nat({ max: 100 * 24 * 3600 }).map((s) => s * 1000),
        creation_grace_period: fc.nat({ max: 24 * 3600 }).map((s) => s * 1000),
        enforce_metadata_metric_name: fc.boolean(),
        enforce_metric_name: fc.boolean(),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.tuple(fc.string({ minLength: 1 }), override), { selector: ([t]) => t }),
        fc.constantFrom('all' as const, 'diff' as const),
        (tenants, mode) => {
          const config: RuntimeConfig = { overrides: new Map(tenants), multi_kv_config: {} };
          const reparsed = parseRuntimeConfig(renderRuntimeConfig(config, mode, DEFAULTS));
          const before = new Overrides(DEFAULTS, { current: () => config });
          const after = new Overrides(DEFAULTS, { current: () => reparsed });
          for (const [tenant] of tenants)
            expect(after.limits(tenant)).toEqual(before.limits(tenant));
        },
      ),
    );
  });
});
