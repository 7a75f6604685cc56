/**
 * The cleaner's part of tenant deletion (Cortex's deleteUserMarkedForDeletion): once a tenant
 * carries a tenant deletion mark, its bucket index and sync status go first (readers then see
 * a tenant without blocks), then every block, marked or not, in the safe delete order; when
 * nothing is left, `finished_time` is set on the mark. Removing the mark, `markers/` and
 * `debug/` after the tenant cleanup delay belongs to the purger and is not done here.
 */
import {
  deleteBlock,
  deleteBucketIndex,
  deleteSyncStatus,
  readTenantDeletionMark,
  writeTenantDeletionMark,
} from '../bucket/index.js';
import { isCanonicalUlid } from '../tsdb/index.js';
import { forEachConcurrently } from './concurrency.js';
import type { TenantContext } from './cleaner_blocks.js';

/** Blocks deleted at once within one tenant (Cortex's defaultDeleteBlocksConcurrency). */
export const DELETE_BLOCKS_CONCURRENCY = 16;

export async function deleteTenantMarkedForDeletion(ctx: TenantContext): Promise<void> {
  const { bucket, tenant, logger, metrics } = ctx;
  logger.info('deleting blocks for tenant marked for deletion');
  await deleteBucketIndex(bucket, tenant);
  await deleteSyncStatus(bucket, tenant);
  metrics.tenantIndexLastUpdate.remove({ user: tenant });

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
    // What is left is as good as marked: the next cleanup deletes it again.
    metrics.tenantBlocks.set({ user: tenant }, failures.length);
    metrics.tenantBlocksMarkedForDeletion.set({ user: tenant }, failures.length);
    metrics.tenantPartialBlocks.set({ user: tenant }, 0);
    throw new Error(`failed to delete ${failures.length} blocks of tenant ${tenant}`);
  }
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
  if (mark === undefined)
    throw new Error(`cannot find the tenant deletion mark of ${tenant} anymore`);
  // Set when blocks went in this pass, or when the tenant had none left to begin with.
  if (deleted > 0 || mark.finished_time === undefined || mark.finished_time === 0) {
    logger.info('updating finished time in tenant deletion mark');
    mark.finished_time = Math.floor(ctx.clock.now() / 1000);
    await writeTenantDeletionMark(bucket, tenant, mark);
  }
}
