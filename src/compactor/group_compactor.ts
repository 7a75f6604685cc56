/**
 * One compaction of one group (Thanos's Group.Compact): plan, download the planned blocks
 * into `<data_dir>/compact/<tenant>/<group key>/`, verify them, merge them with the streaming
 * compaction, verify the output's index, check ownership once more, upload the output
 * (meta.json last) and only then mark each source for deletion ("source of compacted
 * block"). The work directory is removed afterwards, whatever happened.
 *
 * A vertical merge keeps the earliest source's value at each timestamp (plan order: minTime,
 * then ULID) and counts the samples it drops although their value differs from the kept one
 * (tsdb/compact/sample_conflicts.ts); those are counted in metrics and logged, and the
 * compaction goes on, as Prometheus's does.
 *
 * A source that fails verification is marked no-compact and the group is planned again
 * without it: out-of-order chunks with reason `block-index-out-of-order-chunk` when
 * `skip_blocks_with_out_of_order_chunks_enabled` (otherwise the tenant halts, as in Cortex),
 * anything else with Strata's reason `block-corrupted` (Cortex halts there; a halted tenant
 * is never compacted again until someone writes that mark by hand). If no sample survives the
 * merge, the sources are marked for deletion and nothing is uploaded. If the tenant moved to
 * another compactor, nothing is uploaded and the tenant is abandoned.
 */
import { markBlockForDeletion, uploadBlock } from '../bucket/index.js';
import {
  FileSystemError,
  isAbortError,
  type Bucket,
  type Clock,
  type FileSystem,
  type Logger,
  type RandomStream,
} from '../runtime/index.js';
import {
  BlockSource,
  compactBlocksStreaming,
  type BlockMeta,
  type SampleConflicts,
} from '../tsdb/index.js';
import { downloadBlocks } from './block_download.js';
import { verifyBlock } from './block_verify.js';
import {
  CompactionHaltError,
  CorruptBlockError,
  TenantNotOwnedError,
  errorMessage,
} from './compaction_errors.js';
import type { CompactionMetrics } from './compaction_metrics.js';
import type { CompactionGroup } from './grouper.js';
import type { PlanContext, Planner } from './planner.js';

/** Strata's no-compact reason for a source that fails verification for another reason than chunk order. */
export const CORRUPTED_BLOCK_NO_COMPACT_REASON = 'block-corrupted';

export interface GroupCompactorConfig {
  /** `<data_dir>/compact/<tenant>`: group work directories go below. */
  workDir: string;
  /** `block_sync_concurrency`: files downloaded at once. */
  blockSyncConcurrency: number;
  skipBlocksWithOutOfOrderChunksEnabled: boolean;
}

export interface GroupCompactorDeps {
  bucket: Bucket;
  fs: FileSystem;
  clock: Clock;
  /** Entropy of the output blocks' ULIDs. */
  random: RandomStream;
  logger: Logger;
  metrics: CompactionMetrics;
  /** Whether this compactor still owns the tenant; a throw counts as no. */
  ownsTenant: (tenant: string) => boolean;
}

export interface GroupOutcome {
  /** Something changed (a block written, marked or dropped): plan the tenant again. */
  rerun: boolean;
  /** The block uploaded, if any. */
  compacted?: BlockMeta;
}

export class GroupCompactor {
  constructor(
    private readonly tenant: string,
    private readonly config: GroupCompactorConfig,
    private readonly deps: GroupCompactorDeps,
  ) {}

  async compact(
    group: CompactionGroup,
    planner: Planner,
    ctx: PlanContext,
    signal?: AbortSignal,
  ): Promise<GroupOutcome> {
    const { fs, metrics } = this.deps;
    const resolution = { resolution: String(group.resolution) };
    const dir = `${this.config.workDir}/${group.key}`;
    metrics.groupRunsStarted.inc(resolution);
    try {
      await fs.remove(dir, { recursive: true });
      await fs.mkdir(dir, { recursive: true });
      const outcome = await this.compactIn(dir, group, planner, ctx, signal);
      metrics.groupRunsCompleted.inc(resolution);
      return outcome;
    } catch (err) {
      if (!isAbortError(err) && !(err instanceof TenantNotOwnedError)) {
        metrics.groupFailures.inc(resolution);
      }
      throw err;
    } finally {
      await fs.remove(dir, { recursive: true }).catch((err: unknown) => {
        this.deps.logger.warn('failed to remove compaction group work directory', {
          dir,
          err: errorMessage(err),
        });
      });
    }
  }

  private async compactIn(
    dir: string,
    group: CompactionGroup,
    planner: Planner,
    ctx: PlanContext,
    signal: AbortSignal | undefined,
  ): Promise<GroupOutcome> {
    const { logger, metrics } = this.deps;
    const plan = await planner.plan(group, ctx);
    if (plan.length === 0) return { rerun: false };
    metrics.groupPlanned.inc({ resolution: String(group.resolution) });
    const ids = plan.map((m) => m.ulid);
    logger.info('compaction available and planned; downloading blocks', { plan: ids });
    checkUniqueSources(plan);

    try {
      await downloadBlocks(
        this.tenant,
        plan,
        dir,
        this.config.blockSyncConcurrency,
        this.deps,
        signal,
      );
      for (const m of plan) {
        await verifyBlock(`${dir}/${m.ulid}`, m, { checkChunks: true }, this.deps, signal);
      }
    } catch (err) {
      if (!(err instanceof CorruptBlockError)) throw err;
      await this.setAside(err, ctx);
      return { rerun: true };
    }
    logger.info('downloaded and verified blocks; compacting blocks', { plan: ids });

    const dirs = ids.map((id) => `${dir}/${id}`);
    const vertical = hasOverlaps(plan);
    const merged = await compactBlocksStreaming(
      dirs,
      dir,
      { thanos: { labels: { ...group.labels }, source: BlockSource.Compactor } },
      signal === undefined ? this.deps : { ...this.deps, signal },
    ).catch((err: unknown) => {
      if (err instanceof FileSystemError || isAbortError(err)) throw err;
      throw new CompactionHaltError(`compact blocks ${ids.join(',')}: ${errorMessage(err)}`, {
        cause: err,
      });
    });
    if (vertical) this.reportConflicts(ids, merged.conflicts);
    if (merged.meta === null) {
      logger.info('compacted block would have no samples, marking source blocks for deletion', {
        blocks: ids,
      });
      await this.markSources(ids);
      return { rerun: true };
    }
    const out = merged.meta;
    metrics.groupCompactions.inc({ resolution: String(group.resolution) });
    if (vertical) metrics.groupVerticalCompactions.inc({ resolution: String(group.resolution) });
    logger.info('compacted blocks', { new: out.ulid, blocks: ids, samples: out.stats.numSamples });
    const outDir = `${dir}/${out.ulid}`;
    await verifyBlock(outDir, out, { checkChunks: false }, this.deps, signal).catch(
      (err: unknown) => {
        if (err instanceof CorruptBlockError) {
          throw new CompactionHaltError(`invalid result block ${out.ulid}: ${err.message}`);
        }
        throw err;
      },
    );

    // Ownership may have moved while we merged: the new owner compacts these sources itself.
    if (!this.stillOwned()) throw new TenantNotOwnedError(this.tenant);
    await uploadBlock(
      this.deps.bucket,
      this.tenant,
      outDir,
      { labels: { ...group.labels }, source: BlockSource.Compactor },
      this.deps,
    );
    logger.info('uploaded block', { result_block: out.ulid });
    // Only after the output's meta.json is in the bucket may the sources go.
    await this.markSources(ids);
    return { rerun: true, compacted: out };
  }

  /**
   * Counts and logs the samples the merge dropped although they differ from the kept one
   * (the earliest source's).
   */
  private reportConflicts(ids: readonly string[], found: SampleConflicts): void {
    if (found.samples === 0) return;
    const { metrics, logger } = this.deps;
    metrics.conflictingSamples.inc({ user: this.tenant }, found.samples);
    metrics.conflictingCompactions.inc({ user: this.tenant });
    const first = found.first;
    logger.warn(
      "overlapping blocks hold different values at the same timestamp; vertical compaction keeps the earliest block's value and drops the others",
      {
        blocks: ids,
        conflicting_samples: found.samples,
        conflicting_series: found.series,
        ...(first === undefined
          ? {}
          : {
              example_series: first.labels,
              example_timestamp: first.timestamp,
              kept_value: first.kept,
              kept_block: first.keptBlock,
              dropped_value: first.dropped,
              dropped_block: first.droppedBlock,
            }),
      },
    );
  }

  private stillOwned(): boolean {
    try {
      return this.deps.ownsTenant(this.tenant);
    } catch (err) {
      this.deps.logger.warn('unable to check if user is owned by this shard', {
        err: errorMessage(err),
      });
      return false;
    }
  }

  private async markSources(ids: readonly string[]): Promise<void> {
    const { bucket, clock, logger, metrics } = this.deps;
    for (const id of ids) {
      logger.info('marking compacted block for deletion', { old_block: id });
      if (await markBlockForDeletion(bucket, this.tenant, id, clock, 'source of compacted block')) {
        metrics.blocksMarkedForDeletion.inc({ user: this.tenant, reason: 'compaction' });
      }
      metrics.garbageCollectedBlocks.inc();
    }
  }

  /** A corrupt source: marked no-compact (or the tenant halts), so the rest can go on. */
  private async setAside(err: CorruptBlockError, ctx: PlanContext): Promise<void> {
    const { logger, metrics } = this.deps;
    metrics.corruptedBlocks.inc({ user: this.tenant, reason: err.kind });
    if (err.kind === 'out-of-order-chunks') {
      if (!this.config.skipBlocksWithOutOfOrderChunksEnabled) {
        throw new CompactionHaltError(
          `${err.message} (enable -compactor.skip-blocks-with-out-of-order-chunks-enabled to mark such blocks no-compact)`,
          { cause: err },
        );
      }
      logger.warn('marking block with out-of-order chunks for no compaction', {
        block: err.block,
        err: err.message,
      });
      await ctx.markNoCompact(
        err.block,
        'block-index-out-of-order-chunk',
        'OutofOrderChunk: marking block with out-of-order series/chunks to as no compact to unblock compaction',
      );
      return;
    }
    logger.error('source block failed verification; marking it for no compaction', {
      block: err.block,
      err: err.message,
    });
    await ctx.markNoCompact(err.block, CORRUPTED_BLOCK_NO_COMPACT_REASON, err.message);
  }
}

/** Thanos's guard against #183: two planned blocks sharing a source would duplicate chunks. */
function checkUniqueSources(plan: readonly BlockMeta[]): void {
  const seen = new Set<string>();
  for (const m of plan) {
    for (const s of m.compaction.sources) {
      if (seen.has(s)) {
        throw new CompactionHaltError(
          `overlapping sources detected for plan ${plan.map((p) => p.ulid).join(',')}: ${s}`,
        );
      }
      seen.add(s);
    }
  }
}

/** Whether any two blocks overlap in time (metas sorted by minTime). */
function hasOverlaps(metas: readonly BlockMeta[]): boolean {
  let maxT = Number.NEGATIVE_INFINITY;
  for (const m of metas) {
    if (m.minTime < maxT) return true;
    maxT = Math.max(maxT, m.maxTime);
  }
  return false;
}
