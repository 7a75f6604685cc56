/**
 * The blocks cleaner (Cortex's BlocksCleaner): for every tenant this compactor owns, keep
 * the bucket index up to date and delete what is due. Per active tenant: read the index
 * (rebuild it when missing or unreadable), apply retention, update it from the bucket, delete
 * blocks whose deletion mark is older than the deletion delay, delete safe partial blocks,
 * then write the index and its sync status, or delete both when the tenant has nothing left.
 * Tenants with a deletion mark lose all their blocks, then, after the tenant cleanup delay,
 * their markers and the mark itself (tenant_deletion.ts). A tenant that fails is logged and
 * counted and never stops the others.
 */
import type { Counter } from 'prom-client';
import {
  BucketIndexCorruptedError,
  BucketIndexNotFoundError,
  BucketIndexUpdater,
  deleteBucketIndex,
  deleteIfExists,
  deleteSyncStatus,
  globalDeletionMarkPath,
  isBucketIndexEmpty,
  migrateDeletionMarksToGlobal,
  readBucketIndex,
  readSyncStatus,
  scanTenants,
  unknownSyncStatus,
  writeBucketIndex,
  writeSyncStatus,
  type BucketIndex,
  type BucketIndexSyncStatus,
} from '../bucket/index.js';
import {
  isAbortError,
  registeredCounter,
  type Bucket,
  type Clock,
  type Logger,
  type MetricsRegistry,
} from '../runtime/index.js';
import { isCanonicalUlid } from '../tsdb/index.js';
import {
  applyRetention,
  cleanPartialBlocks,
  deleteMarkedBlocks,
  type TenantContext,
} from './cleaner_blocks.js';
import { forEachConcurrently, type ItemFailure } from './concurrency.js';
import {
  cleanerMetrics,
  forgetTenantMetrics,
  type CleanerMetrics,
  type CleanupUserStatus,
} from './metrics.js';
import {
  DEFAULT_TENANT_CLEANUP_DELAY_MS,
  deleteTenantMarkedForDeletion,
  type TenantDeletionStage,
} from './tenant_deletion.js';

export interface BlocksCleanerConfig {
  /** `-compactor.deletion-delay`: marked blocks are deleted once the mark is older; 0 at once. */
  deletionDelayMs: number;
  /** `-compactor.cleanup-concurrency`: tenants cleaned at the same time. */
  cleanupConcurrency: number;
  /** Opt-in (Mimir's rule, off in Cortex): delete partial blocks untouched this long. 0: off. */
  partialBlockDeletionDelayMs?: number;
  /** `-compactor.block-deletion-marks-migration-enabled`: copy block-only marks to `markers/` at startup. */
  blockDeletionMarksMigrationEnabled?: boolean;
  /**
   * `-compactor.tenant-cleanup-delay` (6h): how long after a deleted tenant's last block went
   * its markers and tenant deletion mark are removed.
   */
  tenantCleanupDelayMs?: number;
}

export interface BlocksCleanerDeps {
  bucket: Bucket;
  clock: Clock;
  logger: Logger;
  metrics: MetricsRegistry;
  /** Whether this compactor cleans the tenant now; a throw skips it for this run (logged). */
  isOwned?: (tenant: string) => boolean;
  /** The tenant's blocks retention in ms (`compactor_blocks_retention_period`); 0 keeps all. */
  retentionPeriodMs?: (tenant: string) => number;
}

export interface CleanupOutcome {
  /** The tenants this run worked on. */
  tenants: string[];
  failed: ItemFailure<string>[];
}

export interface CleanupRunResult {
  active: CleanupOutcome;
  deleted: CleanupOutcome;
}

export class BlocksCleaner {
  readonly metrics: CleanerMetrics;
  /** Strata: global deletion marks found without their block and removed (bad input). */
  private readonly orphanMarks: Counter;
  private readonly logger: Logger;
  /** Tenants owned at the last scan, whose per-tenant series this instance exports. */
  private lastOwned: string[] = [];

  constructor(
    private readonly config: BlocksCleanerConfig,
    private readonly deps: BlocksCleanerDeps,
  ) {
    if (!Number.isSafeInteger(config.cleanupConcurrency) || config.cleanupConcurrency < 1) {
      throw new RangeError(`cleanup concurrency must be >= 1, got ${config.cleanupConcurrency}`);
    }
    if (!(config.deletionDelayMs >= 0)) {
      throw new RangeError(`deletion delay must be >= 0, got ${config.deletionDelayMs}ms`);
    }
    const cleanupDelay = config.tenantCleanupDelayMs ?? DEFAULT_TENANT_CLEANUP_DELAY_MS;
    if (!(cleanupDelay >= 0)) {
      throw new RangeError(`tenant cleanup delay must be >= 0, got ${cleanupDelay}ms`);
    }
    this.metrics = cleanerMetrics(deps.metrics);
    this.orphanMarks = registeredCounter(
      deps.metrics,
      'strata_compactor_orphan_deletion_marks_removed_total',
      'Global block deletion marks (markers/<block>-deletion-mark.json) found without their block and removed by the cleaner.',
      [],
    );
    this.logger = deps.logger.child({ component: 'cleaner' });
  }

  /**
   * One cleanup of every owned tenant: active tenants first, then deleting ones, each group
   * counted under its `user_status`. Undefined when the tenants could not be listed or the
   * run was aborted.
   */
  async runCleanup(signal: AbortSignal, firstRun: boolean): Promise<CleanupRunResult | undefined> {
    let scan: { active: string[]; deleting: string[] };
    try {
      scan = await this.scanOwnedTenants();
    } catch (err) {
      if (signal.aborted) return undefined;
      this.logger.error('failed to scan users for blocks cleanup and maintenance', {
        err: (err as Error).message,
      });
      this.metrics.runsFailed.inc({ user_status: 'active' });
      this.metrics.runsFailed.inc({ user_status: 'deleted' });
      return undefined;
    }
    try {
      const active = await this.runGroup('active', scan.active, signal, (t) =>
        this.cleanTenant(t, firstRun, signal),
      );
      const deleted = await this.runGroup('deleted', scan.deleting, signal, async (t) => {
        await this.deleteTenant(t, signal);
      });
      return { active, deleted };
    } catch (err) {
      if (!isAbortError(err)) throw err;
      this.logger.info('canceled blocks cleanup and maintenance');
      return undefined;
    }
  }

  private async runGroup(
    status: CleanupUserStatus,
    tenants: string[],
    signal: AbortSignal,
    clean: (tenant: string) => Promise<void>,
  ): Promise<CleanupOutcome> {
    this.logger.info(`started blocks cleanup and maintenance for ${status} users`);
    this.metrics.runsStarted.inc({ user_status: status });
    const failed = await forEachConcurrently(
      tenants,
      this.config.cleanupConcurrency,
      clean,
      signal,
    );
    if (failed.length === 0) {
      this.logger.info(`successfully completed blocks cleanup and maintenance for ${status} users`);
      this.metrics.runsCompleted.inc({ user_status: status });
      this.metrics.runsLastSuccess.set({ user_status: status }, this.deps.clock.now() / 1000);
    } else {
      this.logger.error(`failed to run blocks cleanup and maintenance for ${status} users`, {
        failed: failed.map((f) => `${f.item}: ${f.error.message}`),
      });
      this.metrics.runsFailed.inc({ user_status: status });
    }
    return { tenants, failed };
  }

  /** The bucket's tenants this instance owns; forgets the series of tenants it no longer owns. */
  private async scanOwnedTenants(): Promise<{ active: string[]; deleting: string[] }> {
    const scan = await scanTenants(this.deps.bucket);
    const owned = (t: string): boolean => {
      if (this.deps.isOwned === undefined) return true;
      try {
        return this.deps.isOwned(t);
      } catch (err) {
        this.logger.warn('unable to check if user is owned by this shard', {
          user: t,
          err: (err as Error).message,
        });
        return false;
      }
    };
    const active = scan.active.filter(owned);
    const deleting = scan.deleting.filter(owned);
    const now = new Set([...active, ...deleting]);
    for (const tenant of this.lastOwned) {
      if (now.has(tenant)) continue;
      forgetTenantMetrics(this.metrics, tenant);
      this.metrics.corruptedBlockMetas.remove({ user: tenant });
      this.metrics.corruptedIndexes.remove({ user: tenant });
    }
    this.lastOwned = [...now];
    return { active, deleting };
  }

  private context(tenant: string, signal: AbortSignal | undefined): TenantContext {
    return {
      tenant,
      bucket: this.deps.bucket,
      clock: this.deps.clock,
      logger: this.logger.child({ user: tenant }),
      metrics: this.metrics,
      signal,
    };
  }

  /**
   * One pass over a tenant marked for deletion: removes its blocks, records when that
   * finished, and after the tenant cleanup delay removes what is left (tenant_deletion.ts).
   */
  async deleteTenant(tenant: string, signal?: AbortSignal): Promise<TenantDeletionStage> {
    const ctx = this.context(tenant, signal);
    try {
      return await deleteTenantMarkedForDeletion(
        ctx,
        this.config.tenantCleanupDelayMs ?? DEFAULT_TENANT_CLEANUP_DELAY_MS,
      );
    } catch (err) {
      if (!isAbortError(err)) {
        ctx.logger.warn('failed to delete tenant marked for deletion', {
          err: (err as Error).message,
        });
      }
      throw err;
    }
  }

  /** One cleanup of an active tenant; rejects (after logging) when the tenant failed. */
  async cleanTenant(tenant: string, firstRun: boolean, signal?: AbortSignal): Promise<void> {
    const ctx = this.context(tenant, signal);
    const started = this.deps.clock.now();
    ctx.logger.info('started blocks cleanup and maintenance');
    try {
      await this.cleanTenantOnce(ctx, firstRun);
    } catch (err) {
      if (!isAbortError(err)) {
        ctx.logger.warn('failed blocks cleanup and maintenance', { err: (err as Error).message });
      }
      throw err;
    }
    ctx.logger.info('completed blocks cleanup and maintenance', {
      duration_ms: this.deps.clock.now() - started,
    });
  }

  private async cleanTenantOnce(ctx: TenantContext, firstRun: boolean): Promise<void> {
    const { bucket, tenant, logger, metrics } = ctx;
    if (firstRun && this.config.blockDeletionMarksMigrationEnabled === true) {
      await this.migrateMarks(ctx);
    }
    const status = await this.readStatus(ctx);
    status.status = 'Ok';
    status.sync_ime = Math.floor(this.deps.clock.now() / 1000);
    let indexDeleted = false;
    try {
      const old = await this.readOldIndex(ctx, status);
      if (old !== undefined) {
        await applyRetention(ctx, old, this.deps.retentionPeriodMs?.(tenant) ?? 0);
      }
      const updater = new BucketIndexUpdater({ tenant }, { bucket, clock: ctx.clock, logger });
      const update = await updater.update(old, ctx.signal).catch((err: unknown) => {
        status.status = 'GenericError';
        throw err;
      });
      const index = update.index;
      for (const p of update.partials) {
        if (p.reason === 'corrupted-meta') metrics.corruptedBlockMetas.inc({ user: tenant });
      }
      await this.tidyMarks(ctx, update.legacyDeletionMarks, update.orphanDeletionMarks);

      const deleted = new Set(await deleteMarkedBlocks(ctx, index, this.config.deletionDelayMs));
      const partials = await cleanPartialBlocks(
        ctx,
        update.partials.filter((p) => !deleted.has(p.block)),
        index,
        this.config.partialBlockDeletionDelayMs ?? 0,
      );

      if (isBucketIndexEmpty(index) && partials.length === 0) {
        logger.info('deleting bucket index since it is empty');
        await deleteBucketIndex(bucket, tenant);
        indexDeleted = true;
      } else {
        await writeBucketIndex(bucket, tenant, index);
      }
      metrics.tenantBlocks.set({ user: tenant }, index.blocks.length);
      metrics.tenantBlocksMarkedForDeletion.set(
        { user: tenant },
        index.block_deletion_marks.length,
      );
      metrics.tenantBlocksMarkedForNoCompaction.set({ user: tenant }, update.noCompactMarks);
      metrics.tenantPartialBlocks.set({ user: tenant }, partials.length);
      metrics.tenantIndexLastUpdate.set({ user: tenant }, Math.floor(ctx.clock.now() / 1000));
    } finally {
      if (ctx.signal?.aborted !== true) await this.finishStatus(ctx, status, indexDeleted);
    }
  }

  private async readStatus(ctx: TenantContext): Promise<BucketIndexSyncStatus> {
    try {
      return await readSyncStatus(ctx.bucket, ctx.tenant);
    } catch (err) {
      ctx.logger.warn('error reading the bucket index status', { err: (err as Error).message });
      return unknownSyncStatus();
    }
  }

  /** The index to update, or undefined to rebuild it from the bucket. */
  private async readOldIndex(
    ctx: TenantContext,
    status: BucketIndexSyncStatus,
  ): Promise<BucketIndex | undefined> {
    try {
      return await readBucketIndex(ctx.bucket, ctx.tenant);
    } catch (err) {
      if (err instanceof BucketIndexNotFoundError) return undefined;
      if (err instanceof BucketIndexCorruptedError) {
        ctx.metrics.corruptedIndexes.inc({ user: ctx.tenant });
        ctx.logger.warn('found a corrupted bucket index, recreating it', { err: err.message });
        return undefined;
      }
      status.status = 'GenericError';
      throw err;
    }
  }

  /**
   * Best effort, as in Cortex: a status that cannot be written is logged; the next cleanup
   * writes it again.
   */
  private async finishStatus(
    ctx: TenantContext,
    status: BucketIndexSyncStatus,
    indexDeleted: boolean,
  ): Promise<void> {
    try {
      if (indexDeleted) await deleteSyncStatus(ctx.bucket, ctx.tenant);
      else await writeSyncStatus(ctx.bucket, ctx.tenant, status);
    } catch (err) {
      ctx.logger.warn(
        indexDeleted
          ? 'error deleting index sync status when index is empty'
          : 'failed to upload index sync status',
        { err: (err as Error).message },
      );
    }
  }

  /**
   * Gives block-only deletion marks their global copy and removes global marks whose block
   * is gone (left by a delete interrupted between the two copies). Best effort.
   */
  private async tidyMarks(
    ctx: TenantContext,
    legacy: readonly string[],
    orphans: readonly string[],
  ): Promise<void> {
    if (legacy.length > 0) {
      const { migrated, errors } = await migrateDeletionMarksToGlobal(
        ctx.bucket,
        ctx.tenant,
        legacy,
      );
      if (migrated.length > 0) ctx.logger.info('mirrored block deletion marks', { migrated });
      for (const err of errors) {
        ctx.logger.warn('failed to mirror a block deletion mark', { err: err.message });
      }
    }
    for (const block of orphans) {
      try {
        await deleteIfExists(ctx.bucket, globalDeletionMarkPath(ctx.tenant, block));
        this.orphanMarks.inc();
        ctx.logger.info('deleted deletion mark of a block no longer in the bucket', { block });
      } catch (err) {
        ctx.logger.warn('failed to delete an orphan deletion mark', {
          block,
          err: (err as Error).message,
        });
      }
    }
  }

  /** Cortex's first-run migration of block-only deletion marks to `markers/`. */
  private async migrateMarks(ctx: TenantContext): Promise<void> {
    try {
      const prefix = `${ctx.tenant}/`;
      const blocks = (await ctx.bucket.list(prefix))
        .filter((e) => e.endsWith('/'))
        .map((e) => e.slice(prefix.length, -1))
        .filter((b) => isCanonicalUlid(b));
      const { errors } = await migrateDeletionMarksToGlobal(ctx.bucket, ctx.tenant, blocks);
      if (errors.length > 0) throw errors[0] as Error;
      ctx.logger.info('migrated block deletion marks to the global markers location');
    } catch (err) {
      ctx.logger.warn('failed to migrate block deletion marks to the global markers location', {
        err: (err as Error).message,
      });
    }
  }
}
