/**
 * Builds the querier's blocks finder from the bucket-store settings: the bucket index when
 * `-blocks-storage.bucket-store.bucket-index.enabled` (the default), a bucket scan otherwise.
 */
import type { Bucket, Clock, Logger, MetricsRegistry } from '../runtime/index.js';
import type { BlocksFinder } from './blocks_finder.js';
import { BucketIndexBlocksFinder } from './blocks_finder_bucket_index.js';
import { BucketScanBlocksFinder } from './blocks_finder_bucket_scan.js';

export interface BlocksFinderSettings {
  /** `…bucket-store.bucket-index.enabled`. */
  readonly bucketIndexEnabled: boolean;
  /** `…bucket-store.sync-interval`: index refresh or scan period. */
  readonly syncIntervalMs: number;
  /** `…bucket-index.update-on-error-interval` (also the scan's first-scan retry delay). */
  readonly updateOnErrorIntervalMs: number;
  /** `…bucket-index.idle-timeout`. */
  readonly idleTimeoutMs: number;
  /** `…bucket-index.max-stale-period`. */
  readonly maxStalePeriodMs: number;
  /** `…bucket-store.ignore-deletion-marks-delay`. */
  readonly ignoreDeletionMarksDelayMs: number;
  /** `…bucket-store.tenant-sync-concurrency` (bucket scan). */
  readonly tenantSyncConcurrency: number;
}

export interface BlocksFinderDeps {
  readonly bucket: Bucket;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly metrics: MetricsRegistry;
}

/** Cortex checks its cached bucket indexes every minute. */
const INDEX_CHECK_INTERVAL_MS = 60_000;

export function newBlocksFinder(
  settings: BlocksFinderSettings,
  deps: BlocksFinderDeps,
): BlocksFinder {
  if (settings.bucketIndexEnabled) {
    return new BucketIndexBlocksFinder(
      {
        checkIntervalMs: INDEX_CHECK_INTERVAL_MS,
        syncIntervalMs: settings.syncIntervalMs,
        updateOnErrorIntervalMs: settings.updateOnErrorIntervalMs,
        idleTimeoutMs: settings.idleTimeoutMs,
        maxStalePeriodMs: settings.maxStalePeriodMs,
        ignoreDeletionMarksDelayMs: settings.ignoreDeletionMarksDelayMs,
      },
      deps,
    );
  }
  return new BucketScanBlocksFinder(
    {
      scanIntervalMs: settings.syncIntervalMs,
      retryIntervalMs: settings.updateOnErrorIntervalMs,
      ignoreDeletionMarksDelayMs: settings.ignoreDeletionMarksDelayMs,
      tenantsConcurrency: settings.tenantSyncConcurrency,
    },
    { bucket: deps.bucket, clock: deps.clock, logger: deps.logger },
  );
}
