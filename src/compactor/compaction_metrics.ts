/**
 * The compaction loop's metrics under Cortex's names (Cortex 1.21 `compactor.go`,
 * `compactor_metrics.go` for the default sharding strategy), plus Strata counters for what
 * Cortex only logs. `cortex_compactor_blocks_marked_for_deletion_total` is the cleaner's
 * counter (get-or-create): compaction counts its marks under `reason="compaction"`.
 */
import type { Counter, Gauge } from 'prom-client';
import {
  registeredCounter as counter,
  registeredGauge as gauge,
  type MetricsRegistry,
} from '../runtime/index.js';

/** `type` label of `cortex_compactor_compaction_error_total`. */
export type CompactionErrorType = 'retriable' | 'halt';

export interface CompactionMetrics {
  runsStarted: Counter;
  runsCompleted: Counter;
  runsFailed: Counter;
  runsInterrupted: Counter;
  runsLastSuccess: Gauge;
  tenantsDiscovered: Gauge;
  tenantsSkipped: Gauge;
  tenantsSucceeded: Gauge;
  tenantsFailed: Gauge;
  interval: Gauge;
  consistencyDelay: Gauge;
  blocksMarkedForDeletion: Counter<'user' | 'reason'>;
  blocksMarkedForNoCompaction: Counter;
  garbageCollectedBlocks: Counter;
  compactionErrors: Counter<'user' | 'type'>;
  metaSyncs: Counter;
  metaSyncFailures: Counter;
  metaSynced: Gauge<'state'>;
  groupCompactions: Counter<'resolution'>;
  groupRunsStarted: Counter<'resolution'>;
  groupRunsCompleted: Counter<'resolution'>;
  groupFailures: Counter<'resolution'>;
  groupVerticalCompactions: Counter<'resolution'>;
  groupPlanned: Counter<'resolution'>;
  /** Strata: source blocks that failed verification, by what was wrong. */
  corruptedBlocks: Counter<'user' | 'reason'>;
  /** Strata: meta.json files that could not be parsed, once per sync that met one. */
  corruptedMetas: Counter<'user'>;
  /** Strata: samples a vertical compaction dropped although their value differed from the kept one. */
  conflictingSamples: Counter<'user'>;
  /** Strata: vertical compactions that dropped at least one such sample. */
  conflictingCompactions: Counter<'user'>;
  garbageCollections: Counter;
  garbageCollectionFailures: Counter;
}

export function compactionMetrics(registry: MetricsRegistry): CompactionMetrics {
  const res = ['resolution'] as const;
  return {
    runsStarted: counter(
      registry,
      'cortex_compactor_runs_started_total',
      'Total number of compaction runs started.',
    ),
    runsCompleted: counter(
      registry,
      'cortex_compactor_runs_completed_total',
      'Total number of compaction runs successfully completed.',
    ),
    runsFailed: counter(
      registry,
      'cortex_compactor_runs_failed_total',
      'Total number of compaction runs failed.',
    ),
    runsInterrupted: counter(
      registry,
      'cortex_compactor_runs_interrupted_total',
      'Total number of compaction runs interrupted.',
    ),
    runsLastSuccess: gauge(
      registry,
      'cortex_compactor_last_successful_run_timestamp_seconds',
      'Unix timestamp of the last successful compaction run.',
    ),
    tenantsDiscovered: gauge(
      registry,
      'cortex_compactor_tenants_discovered',
      'Number of tenants discovered during the current compaction run. Reset to 0 when compactor is idle.',
    ),
    tenantsSkipped: gauge(
      registry,
      'cortex_compactor_tenants_skipped',
      'Number of tenants skipped during the current compaction run. Reset to 0 when compactor is idle.',
    ),
    tenantsSucceeded: gauge(
      registry,
      'cortex_compactor_tenants_processing_succeeded',
      'Number of tenants successfully processed during the current compaction run. Reset to 0 when compactor is idle.',
    ),
    tenantsFailed: gauge(
      registry,
      'cortex_compactor_tenants_processing_failed',
      'Number of tenants failed processing during the current compaction run. Reset to 0 when compactor is idle.',
    ),
    interval: gauge(
      registry,
      'cortex_compactor_compaction_interval_seconds',
      'The configured interval on which compaction is run in seconds.',
    ),
    consistencyDelay: gauge(
      registry,
      'cortex_compactor_meta_sync_consistency_delay_seconds',
      'Configured consistency delay in seconds.',
    ),
    blocksMarkedForDeletion: counter(
      registry,
      'cortex_compactor_blocks_marked_for_deletion_total',
      'Total number of blocks marked for deletion in compactor.',
      ['user', 'reason'] as const,
    ),
    blocksMarkedForNoCompaction: counter(
      registry,
      'cortex_compactor_blocks_marked_for_no_compaction_total',
      'Total number of blocks marked for no compact during a compaction run.',
    ),
    garbageCollectedBlocks: counter(
      registry,
      'cortex_compactor_garbage_collected_blocks_total',
      'Total number of blocks marked for deletion by compactor.',
    ),
    compactionErrors: counter(
      registry,
      'cortex_compactor_compaction_error_total',
      'Total number of errors from compactions.',
      ['user', 'type'] as const,
    ),
    metaSyncs: counter(
      registry,
      'cortex_compactor_meta_syncs_total',
      'Total blocks metadata synchronization attempts.',
    ),
    metaSyncFailures: counter(
      registry,
      'cortex_compactor_meta_sync_failures_total',
      'Total blocks metadata synchronization failures.',
    ),
    metaSynced: gauge(registry, 'cortex_compactor_meta_synced', 'Number of block metadata synced', [
      'state',
    ] as const),
    groupCompactions: counter(
      registry,
      'cortex_compactor_group_compactions_total',
      'Total number of group compaction attempts that resulted in a new block.',
      res,
    ),
    groupRunsStarted: counter(
      registry,
      'cortex_compactor_group_compaction_runs_started_total',
      'Total number of group compaction attempts.',
      res,
    ),
    groupRunsCompleted: counter(
      registry,
      'cortex_compactor_group_compaction_runs_completed_total',
      'Total number of group completed compaction runs. This also includes compactor group runs that resulted with no compaction.',
      res,
    ),
    groupFailures: counter(
      registry,
      'cortex_compactor_group_compactions_failures_total',
      'Total number of failed group compactions.',
      res,
    ),
    groupVerticalCompactions: counter(
      registry,
      'cortex_compactor_group_vertical_compactions_total',
      'Total number of group compaction attempts that resulted in a new block based on overlapping blocks.',
      res,
    ),
    groupPlanned: counter(
      registry,
      'cortex_compact_group_compaction_planned_total',
      'Total number of compaction planned.',
      res,
    ),
    corruptedBlocks: counter(
      registry,
      'strata_compactor_corrupted_blocks_total',
      'Source blocks that failed verification before compaction (then marked no-compact, or halting the tenant).',
      ['user', 'reason'] as const,
    ),
    corruptedMetas: counter(
      registry,
      'strata_compactor_corrupted_block_metas_total',
      'Blocks skipped by compaction because their meta.json could not be read, counted at every sync that met one.',
      ['user'] as const,
    ),
    conflictingSamples: counter(
      registry,
      'strata_compactor_vertical_compaction_conflicting_samples_total',
      'Samples dropped by vertical compaction although an overlapping block held a different value at the same timestamp (the earliest block in plan order wins).',
      ['user'] as const,
    ),
    conflictingCompactions: counter(
      registry,
      'strata_compactor_vertical_compactions_with_conflicts_total',
      'Vertical compactions whose overlapping sources disagreed on at least one sample value.',
      ['user'] as const,
    ),
    garbageCollections: counter(
      registry,
      'cortex_compactor_garbage_collection_total',
      'Total number of garbage collection operations.',
    ),
    garbageCollectionFailures: counter(
      registry,
      'cortex_compactor_garbage_collection_failures_total',
      'Total number of failed garbage collection operations.',
    ),
  };
}
