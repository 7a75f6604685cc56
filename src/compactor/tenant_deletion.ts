/**
 * The cleaner's part of tenant deletion (Cortex's deleteUserMarkedForDeletion). Once a tenant
 * carries a tenant deletion mark (written by the purger), each cleanup:
 *
 * 1. deletes its bucket index and sync status first, so readers see a tenant without blocks;
 * 2. deletes every block, marked or not, partial or not, in the safe delete order;
 * 3. when blocks went in this pass, or `finished_time` was never set, sets `finished_time`
 *    on the mark and stops there;
 * 4. once `finished_time` is `tenantCleanupDelayMs` old, deletes `<tenant>/debug/metas/`,
 *    `<tenant>/markers/` and finally the tenant deletion mark itself (global, then legacy).
 *
 * The delay exists for ingesters that have not seen the mark yet (they look at most hourly):
 * a block one of them ships meanwhile is deleted at the next cleanup and restarts the delay.
 * Every step tolerates objects already gone, so a crash anywhere is finished by the next run.
 */
import {
  MARKERS_DIR,
  deleteBlock,
  deleteBucketIndex,
  deleteIfExists,
  deleteSyncStatus,
  legacyTenantDeletionMarkPath,
  readTenantDeletionMark,
  tenantDeletionMarkPath,
  writeTenantDeletionMark,
} from '../bucket/index.js';
import { throwIfAborted } from '../runtime/index.js';
import { isCanonicalUlid } from '../tsdb/index.js';
import { forEachConcurrently } from './concurrency.js';
import type { TenantContext } from './cleaner_blocks.js';

/** Blocks deleted at once within one tenant (Cortex's defaultDeleteBlocksConcurrency). */
export const DELETE_BLOCKS_CONCURRENCY = 16;

/** Cortex's `-compactor.tenant-cleanup-delay` default: 6h. */
export const DEFAULT_TENANT_CLEANUP_DELAY_MS = 6 * 3_600_000;

/** Where Thanos tools leave debug copies of block metas (`block.DebugMetas`). */
export const DEBUG_METAS_DIR = 'debug/metas';

/** What one pass did for the tenant (for tests and the caller's log). */
export type TenantDeletionStage =
  /** Blocks were deleted or the mark got its `finished_time`: waiting for the cleanup delay. */
  | 'blocks-deleted'
  /** Nothing left but markers; the cleanup delay has not passed yet. */
  | 'waiting'
  /** Markers, debug files and the mark itself are gone: the tenant no longer exists. */
  | 'finished'
  /** The mark disappeared under us (removed by hand or by another compactor). */
  | 'mark-gone';

export async function deleteTenantMarkedForDeletion(
  ctx: TenantContext,
  tenantCleanupDelayMs: number,
): Promise<TenantDeletionStage> {
  const { bucket, tenant, logger, metrics, clock } = ctx;
  logger.info('deleting blocks for tenant marked for deletion');
  // Readers first: without an index queriers and store-gateways see a tenant without blocks.
  await deleteBucketIndex(bucket, tenant);
  await deleteSyncStatus(bucket, tenant);
  metrics.tenantIndexLastUpdate.remove({ user: tenant });

  const deleted = await deleteAllBlocks(ctx);
  for (const g of [
    metrics.tenantBlocks,
    metrics.tenantBlocksMarkedForDeletion,
    metrics.tenantBlocksMarkedForNoCompaction,
    metrics.tenantPartialBlocks,
  ]) {
    g.remove({ user: tenant });
  }
  if (deleted > 0) logger.info('deleted blocks for tenant marked for deletion', { deleted });

  const mark = await readTenantDeletionMark(bucket, tenant);
  if (mark === undefined) {
    // Cortex ends the tenant's pass here without an error; so do we, but say so.
    logger.warn('cannot find tenant deletion mark anymore');
    return 'mark-gone';
  }
  const nowS = Math.floor(clock.now() / 1000);
  if (deleted > 0 || mark.finished_time === undefined || mark.finished_time === 0) {
    logger.info('updating finished time in tenant deletion mark');
    mark.finished_time = nowS;
    await writeTenantDeletionMark(bucket, tenant, mark);
    return 'blocks-deleted';
  }
  if (clock.now() - mark.finished_time * 1000 < tenantCleanupDelayMs) return 'waiting';

  logger.info('cleaning up remaining blocks data for tenant marked for deletion');
  const debug = await deletePrefix(ctx, `${tenant}/${DEBUG_METAS_DIR}/`);
  if (debug > 0) {
    logger.info(`deleted files under ${DEBUG_METAS_DIR} for tenant marked for deletion`, {
      count: debug,
    });
  }
  // The legacy copy of the tenant deletion mark lives in markers/ too.
  const markers = await deletePrefix(ctx, `${tenant}/${MARKERS_DIR}/`);
  if (markers > 0) {
    logger.info('deleted marker files for tenant marked for deletion', { count: markers });
  }
  await deleteIfExists(bucket, tenantDeletionMarkPath(tenant));
  await deleteIfExists(bucket, legacyTenantDeletionMarkPath(tenant));
  logger.info('deleted tenant deletion mark: tenant deletion finished');
  return 'finished';
}

/**
 * Deletes every block directory of the tenant (up to DELETE_BLOCKS_CONCURRENCY at once) and
 * returns how many went. Blocks that fail are counted and logged, the others still go; the
 * tenant then fails with the gauges showing what is left (all of it as good as marked).
 */
async function deleteAllBlocks(ctx: TenantContext): Promise<number> {
  const { bucket, tenant, logger, metrics } = ctx;
  const prefix = `${tenant}/`;
  const blocks = (await bucket.list(prefix))
    .filter((e) => e.endsWith('/'))
    .map((e) => e.slice(prefix.length, -1))
    .filter((name) => isCanonicalUlid(name));
  let deleted = 0;
  const failures = await forEachConcurrently(
    blocks,
    DELETE_BLOCKS_CONCURRENCY,
    async (block) => {
      try {
        await deleteBlock(bucket, tenant, block, ctx.signal);
      } catch (err) {
        if (ctx.signal?.aborted !== true) {
          metrics.blockCleanupFailures.inc();
          logger.warn('failed to delete block', { block, err: (err as Error).message });
        }
        throw err;
      }
      deleted++;
      metrics.blocksCleaned.inc();
      logger.info('deleted block', { block });
    },
    ctx.signal,
  );
  if (failures.length > 0) {
    metrics.tenantBlocks.set({ user: tenant }, failures.length);
    metrics.tenantBlocksMarkedForDeletion.set({ user: tenant }, failures.length);
    metrics.tenantPartialBlocks.set({ user: tenant }, 0);
    throw new Error(`failed to delete ${failures.length} blocks`);
  }
  return deleted;
}

/** Deletes every object under `prefix` (recursively); returns how many were deleted. */
async function deletePrefix(ctx: TenantContext, prefix: string): Promise<number> {
  let deleted = 0;
  for (const name of await ctx.bucket.list(prefix, { recursive: true })) {
    throwIfAborted(ctx.signal);
    await deleteIfExists(ctx.bucket, name);
    deleted++;
  }
  return deleted;
}
