import { describe, expect, it } from 'vitest';
import { defaultConfig, type LimitsConfig } from '../config/index.js';
import { Overrides, parseRuntimeConfig, type RuntimeConfig } from '../overrides/index.js';
import { DEFAULT_DISTRIBUTOR_LIMITS, distributorLimitsFromOverrides } from './limits.js';

function overridesWith(runtimeYaml: string, defaults: Partial<LimitsConfig> = {}): Overrides {
  const runtime: RuntimeConfig = parseRuntimeConfig(runtimeYaml);
  return new Overrides({ ...defaultConfig().limits, ...defaults }, { current: () => runtime });
}

describe('distributorLimitsFromOverrides', () => {
  it("gives Cortex's defaults when nothing is configured", () => {
    const limits = distributorLimitsFromOverrides(overridesWith(''));
    expect(limits('anyone')).toEqual(DEFAULT_DISTRIBUTOR_LIMITS);
  });

  it('takes every field from the static limits block', () => {
    const limits = distributorLimitsFromOverrides(
      overridesWith('', {
        ingestion_rate: 100,
        ingestion_burst_size: 200,
        ingestion_rate_strategy: 'global',
        enforce_metric_name: false,
        max_label_names_per_series: 5,
        max_label_name_length: 6,
        max_label_value_length: 7,
        reject_old_samples: true,
        reject_old_samples_max_age: 3_600_000,
        creation_grace_period: 60_000,
        enforce_metadata_metric_name: false,
        max_metadata_length: 8,
        accept_ha_samples: true,
        ha_cluster_label: 'c',
        ha_replica_label: 'r',
        ha_max_clusters: 9,
      }),
    );
    expect(limits('t')).toEqual({
      ingestionRate: 100,
      ingestionBurstSize: 200,
      ingestionRateStrategy: 'global',
      enforceMetricName: false,
      maxLabelNamesPerSeries: 5,
      maxLabelNameLength: 6,
      maxLabelValueLength: 7,
      rejectOldSamples: true,
      rejectOldSamplesMaxAgeMs: 3_600_000,
      creationGracePeriodMs: 60_000,
      enforceMetadataMetricName: false,
      maxMetadataLength: 8,
      acceptHASamples: true,
      haClusterLabel: 'c',
      haReplicaLabel: 'r',
      haMaxClusters: 9,
    });
  });

  it("applies a tenant's runtime-config overrides to that tenant only", () => {
    const limits = distributorLimitsFromOverrides(
      overridesWith(`
overrides:
  big:
    ingestion_rate: 1000000
    ingestion_burst_size: 2000000
    enforce_metric_name: false
    max_label_names_per_series: 60
    max_label_name_length: 100
    max_label_value_length: 4096
    reject_old_samples: true
    reject_old_samples_max_age: 1h
    creation_grace_period: 30s
    enforce_metadata_metric_name: false
    max_metadata_length: 10
    accept_ha_samples: true
    ha_cluster_label: prom_cluster
    ha_replica_label: prom_replica
    ha_max_clusters: 3
`),
    );
    expect(limits('big')).toEqual({
      ingestionRate: 1e6,
      ingestionBurstSize: 2e6,
      ingestionRateStrategy: 'local',
      enforceMetricName: false,
      maxLabelNamesPerSeries: 60,
      maxLabelNameLength: 100,
      maxLabelValueLength: 4096,
      rejectOldSamples: true,
      rejectOldSamplesMaxAgeMs: 3_600_000,
      creationGracePeriodMs: 30_000,
      enforceMetadataMetricName: false,
      maxMetadataLength: 10,
      acceptHASamples: true,
      haClusterLabel: 'prom_cluster',
      haReplicaLabel: 'prom_replica',
      haMaxClusters: 3,
    });
    expect(limits('small')).toEqual(DEFAULT_DISTRIBUTOR_LIMITS);
  });

  it('keeps the default rate strategy even when a tenant overrides it (as Cortex does)', () => {
    const limits = distributorLimitsFromOverrides(
      overridesWith('overrides:\n  t:\n    ingestion_rate_strategy: global\n'),
    );
    expect(limits('t').ingestionRateStrategy).toBe('local');
    const globalDefault = distributorLimitsFromOverrides(
      overridesWith('overrides:\n  t:\n    ingestion_rate_strategy: local\n', {
        ingestion_rate_strategy: 'global',
      }),
    );
    expect(globalDefault('t').ingestionRateStrategy).toBe('global');
  });

  it('reads the runtime config on every call, so a reload reaches the next request', () => {
    let runtime = parseRuntimeConfig('');
    const overrides = new Overrides(defaultConfig().limits, { current: () => runtime });
    const limits = distributorLimitsFromOverrides(overrides);
    expect(limits('t').acceptHASamples).toBe(false);
    runtime = parseRuntimeConfig('overrides:\n  t:\n    accept_ha_samples: true\n');
    expect(limits('t').acceptHASamples).toBe(true);
  });
});
