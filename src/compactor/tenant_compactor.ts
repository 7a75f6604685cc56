/**
 * Compacting one tenant until nothing is left to do (Thanos's BucketCompactor.Compact): sync
 * the tenant's metas, mark duplicates for deletion, group, then run the groups
 * `compaction_concurrency` at a time; whenever a group changed something, start over with a
 * fresh sync, until a pass plans nothing. After the first failing group no further group is
 * started; the failures are reported together (a halt, or the tenant moving away, wins over
 * other errors).
 */
import {
  INDEX_FILE,
  blockIndexPath,
  markBlockForNoCompact,
  type NoCompactReason,
} from '../bucket/index.js';
import {
  isAbortError,
  throwIfAborted,
  type Bucket,
  type Clock,
  type FileSystem,
  type Logger,
  type RandomStream,
} from '../runtime/index.js';
import type { BlockMeta } from '../tsdb/index.js';
import { CompactionHaltError, TenantNotOwnedError } from './compaction_errors.js';
import type { CompactionMetrics } from './compaction_metrics.js';
import { GroupCompactor } from './group_compactor.js';
import type { CompactionGroup, Grouper } from './grouper.js';
import { MetaSyncer } from './meta_sync.js';
import type { PlanContext, Planner } from './planner.js';

export interface TenantCompactorConfig {
  /** `<data_dir>/compact/<tenant>`. */
  workDir: string;
  blockSyncConcurrency: number;
  metaSyncConcurrency: number;
  consistencyDelayMs: number;
  compactionConcurrency: number;
  skipBlocksWithOutOfOrderChunksEnabled: boolean;
}

export interface TenantCompactorDeps {
  bucket: Bucket;
  fs: FileSystem;
  clock: Clock;
  random: RandomStream;
  logger: Logger;
  metrics: CompactionMetrics;
  ownsTenant: (tenant: string) => boolean;
  grouper: Grouper;
  planner: Planner;
}

/** What one tenant's compaction did. */
export interface TenantCompactionResult {
  /** Blocks uploaded, in order. */
  compacted: BlockMeta[];
  /** Sync-plan-compact passes made (the last one planned nothing). */
  passes: number;
}

export async function compactTenant(
  tenant: string,
  config: TenantCompactorConfig,
  deps: TenantCompactorDeps,
  signal?: AbortSignal,
): Promise<TenantCompactionResult> {
  const syncer = new MetaSyncer(tenant, config, deps);
  const groupCompactor = new GroupCompactor(tenant, config, deps);
  const result: TenantCompactionResult = { compacted: [], passes: 0 };
  for (;;) {
    throwIfAborted(signal);
    result.passes++;
    const synced = await syncer.sync(signal);
    await syncer.garbageCollect(synced.duplicates, signal);
    const groups = await deps.grouper.groups(synced.metas, synced.noCompact);
    const ctx = planContext(tenant, synced.noCompact, deps);
    let rerun = false;
    const errors: Error[] = [];
    let next = 0;
    const worker = async (): Promise<void> => {
      while (errors.length === 0 && signal?.aborted !== true) {
        const group = groups[next++];
        if (group === undefined) return;
        try {
          const outcome = await groupCompactor.compact(group, deps.planner, ctx, signal);
          if (outcome.compacted !== undefined) result.compacted.push(outcome.compacted);
          rerun ||= outcome.rerun;
        } catch (err) {
          errors.push(asGroupError(group, err));
        }
      }
    };
    const width = Math.max(1, Math.min(config.compactionConcurrency, groups.length));
    await Promise.all(Array.from({ length: width }, worker));
    throwIfAborted(signal);
    if (errors.length > 0) throw pickError(errors);
    if (!rerun) return result;
  }
}

function planContext(
  tenant: string,
  noCompact: PlanContext['noCompact'],
  deps: TenantCompactorDeps,
): PlanContext {
  return {
    tenant,
    noCompact,
    async markNoCompact(block: string, reason: NoCompactReason, details: string): Promise<void> {
      if (await markBlockForNoCompact(deps.bucket, tenant, block, deps.clock, reason, details)) {
        deps.metrics.blocksMarkedForNoCompaction.inc();
      }
    },
    async indexSize(meta: BlockMeta): Promise<number> {
      const listed = meta.thanos?.files?.find((f) => f.rel_path === INDEX_FILE)?.size_bytes;
      if (listed !== undefined && listed > 0) return listed;
      return (await deps.bucket.attributes(blockIndexPath(tenant, meta.ulid))).size;
    },
  };
}

function asGroupError(group: CompactionGroup, err: unknown): Error {
  if (!(err instanceof Error)) return new Error(`group ${group.key}: ${String(err)}`);
  if (isAbortError(err) || err instanceof TenantNotOwnedError) return err;
  if (err instanceof CompactionHaltError) {
    return new CompactionHaltError(`group ${group.key}: ${err.message}`, { cause: err });
  }
  return new Error(`group ${group.key}: ${err.message}`, { cause: err });
}

/** The error that decides what the loop does: moving away, then a halt, then the first. */
function pickError(errors: readonly Error[]): Error {
  return (
    errors.find((e) => e instanceof TenantNotOwnedError) ??
    errors.find((e) => e instanceof CompactionHaltError) ??
    (errors[0] as Error)
  );
}
