import type { Overrides } from '../overrides/index.js';

/**
 * The per-tenant limits the distributor applies, with Cortex's names and defaults. Only
 * `ingestion_rate` and `ingestion_burst_size` exist in the config's `limits` block today; the
 * others come from `DEFAULT_DISTRIBUTOR_LIMITS` (or the `static` argument) until the config
 * grows them.
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
 * Limits from `Overrides` for the fields the config has (ingestion rate and burst, including
 * runtime-config overrides), and `fixed` for the rest.
 */
export function distributorLimitsFromOverrides(
  overrides: Overrides,
  fixed: Partial<DistributorLimits> = {},
): DistributorLimitsFn {
  const base: DistributorLimits = { ...DEFAULT_DISTRIBUTOR_LIMITS, ...fixed };
  return (tenant) => ({
    ...base,
    ingestionRate: overrides.ingestionRate(tenant),
    ingestionBurstSize: overrides.ingestionBurstSize(tenant),
  });
}
