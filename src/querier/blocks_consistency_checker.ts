/**
 * Cortex's BlocksConsistencyChecker: after the store-gateways answered, every block the
 * finder knows must have been queried by one of them, except blocks store-gateways may not
 * have loaded yet (uploaded within `consistency_delay + 3×sync_interval`: ingesters still
 * serve their data, and a compactor's sources are still queried) and blocks they may have
 * dropped already (marked for deletion more than `ignore_deletion_mark_delay / 2` ago).
 */
import type { BucketIndexDeletionMark } from '../bucket/types.js';
import type { Clock, Logger } from '../runtime/index.js';
import type { FoundBlock } from './blocks_finder.js';
import type { BlocksQuerierMetrics } from './metrics.js';

/** Cortex's error when blocks stay missing after every attempt. */
export const CONSISTENCY_CHECK_FAILED_PREFIX =
  'consistency check failed because some blocks were not queried: ';

export interface BlocksConsistencyCheckerConfig {
  /** Blocks uploaded more recently are not expected (0 expects every block). */
  readonly uploadGracePeriodMs: number;
  /** Blocks marked for deletion longer ago are not expected (0 expects every block). */
  readonly deletionGracePeriodMs: number;
}

export interface BlocksConsistencyCheckerDeps {
  readonly clock: Clock;
  readonly logger: Logger;
  readonly metrics: BlocksQuerierMetrics;
}

/** The grace periods Cortex derives from the bucket-store settings. */
export function consistencyCheckerConfig(settings: {
  consistencyDelayMs: number;
  syncIntervalMs: number;
  ignoreDeletionMarksDelayMs: number;
}): BlocksConsistencyCheckerConfig {
  return {
    uploadGracePeriodMs: settings.consistencyDelayMs + 3 * settings.syncIntervalMs,
    deletionGracePeriodMs: settings.ignoreDeletionMarksDelayMs / 2,
  };
}

export class BlocksConsistencyChecker {
  constructor(
    private readonly config: BlocksConsistencyCheckerConfig,
    private readonly deps: BlocksConsistencyCheckerDeps,
  ) {}

  /** The IDs of expected blocks not in `queried`, in the order of `known`. */
  check(
    known: readonly FoundBlock[],
    deletionMarks: ReadonlyMap<string, BucketIndexDeletionMark>,
    queried: ReadonlySet<string>,
  ): string[] {
    const { clock, logger, metrics } = this.deps;
    metrics.consistencyChecks.inc();
    const now = clock.now();
    const { uploadGracePeriodMs, deletionGracePeriodMs } = this.config;
    const missing: string[] = [];
    for (const block of known) {
      if (uploadGracePeriodMs > 0 && now - block.uploaded_at * 1000 < uploadGracePeriodMs) {
        logger.debug('block skipped from consistency check because it was uploaded recently', {
          block: block.block_id,
          uploadedAt: block.uploaded_at,
        });
        continue;
      }
      const mark = deletionMarks.get(block.block_id);
      if (
        mark !== undefined &&
        deletionGracePeriodMs > 0 &&
        now - mark.deletion_time * 1000 > deletionGracePeriodMs
      ) {
        logger.debug('block skipped from consistency check because it is marked for deletion', {
          block: block.block_id,
          deletionTime: mark.deletion_time,
        });
        continue;
      }
      if (!queried.has(block.block_id)) missing.push(block.block_id);
    }
    if (missing.length > 0) metrics.consistencyChecksFailed.inc();
    return missing;
  }
}
