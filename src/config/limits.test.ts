import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { defaultConfig } from './config_tree.js';
import { flagHelp } from './help.js';
import { loadConfig } from './load.js';
import { renderConfig } from './render.js';
import { StaticFiles } from './testing_files.js';
import type { Config } from './types.js';
import type { LimitsConfig } from './limits.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

async function load(argv: string[], yaml?: string): Promise<Config> {
  const files: Record<string, string> = yaml === undefined ? {} : { 'c.yaml': yaml };
  const args = yaml === undefined ? argv : ['-config.file=c.yaml', ...argv];
  const result = await loadConfig(args, { fs: new StaticFiles(files), env: {} });
  if (result.kind !== 'config') throw new Error('expected a config, got help');
  return result.config;
}

// The distributor's validation and HA limits, with Cortex's flags and defaults
// (pkg/util/validation/limits.go).
const DISTRIBUTOR_LIMITS: readonly [keyof LimitsConfig, string, unknown][] = [
  ['enforce_metric_name', 'validation.enforce-metric-name', true],
  ['max_label_names_per_series', 'validation.max-label-names-per-series', 30],
  ['max_label_name_length', 'validation.max-length-label-name', 1024],
  ['max_label_value_length', 'validation.max-length-label-value', 2048],
  ['reject_old_samples', 'validation.reject-old-samples', false],
  ['reject_old_samples_max_age', 'validation.reject-old-samples.max-age', 336 * HOUR],
  ['creation_grace_period', 'validation.create-grace-period', 10 * MINUTE],
  ['enforce_metadata_metric_name', 'validation.enforce-metadata-metric-name', true],
  ['max_metadata_length', 'validation.max-metadata-length', 1024],
  ['ingestion_rate_strategy', 'distributor.ingestion-rate-limit-strategy', 'local'],
  ['accept_ha_samples', 'distributor.ha-tracker.enable-for-all-users', false],
  ['ha_cluster_label', 'distributor.ha-tracker.cluster', 'cluster'],
  ['ha_replica_label', 'distributor.ha-tracker.replica', '__replica__'],
  ['ha_max_clusters', 'distributor.ha-tracker.max-clusters', 0],
];

describe('distributor limits in the limits block', () => {
  it("defaults to Cortex's values", async () => {
    const limits = (await load([])).limits;
    for (const [key, , value] of DISTRIBUTOR_LIMITS) expect(limits[key], key).toEqual(value);
  });

  it("lists each under Cortex's flag name in -help", () => {
    const names = flagHelp()
      .split('\n')
      .map((line) => /^ {2}-(\S+)/.exec(line)?.[1])
      .filter((name) => name !== undefined);
    for (const [, flag] of DISTRIBUTOR_LIMITS) expect(names).toContain(flag);
  });

  it('reads every one from its flag', async () => {
    const limits = (
      await load([
        '-validation.enforce-metric-name=false',
        '-validation.max-label-names-per-series=5',
        '-validation.max-length-label-name=6',
        '-validation.max-length-label-value=7',
        '-validation.reject-old-samples',
        '-validation.reject-old-samples.max-age=1h',
        '-validation.create-grace-period=30s',
        '-validation.enforce-metadata-metric-name=false',
        '-validation.max-metadata-length=8',
        '-distributor.ingestion-rate-limit-strategy=global',
        '-distributor.ha-tracker.enable-for-all-users=true',
        '-distributor.ha-tracker.cluster=c',
        '-distributor.ha-tracker.replica=r',
        '-distributor.ha-tracker.max-clusters=9',
      ])
    ).limits;
    expect(limits).toMatchObject({
      enforce_metric_name: false,
      max_label_names_per_series: 5,
      max_label_name_length: 6,
      max_label_value_length: 7,
      reject_old_samples: true,
      reject_old_samples_max_age: HOUR,
      creation_grace_period: 30_000,
      enforce_metadata_metric_name: false,
      max_metadata_length: 8,
      ingestion_rate_strategy: 'global',
      accept_ha_samples: true,
      ha_cluster_label: 'c',
      ha_replica_label: 'r',
      ha_max_clusters: 9,
    });
  });

  it('reads every one from YAML, and a flag still wins over YAML', async () => {
    const yaml = `limits:
  enforce_metric_name: false
  max_label_names_per_series: 50
  max_label_name_length: 100
  max_label_value_length: 200
  reject_old_samples: true
  reject_old_samples_max_age: 168h
  creation_grace_period: 1m
  enforce_metadata_metric_name: false
  max_metadata_length: 300
  ingestion_rate_strategy: global
  accept_ha_samples: true
  ha_cluster_label: prom_cluster
  ha_replica_label: prom_replica
  ha_max_clusters: 4
`;
    const limits = (await load(['-distributor.ha-tracker.max-clusters=2'], yaml)).limits;
    expect(limits).toMatchObject({
      enforce_metric_name: false,
      max_label_names_per_series: 50,
      max_label_name_length: 100,
      max_label_value_length: 200,
      reject_old_samples: true,
      reject_old_samples_max_age: 168 * HOUR,
      creation_grace_period: MINUTE,
      enforce_metadata_metric_name: false,
      max_metadata_length: 300,
      ingestion_rate_strategy: 'global',
      accept_ha_samples: true,
      ha_cluster_label: 'prom_cluster',
      ha_replica_label: 'prom_replica',
      ha_max_clusters: 2,
    });
  });

  it('rejects an unknown rate strategy, naming the valid ones', async () => {
    await expect(load(['-distributor.ingestion-rate-limit-strategy=shared'])).rejects.toThrow(
      'invalid value "shared" for limits.ingestion_rate_strategy (-distributor.ingestion-rate-limit-strategy): valid values are local, global',
    );
    await expect(load([], 'limits:\n  ingestion_rate_strategy: Global\n')).rejects.toThrow(
      'valid values are local, global',
    );
  });

  it('rejects negative sizes, counts and ages', async () => {
    await expect(load(['-validation.max-length-label-name=-1'])).rejects.toThrow(
      'limits.max_label_name_length (-validation.max-length-label-name) is -1: it must not be negative',
    );
    await expect(load([], 'limits:\n  creation_grace_period: -5m\n')).rejects.toThrow(
      'limits.creation_grace_period (-validation.create-grace-period) is -5m0s: it must not be negative',
    );
    await expect(load(['-distributor.ha-tracker.max-clusters=-3'])).rejects.toThrow(
      'must not be negative',
    );
    // Zero is fine: it means "unlimited" for ha_max_clusters.
    expect((await load(['-distributor.ha-tracker.max-clusters=0'])).limits.ha_max_clusters).toBe(0);
  });

  it('shows every one in /config, durations in Go form', () => {
    const config = defaultConfig();
    config.limits.ha_replica_label = 'replica';
    const all = parse(renderConfig(config, 'all')) as { limits: Record<string, unknown> };
    expect(all.limits).toMatchObject({
      enforce_metric_name: true,
      max_label_names_per_series: 30,
      max_label_name_length: 1024,
      max_label_value_length: 2048,
      reject_old_samples: false,
      reject_old_samples_max_age: '336h0m0s',
      creation_grace_period: '10m0s',
      enforce_metadata_metric_name: true,
      max_metadata_length: 1024,
      ingestion_rate_strategy: 'local',
      accept_ha_samples: false,
      ha_cluster_label: 'cluster',
      ha_replica_label: 'replica',
      ha_max_clusters: 0,
    });
    expect(parse(renderConfig(config, 'diff'))).toEqual({
      limits: { ha_replica_label: 'replica' },
    });
  });
});
