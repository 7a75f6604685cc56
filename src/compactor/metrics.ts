/**
 * The cleaner's metrics, under Cortex's names and labels (Cortex 1.21 `blocks_cleaner.go`)
 * so dashboards and alerts written for Cortex work unchanged, plus two Strata counters for
 * errors Cortex only logs. Registration is get-or-create: the compaction loop (a later
 * issue) shares `cortex_compactor_blocks_marked_for_deletion_total` with the cleaner.
 */
import type { Counter, Gauge } from 'prom-client';
import { registeredCounter as counter, registeredGauge as gauge } from '../runtime/index.js';
import type { MetricsRegistry } from '../runtime/index.js';

/** Label value of the runs metrics: cleanup of active tenants or of tenants being deleted. */
export type CleanupUserStatus = 'active' | 'deleted';

export interface CleanerMetrics {
  runsStarted: Counter<'user_status'>;
  runsCompleted: Counter<'user_status'>;
  runsFailed: Counter<'user_status'>;
  runsLastSuccess: Gauge<'user_status'>;
  blocksCleaned: Counter;
  blockCleanupFailures: Counter;
  blocksMarkedForDeletion: Counter<'user' | 'reason'>;
  tenantBlocks: Gauge<'user'>;
  tenantBlocksMarkedForDeletion: Gauge<'user'>;
  tenantBlocksMarkedForNoCompaction: Gauge<'user'>;
  tenantPartialBlocks: Gauge<'user'>;
  tenantIndexLastUpdate: Gauge<'user'>;
  /** Strata: a block skipped because its meta.json is unreadable, once per cleanup that met it. */
  corruptedBlockMetas: Counter<'user'>;
  /** Strata: a bucket index found unreadable and rebuilt from the bucket. */
  corruptedIndexes: Counter<'user'>;
}

export function cleanerMetrics(registry: MetricsRegistry): CleanerMetrics {
  const status = ['user_status'] as const;
  const user = ['user'] as const;
  return {
    runsStarted: counter(
      registry,
      'cortex_compactor_block_cleanup_started_total',
      'Total number of blocks cleanup runs started.',
      status,
    ),
    runsCompleted: counter(
      registry,
      'cortex_compactor_block_cleanup_completed_total',
      'Total number of blocks cleanup runs successfully completed.',
      status,
    ),
    runsFailed: counter(
      registry,
      'cortex_compactor_block_cleanup_failed_total',
      'Total number of blocks cleanup runs failed.',
      status,
    ),
    runsLastSuccess: gauge(
      registry,
      'cortex_compactor_block_cleanup_last_successful_run_timestamp_seconds',
      'Unix timestamp of the last successful blocks cleanup run.',
      status,
    ),
    blocksCleaned: counter(
      registry,
      'cortex_compactor_blocks_cleaned_total',
      'Total number of blocks deleted.',
      [],
    ),
    blockCleanupFailures: counter(
      registry,
      'cortex_compactor_block_cleanup_failures_total',
      'Total number of blocks failed to be deleted.',
      [],
    ),
    blocksMarkedForDeletion: counter(
      registry,
      'cortex_compactor_blocks_marked_for_deletion_total',
      'Total number of blocks marked for deletion in compactor.',
      ['user', 'reason'] as const,
    ),
    tenantBlocks: gauge(
      registry,
      'cortex_bucket_blocks_count',
      'Total number of blocks in the bucket. Includes blocks marked for deletion, but not partial blocks.',
      user,
    ),
    tenantBlocksMarkedForDeletion: gauge(
      registry,
      'cortex_bucket_blocks_marked_for_deletion_count',
      'Total number of blocks marked for deletion in the bucket.',
      user,
    ),
    tenantBlocksMarkedForNoCompaction: gauge(
      registry,
      'cortex_bucket_blocks_marked_for_no_compaction_count',
      'Total number of blocks marked for no compaction in the bucket.',
      user,
    ),
    tenantPartialBlocks: gauge(
      registry,
      'cortex_bucket_blocks_partials_count',
      'Total number of partial blocks.',
      user,
    ),
    tenantIndexLastUpdate: gauge(
      registry,
      'cortex_bucket_index_last_successful_update_timestamp_seconds',
      "Timestamp of the last successful update of a tenant's bucket index.",
      user,
    ),
    corruptedBlockMetas: counter(
      registry,
      'strata_bucket_index_corrupted_block_metas_total',
      'Blocks left out of the bucket index because their meta.json could not be read, counted at every cleanup that met one.',
      user,
    ),
    corruptedIndexes: counter(
      registry,
      'strata_bucket_index_corrupted_total',
      'Bucket indexes found unreadable by the cleaner and rebuilt from the bucket.',
      user,
    ),
  };
}

/** Drops a tenant's per-tenant series (it moved to another compactor or is gone). */
export function forgetTenantMetrics(m: CleanerMetrics, tenant: string): void {
  for (const g of [
    m.tenantBlocks,
    m.tenantBlocksMarkedForDeletion,
    m.tenantBlocksMarkedForNoCompaction,
    m.tenantPartialBlocks,
    m.tenantIndexLastUpdate,
  ]) {
    g.remove({ user: tenant });
  }
}
