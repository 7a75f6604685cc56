/**
 * The filters a tenant's block list goes through before the store-gateway loads anything
 * (Cortex's order): sharding → consistency delay → deletion marks older than the delay →
 * strip the `__org_id__`/`__ingester_id__` external labels. There is deliberately no
 * de-duplication filter: dropping a block the compactor replaced before the querier knows
 * the replacement would fail the querier's consistency check.
 */
import { readDeletionMark } from '../bucket/index.js';
import type { BucketIndexDeletionMark } from '../bucket/index.js';
import { forEachBounded } from '../ingester/index.js';
import type { Bucket, Logger } from '../runtime/index.js';
import { BlockSource, ulidTime, type BlockMeta } from '../tsdb/index.js';
import type { MetaSyncState } from './metrics.js';
import type { ShardingStrategy } from './sharding.js';

/** External labels Cortex adds to blocks and removes before serving them. */
export const TENANT_ID_EXTERNAL_LABEL = '__org_id__';
export const INGESTER_ID_EXTERNAL_LABEL = '__ingester_id__';

export interface FilterContext {
  readonly tenant: string;
  readonly signal?: AbortSignal | undefined;
  /** Counts of blocks left out, by reason (the `cortex_blocks_meta_synced` states). */
  readonly synced: Map<MetaSyncState, number>;
  /** The deletion marks of the bucket index, when blocks came from it. */
  readonly indexDeletionMarks?: readonly BucketIndexDeletionMark[];
}

export interface MetaFilter {
  filter(metas: Map<string, BlockMeta>, ctx: FilterContext): Promise<void>;
}

export function countSynced(ctx: FilterContext, state: MetaSyncState, n = 1): void {
  ctx.synced.set(state, (ctx.synced.get(state) ?? 0) + n);
}

/**
 * Cortex's sharding filter adapter: remembers what it kept last time, which the strategy
 * needs to keep a loaded block while no other owner can serve it.
 */
export class ShardingMetaFilter implements MetaFilter {
  private lastKept: Set<string> = new Set();

  constructor(private readonly strategy: ShardingStrategy) {}

  filter(metas: Map<string, BlockMeta>, ctx: FilterContext): Promise<void> {
    const removed = this.strategy.filterBlocks(ctx.tenant, metas, this.lastKept);
    countSynced(ctx, 'shard-excluded', removed.length);
    this.lastKept = new Set(metas.keys());
    return Promise.resolve();
  }
}

/**
 * Thanos's ConsistencyDelayMetaFilter: a block whose ULID is younger than the delay is not
 * loaded yet (eventually consistent stores may not show all its files), unless the compactor
 * or a repair wrote it — those upload only complete blocks. Blocks from the bucket index have
 * no source and are always subject to the delay, as in Cortex.
 */
export class ConsistencyDelayFilter implements MetaFilter {
  constructor(
    private readonly delayMs: number,
    private readonly now: () => number,
  ) {}

  filter(metas: Map<string, BlockMeta>, ctx: FilterContext): Promise<void> {
    if (this.delayMs <= 0) return Promise.resolve();
    const now = this.now();
    for (const [id, meta] of metas) {
      const source = meta.thanos?.source ?? '';
      if (
        source === BlockSource.BucketRepair ||
        source === BlockSource.Compactor ||
        source === BlockSource.CompactorRepair
      )
        continue;
      if (now - ulidTime(id) < this.delayMs) {
        metas.delete(id);
        countSynced(ctx, 'too-fresh');
      }
    }
    return Promise.resolve();
  }
}

export interface DeletionMarkFilterDeps {
  bucket: Bucket;
  now: () => number;
  logger: Logger;
  /** Workers reading deletion-mark.json files when blocks come from a bucket scan. */
  concurrency: number;
}

/**
 * Drops blocks marked for deletion longer ago than the delay (Thanos's
 * IgnoreDeletionMarkFilter; Cortex's variant reads the marks from the bucket index when
 * there is one). A younger mark keeps the block: its replacement may not be loaded anywhere
 * yet. A mark that cannot be read keeps the block too (logged): serving a block a little
 * longer is harmless, losing one is not.
 */
export class IgnoreDeletionMarkFilter implements MetaFilter {
  /** Deletion times (ms) of the blocks seen marked on the last run; for pages. */
  private marks = new Map<string, number>();

  constructor(
    private readonly delayMs: number,
    private readonly deps: DeletionMarkFilterDeps,
  ) {}

  get deletionMarks(): ReadonlyMap<string, number> {
    return this.marks;
  }

  async filter(metas: Map<string, BlockMeta>, ctx: FilterContext): Promise<void> {
    const marks = new Map<string, number>();
    if (ctx.indexDeletionMarks !== undefined) {
      for (const m of ctx.indexDeletionMarks) marks.set(m.block_id, m.deletion_time * 1000);
    } else {
      await forEachBounded([...metas.keys()], this.deps.concurrency, async (id) => {
        try {
          const mark = await readDeletionMark(this.deps.bucket, ctx.tenant, id);
          if (mark !== undefined) marks.set(id, mark.deletion_time * 1000);
        } catch (err) {
          this.deps.logger.warn('cannot read the deletion mark of a block; keeping the block', {
            tenant: ctx.tenant,
            block: id,
            err: (err as Error).message,
          });
        }
      });
    }
    this.marks = marks;
    const now = this.deps.now();
    for (const [id, deletedAt] of marks) {
      if (!metas.has(id)) continue;
      if (now - deletedAt > this.delayMs) {
        metas.delete(id);
        countSynced(ctx, 'marked-for-deletion');
      }
    }
  }
}

/**
 * Removes the tenant and ingester external labels (Cortex's ReplicaLabelRemover), so they
 * are never added to the series of a block. Copies the meta: cached metas stay as read.
 */
export class ReplicaLabelRemover implements MetaFilter {
  filter(metas: Map<string, BlockMeta>): Promise<void> {
    for (const [id, meta] of metas) {
      const labels = meta.thanos?.labels;
      if (
        meta.thanos === undefined ||
        labels === undefined ||
        !(TENANT_ID_EXTERNAL_LABEL in labels || INGESTER_ID_EXTERNAL_LABEL in labels)
      )
        continue;
      const kept = Object.fromEntries(
        Object.entries(labels).filter(
          ([k]) => k !== TENANT_ID_EXTERNAL_LABEL && k !== INGESTER_ID_EXTERNAL_LABEL,
        ),
      );
      metas.set(id, { ...meta, thanos: { ...meta.thanos, labels: kept } });
    }
    return Promise.resolve();
  }
}
