import { describe, expect, it } from 'vitest';
import { parseRuntimeConfig } from './runtime_config.js';
import { RuntimeConfigError } from './runtime_config_error.js';

function overridesOf(text: string): Record<string, unknown> {
  return Object.fromEntries(parseRuntimeConfig(text).overrides);
}

describe('parseRuntimeConfig: valid files', () => {
  it.each([
    ['an empty file', ''],
    ['only comments', '# nothing here yet\n'],
    ['an empty document', '---\n'],
    ['a null document', 'null\n'],
    ['overrides with nothing under it', 'overrides:\n'],
    ['an empty overrides map', 'overrides: {}\n'],
    ['only multi_kv_config', 'multi_kv_config:\n  mirror_enabled: false\n'],
  ])('accepts %s as "no overrides"', (_, text) => {
    expect(parseRuntimeConfig(text).overrides.size).toBe(0);
  });

  it('reads partial per-tenant limits, durations as milliseconds', () => {
    const cfg = parseRuntimeConfig(`
overrides:
  tenant-a:
    ingestion_rate: 1500.5
    ingestion_burst_size: 3000
  tenant-b:
    max_global_series_per_user: 100000
    max_global_series_per_metric: 20000
    ruler_max_rules_per_rule_group: 20
    ruler_max_rule_groups_per_tenant: 35
    out_of_order_time_window: 1h30m
multi_kv_config:
  primary: etcd
  mirror_enabled: true
`);
    expect(Object.fromEntries(cfg.overrides)).toEqual({
      'tenant-a': { ingestion_rate: 1500.5, ingestion_burst_size: 3000 },
      'tenant-b': {
        max_global_series_per_user: 100000,
        max_global_series_per_metric: 20000,
        ruler_max_rules_per_rule_group: 20,
        ruler_max_rule_groups_per_tenant: 35,
        out_of_order_time_window: 90 * 60_000,
      },
    });
    expect(cfg.multi_kv_config).toEqual({ primary: 'etcd', mirror_enabled: true });
  });

  it('reads the validation and HA limits with their types', () => {
    const text = `
overrides:
  t:
    ingestion_rate_strategy: global
    enforce_metric_name: false
    max_label_names_per_series: 40
    max_label_name_length: 100
    max_label_value_length: 4096
    reject_old_samples: true
    reject_old_samples_max_age: 1w
    creation_grace_period: 0
    enforce_metadata_metric_name: false
    max_metadata_length: 512
    accept_ha_samples: true
    ha_cluster_label: "prom cluster"
    ha_replica_label: 123
    ha_max_clusters: 10
`;
    expect(overridesOf(text)).toEqual({
      t: {
        ingestion_rate_strategy: 'global',
        enforce_metric_name: false,
        max_label_names_per_series: 40,
        max_label_name_length: 100,
        max_label_value_length: 4096,
        reject_old_samples: true,
        reject_old_samples_max_age: 7 * 24 * 3_600_000,
        creation_grace_period: 0,
        enforce_metadata_metric_name: false,
        max_metadata_length: 512,
        accept_ha_samples: true,
        ha_cluster_label: 'prom cluster',
        // Go's YAML decoder fills a string field from any scalar's text.
        ha_replica_label: '123',
        ha_max_clusters: 10,
      },
    });
  });

  it('keeps tenants in file order', () => {
    const cfg = parseRuntimeConfig('overrides:\n  zeta: {}\n  alpha: {}\n  mid: {}\n');
    expect([...cfg.overrides.keys()]).toEqual(['zeta', 'alpha', 'mid']);
  });

  it('keeps numeric-looking tenant IDs as written, like yaml.v2 does', () => {
    const cfg = overridesOf(
      'overrides:\n  0123: {ingestion_rate: 1}\n  1: {ingestion_rate: 2}\n  "007": {ingestion_rate: 3}\n',
    );
    expect(cfg).toEqual({
      '0123': { ingestion_rate: 1 },
      '1': { ingestion_rate: 2 },
      '007': { ingestion_rate: 3 },
    });
  });

  it('treats a tenant with nothing under it as present with no overrides', () => {
    expect(overridesOf('overrides:\n  tenant-a:\n')).toEqual({ 'tenant-a': {} });
  });

  it('accepts a bare 0 and Go duration strings for the out-of-order window', () => {
    expect(overridesOf('overrides:\n  t:\n    out_of_order_time_window: 0\n')).toEqual({
      t: { out_of_order_time_window: 0 },
    });
    expect(overridesOf('overrides:\n  t:\n    out_of_order_time_window: 0s\n')).toEqual({
      t: { out_of_order_time_window: 0 },
    });
    expect(overridesOf('overrides:\n  t:\n    out_of_order_time_window: "45m"\n')).toEqual({
      t: { out_of_order_time_window: 45 * 60_000 },
    });
  });

  it('resolves aliases and merge keys', () => {
    const cfg = overridesOf(`
overrides:
  big: &big
    ingestion_rate: 100000
    ingestion_burst_size: 200000
  also-big: *big
  bigger:
    <<: *big
    ingestion_rate: 500000
`);
    expect(cfg).toEqual({
      big: { ingestion_rate: 100000, ingestion_burst_size: 200000 },
      'also-big': { ingestion_rate: 100000, ingestion_burst_size: 200000 },
      bigger: { ingestion_rate: 500000, ingestion_burst_size: 200000 },
    });
  });

  it('normalises the neutral KV store names and ignores an empty primary', () => {
    expect(parseRuntimeConfig('multi_kv_config: {primary: kvone}').multi_kv_config).toEqual({
      primary: 'consul',
    });
    expect(parseRuntimeConfig('multi_kv_config: {primary: gossip}').multi_kv_config).toEqual({
      primary: 'memberlist',
    });
    expect(parseRuntimeConfig('multi_kv_config: {primary: ""}').multi_kv_config).toEqual({});
    expect(parseRuntimeConfig('multi_kv_config:\n').multi_kv_config).toEqual({});
  });
});

describe('parseRuntimeConfig: invalid files', () => {
  it.each([
    [
      'an unknown rate strategy, naming the valid ones',
      'overrides:\n  t:\n    ingestion_rate_strategy: shared\n',
      /limit ingestion_rate_strategy of tenant "t" \(line 3\): invalid value "shared"; expected one of local, global/,
    ],
    [
      'a word that is not a boolean',
      'overrides:\n  t:\n    accept_ha_samples: yes\n',
      /accept_ha_samples .*expected true or false, got "yes"/,
    ],
    [
      'a quoted boolean',
      'overrides:\n  t:\n    enforce_metric_name: "false"\n',
      /enforce_metric_name .*expected true or false/,
    ],
    [
      'a negative label length',
      'overrides:\n  t:\n    max_label_value_length: -1\n',
      /max_label_value_length .*value -1 must not be negative/,
    ],
    [
      'a negative HA cluster limit',
      'overrides:\n  t:\n    ha_max_clusters: -2\n',
      /ha_max_clusters .*value -2 must not be negative/,
    ],
    [
      'a negative grace period',
      'overrides:\n  t:\n    creation_grace_period: -1m\n',
      /creation_grace_period .*"-1m"/,
    ],
    [
      'a list for a label name',
      'overrides:\n  t:\n    ha_cluster_label: [a, b]\n',
      /ha_cluster_label .*expected a string/,
    ],
    [
      'an unknown top-level key',
      'overides:\n  t: {}\n',
      /unknown field "overides" at the top level .*line 1/,
    ],
    [
      'an unknown limit, naming key and tenant',
      'overrides:\n  tenant-a:\n    ingestion_rat: 5\n',
      /unknown limit "ingestion_rat" for tenant "tenant-a" \(line 3\)/,
    ],
    [
      'a negative number, naming the value',
      'overrides:\n  tenant-a:\n    max_global_series_per_user: -10\n',
      /limit max_global_series_per_user of tenant "tenant-a" \(line 3\): value -10 must not be negative/,
    ],
    [
      'a negative rate',
      'overrides:\n  t:\n    ingestion_rate: -0.5\n',
      /ingestion_rate .*value -0.5 must not be negative/,
    ],
    [
      'a negative duration',
      'overrides:\n  t:\n    out_of_order_time_window: -5m\n',
      /out_of_order_time_window .*"-5m"/,
    ],
    [
      'a fractional count',
      'overrides:\n  t:\n    ingestion_burst_size: 1.5\n',
      /ingestion_burst_size .*value 1.5 must be a whole number/,
    ],
    [
      'a word for a number',
      'overrides:\n  t:\n    ingestion_rate: lots\n',
      /ingestion_rate .*expected a non-negative number, got "lots"/,
    ],
    [
      'a quoted number',
      'overrides:\n  t:\n    ingestion_rate: "100"\n',
      /ingestion_rate .*got "100"/,
    ],
    [
      'infinity',
      'overrides:\n  t:\n    ingestion_rate: .inf\n',
      /value \.inf is not a finite number/,
    ],
    [
      'a list for a number',
      'overrides:\n  t:\n    ingestion_rate: [1]\n',
      /ingestion_rate .*got a sequence/,
    ],
    ['a null limit', 'overrides:\n  t:\n    ingestion_rate:\n', /ingestion_rate .*got null/],
    [
      'a malformed duration',
      'overrides:\n  t:\n    out_of_order_time_window: 5x\n',
      /out_of_order_time_window of tenant "t" \(line 3\): invalid duration "5x"/,
    ],
    [
      'a unitless duration',
      'overrides:\n  t:\n    out_of_order_time_window: 30\n',
      /invalid duration "30"/,
    ],
    [
      'a merge key on a scalar',
      'overrides:\n  t: {<<: 5}\n',
      /merge key << needs a mapping .*got "5" \(line 2\)/,
    ],
    ['a recursive alias', 'overrides: &loop\n  t: *loop\n', /recursive YAML alias/],
    [
      'several documents',
      'overrides: {}\n---\noverrides: {}\n',
      /2 YAML documents; exactly one is allowed/,
    ],
    ['a top-level list', '- overrides\n', /must be a mapping, got a sequence/],
    ['a top-level scalar', 'hello\n', /must be a mapping, got "hello"/],
    [
      'overrides as a list',
      'overrides:\n  - t\n',
      /overrides must map tenant IDs to limits, got a sequence \(line 1\)/,
    ],
    [
      'a tenant with a scalar',
      'overrides:\n  t: 5\n',
      /overrides of tenant "t" must be a mapping of limits, got "5" \(line 2\)/,
    ],
    ['a duplicate tenant', 'overrides:\n  t: {}\n  t: {}\n', /Map keys must be unique at line 3/],
    [
      'a duplicate limit',
      'overrides:\n  t:\n    ingestion_rate: 1\n    ingestion_rate: 2\n',
      /Map keys must be unique at line 4/,
    ],
    ['an empty tenant ID', 'overrides:\n  "": {}\n', /empty tenant ID in overrides \(line 2\)/],
    ['a YAML syntax error', 'overrides:\n  t: [\n', /invalid YAML: .*line/],
    ['an unknown alias', 'overrides:\n  t: *nope\n', /unknown YAML alias \*nope \(line 2\)/],
    [
      'an unknown multi_kv_config key',
      'multi_kv_config:\n  primry: etcd\n',
      /unknown field "primry" in multi_kv_config \(line 2\)/,
    ],
    [
      'an unknown KV store',
      'multi_kv_config:\n  primary: zookeeper\n',
      /multi_kv_config.primary .*unknown KV store "zookeeper"/,
    ],
    [
      'a non-boolean mirror_enabled',
      'multi_kv_config:\n  mirror_enabled: sometimes\n',
      /multi_kv_config.mirror_enabled .*expected true or false, got "sometimes"/,
    ],
    [
      'multi_kv_config as a list',
      'multi_kv_config: [etcd]\n',
      /multi_kv_config must be a mapping, got a sequence/,
    ],
  ])('rejects %s', (_, text, message) => {
    let caught: unknown;
    try {
      parseRuntimeConfig(text);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(RuntimeConfigError);
    expect((caught as Error).message).toMatch(message);
  });
});
