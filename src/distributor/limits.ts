import type { Overrides } from '../overrides/index.js';

/**
 * The per-tenant limits the distributor applies, with Cortex's names and defaults. Every field
 * is a key of the config's `limits` block and of the runtime-config overrides.
 */
export interface DistributorLimits {
  /** `ingestion_rate`: samples per second (plus exemplars and metadata, as Cortex counts). */
  ingestionRate: number;
  /** `ingestion_burst_size`. */
  ingestionBurstSize: number;
  /** `ingestion_rate_strategy`: `local` or `global` (divided by healthy distributors). */
  ingestionRateStrategy: 'local' | 'global';
  /** `enforce_metric_name`. */
  enforceMetricName: boolean;
  /** `max_label_names_per_series`. */
  maxLabelNamesPerSeries: number;
  /** `max_label_name_length` (bytes). */
  maxLabelNameLength: number;
  /** `max_label_value_length` (bytes). */
  maxLabelValueLength: number;
  /** `reject_old_samples`. */
  rejectOldSamples: boolean;
  /** `reject_old_samples_max_age` in milliseconds. */
  rejectOldSamplesMaxAgeMs: number;
  /** `creation_grace_period` in milliseconds. */
  creationGracePeriodMs: number;
  /** `enforce_metadata_metric_name`. */
  enforceMetadataMetricName: boolean;
  /** `max_metadata_length` (bytes). */
  maxMetadataLength: number;
  /** `accept_ha_samples`. */
  acceptHASamples: boolean;
  /** `ha_cluster_label`. */
  haClusterLabel: string;
  /** `ha_replica_label`. */
  haReplicaLabel: string;
  /** `ha_max_clusters`: 0 = unlimited. */
  haMaxClusters: number;
}

/** Cortex's defaults (pkg/util/validation/limits.go). */
export const DEFAULT_DISTRIBUTOR_LIMITS: Readonly<DistributorLimits> = Object.freeze({
  ingestionRate: 25000,
  ingestionBurstSize: 50000,
  ingestionRateStrategy: 'local',
  enforceMetricName: true,
  maxLabelNamesPerSeries: 30,
  maxLabelNameLength: 1024,
  maxLabelValueLength: 2048,
  rejectOldSamples: false,
  rejectOldSamplesMaxAgeMs: 14 * 24 * 3600 * 1000,
  creationGracePeriodMs: 10 * 60 * 1000,
  enforceMetadataMetricName: true,
  maxMetadataLength: 1024,
  acceptHASamples: false,
  haClusterLabel: 'cluster',
  haReplicaLabel: '__replica__',
  haMaxClusters: 0,
});

/** How components ask for a tenant's distributor limits. */
export type DistributorLimitsFn = (tenant: string) => DistributorLimits;

/**
 * A tenant's distributor limits from `Overrides`: the `limits` block (flags and YAML) merged
 * with the tenant's runtime-config entry, read on every call so a reload applies to the next
 * request. The rate strategy is the default's for every tenant, as in Cortex.
 */
export function distributorLimitsFromOverrides(overrides: Overrides): DistributorLimitsFn {
  return (tenant) => ({
    ingestionRate: overrides.ingestionRate(tenant),
    ingestionBurstSize: overrides.ingestionBurstSize(tenant),
    // Validation admits only these two; anything but "global" means local, as in Cortex.
    ingestionRateStrategy: overrides.ingestionRateStrategy() === 'global' ? 'global' : 'local',
    enforceMetricName: overrides.enforceMetricName(tenant),
    maxLabelNamesPerSeries: overrides.maxLabelNamesPerSeries(tenant),
    maxLabelNameLength: overrides.maxLabelNameLength(tenant),
    maxLabelValueLength: overrides.maxLabelValueLength(tenant),
    rejectOldSamples: overrides.rejectOldSamples(tenant),
    rejectOldSamplesMaxAgeMs: overrides.rejectOldSamplesMaxAge(tenant),
    creationGracePeriodMs: overrides.creationGracePeriod(tenant),
    enforceMetadataMetricName: overrides.enforceMetadataMetricName(tenant),
    maxMetadataLength: overrides.maxMetadataLength(tenant),
    acceptHASamples: overrides.acceptHASamples(tenant),
    haClusterLabel: overrides.haClusterLabel(tenant),
    haReplicaLabel: overrides.haReplicaLabel(tenant),
    haMaxClusters: overrides.haMaxClusters(tenant),
  });
}
