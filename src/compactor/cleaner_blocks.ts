/**
 * The per-block decisions of the cleaner, kept apart from the tenant loop: which deletion
 * marks are due, which partial blocks may go, and which blocks retention marks. Each
 * function acts on one tenant's freshly updated index and reports what it did; failures of
 * single blocks are logged and counted here and never abort the tenant.
 */
import {
  BucketDocumentError,
  deleteBlock,
  markBlockForDeletion,
  readDeletionMark,
  removeBlockFromIndex,
  type BucketIndex,
  type BucketIndexDeletionMark,
  type PartialBlock,
} from '../bucket/index.js';
import type { Bucket, Clock, Logger } from '../runtime/index.js';
import { ulidTime } from '../tsdb/index.js';
import type { CleanerMetrics } from './metrics.js';

/** What Cortex's shuffle-sharding compactor leaves in a block it visits. */
export const BLOCK_VISIT_MARKER_FILE = 'visit-mark.json';

export interface TenantContext {
  tenant: string;
  bucket: Bucket;
  clock: Clock;
  logger: Logger;
  metrics: CleanerMetrics;
  signal: AbortSignal | undefined;
}

/**
 * Whether a mark is old enough to act on. Cortex skips a mark while its age is at most the
 * delay; with no delay every mark not dated in the future is due.
 */
export function deletionDue(
  mark: BucketIndexDeletionMark,
  nowMs: number,
  deletionDelayMs: number,
): boolean {
  const ageMs = nowMs - mark.deletion_time * 1000;
  return deletionDelayMs > 0 ? ageMs > deletionDelayMs : ageMs >= 0;
}

/** Deletes one block, counting and logging the outcome; true when it is gone. */
async function deleteCounted(ctx: TenantContext, block: string, what: string): Promise<boolean> {
  try {
    await deleteBlock(ctx.bucket, ctx.tenant, block, ctx.signal);
  } catch (err) {
    if (ctx.signal?.aborted === true) throw err;
    ctx.metrics.blockCleanupFailures.inc();
    ctx.logger.warn(`failed to delete ${what}`, { block, err: (err as Error).message });
    return false;
  }
  ctx.metrics.blocksCleaned.inc();
  ctx.logger.info(`deleted ${what}`, { block });
  return true;
}

/** Deletes the blocks whose deletion mark is due and drops them from the index; returns them. */
export async function deleteMarkedBlocks(
  ctx: TenantContext,
  index: BucketIndex,
  deletionDelayMs: number,
): Promise<string[]> {
  const now = ctx.clock.now();
  const deleted: string[] = [];
  // A copy: the index shrinks as blocks go.
  for (const mark of [...index.block_deletion_marks]) {
    if (!deletionDue(mark, now, deletionDelayMs)) continue;
    if (await deleteCounted(ctx, mark.block_id, 'block marked for deletion')) {
      removeBlockFromIndex(index, mark.block_id);
      deleted.push(mark.block_id);
    }
  }
  return deleted;
}

/**
 * Deletes the partial blocks (no meta.json) that are safe to delete and returns the partials
 * that remain. Safe means (Cortex): the block carries a deletion mark, whatever its age, or
 * holds nothing but visit markers. With `partialDelayMs` > 0 a partial block is also
 * abandoned, so first marked and then deleted, once both its ID (its creation time) and its
 * newest object are older than that: the reference's "malformed blocks older than
 * max(consistency delay, 48h) are removed" (the compactor passes that age unless
 * `-compactor.partial-block-deletion-delay` sets another). Requiring the newest object to be
 * old too keeps an upload in progress of a block cut long ago (an ingester shipping after a
 * long outage) from being deleted under the uploader. Blocks whose meta.json is corrupted are
 * never deleted here: they need an operator.
 */
export async function cleanPartialBlocks(
  ctx: TenantContext,
  partials: readonly PartialBlock[],
  index: BucketIndex,
  partialDelayMs: number,
): Promise<PartialBlock[]> {
  const remaining: PartialBlock[] = [];
  const markedInIndex = new Set(index.block_deletion_marks.map((m) => m.block_id));
  for (const partial of partials) {
    if (partial.reason !== 'missing-meta') {
      remaining.push(partial);
      continue;
    }
    const verdict = await partialVerdict(
      ctx,
      partial,
      markedInIndex.has(partial.block),
      partialDelayMs,
    );
    if (verdict === 'keep') {
      remaining.push(partial);
      continue;
    }
    if (verdict === 'stale') {
      const marked = await markBlockForDeletion(
        ctx.bucket,
        ctx.tenant,
        partial.block,
        ctx.clock,
        `partial block untouched for ${goDuration(partialDelayMs)}`,
      );
      if (marked) ctx.metrics.blocksMarkedForDeletion.inc({ user: ctx.tenant, reason: 'partial' });
    }
    if (await deleteCounted(ctx, partial.block, 'partial block')) {
      removeBlockFromIndex(index, partial.block);
    } else {
      remaining.push(partial);
    }
  }
  return remaining;
}

async function partialVerdict(
  ctx: TenantContext,
  partial: PartialBlock,
  markedInIndex: boolean,
  partialDelayMs: number,
): Promise<'marked' | 'visit-markers-only' | 'stale' | 'keep'> {
  if (markedInIndex) return 'marked';
  try {
    if ((await readDeletionMark(ctx.bucket, ctx.tenant, partial.block)) !== undefined) {
      return 'marked';
    }
  } catch (err) {
    // An unreadable mark still says someone meant to delete the block, but Cortex leaves
    // such a block alone, and so do we: a human should look at it.
    if (!(err instanceof BucketDocumentError)) throw err;
    ctx.logger.warn('error reading partial block deletion mark', {
      block: partial.block,
      err: err.message,
    });
    return 'keep';
  }
  if (
    partial.objects.length > 0 &&
    partial.objects.every((o) => o.endsWith(`/${BLOCK_VISIT_MARKER_FILE}`))
  ) {
    return 'visit-markers-only';
  }
  const now = ctx.clock.now();
  if (
    partialDelayMs > 0 &&
    partial.lastModifiedMs > 0 &&
    now - partial.lastModifiedMs > partialDelayMs &&
    now - ulidTime(partial.block) > partialDelayMs
  ) {
    return 'stale';
  }
  return 'keep';
}

/**
 * Marks the index's blocks that ended before now - retention (Cortex compares whole
 * seconds of max_time) and are not marked yet. Best effort: a failure is logged, and the
 * next cleanup tries again.
 */
export async function applyRetention(
  ctx: TenantContext,
  index: BucketIndex,
  retentionMs: number,
): Promise<void> {
  if (!(retentionMs > 0)) return;
  const thresholdMs = ctx.clock.now() - retentionMs;
  const marked = new Set(index.block_deletion_marks.map((m) => m.block_id));
  for (const block of index.blocks) {
    if (marked.has(block.block_id)) continue;
    if (Math.trunc(block.max_time / 1000) * 1000 >= thresholdMs) continue;
    ctx.logger.info('applied retention: marking block for deletion', {
      block: block.block_id,
      maxTime: block.max_time,
    });
    try {
      const done = await markBlockForDeletion(
        ctx.bucket,
        ctx.tenant,
        block.block_id,
        ctx.clock,
        `block exceeding retention of ${goDuration(retentionMs)}`,
      );
      if (done) ctx.metrics.blocksMarkedForDeletion.inc({ user: ctx.tenant, reason: 'retention' });
    } catch (err) {
      if (ctx.signal?.aborted === true) throw err;
      ctx.logger.warn('failed to mark block for deletion', {
        block: block.block_id,
        err: (err as Error).message,
      });
    }
  }
}

/** A duration as Go's time.Duration.String writes whole seconds (`720h0m0s`), else `Nms`. */
export function goDuration(ms: number): string {
  if (ms % 1000 !== 0) return `${ms}ms`;
  const s = ms / 1000;
  if (s === 0) return '0s';
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = s % 60;
  if (h > 0) return `${h}h${m}m${sec}s`;
  if (m > 0) return `${m}m${sec}s`;
  return `${sec}s`;
}
