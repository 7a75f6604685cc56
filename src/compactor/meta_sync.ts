/**
 * What compaction knows of a tenant's blocks (Thanos's MetaFetcher and Syncer as Cortex's
 * compactor wires them): the block directories of a bucket listing and their meta.json files
 * (`meta_sync_concurrency` at once), then the filters, in Cortex's order:
 *
 * 1. `__ingester_id__` is dropped from the external labels, so replicas group together;
 * 2. consistency delay: blocks younger (by ULID time) than `consistency_delay` are left for
 *    later, except those a compactor or a repair wrote;
 * 3. blocks with a deletion mark are ignored (no delay);
 * 4. duplicates (sources included in another block's) are dropped: garbageCollect marks them;
 * 5. no-compact marks are gathered; the blocks stay (the planner steps around them).
 *
 * A block without meta.json is partial and skipped (the cleaner deals with it); a meta.json
 * that cannot be parsed is counted, logged and skipped. Any other read failure fails the
 * sync, so a compaction never plans on an incomplete view.
 */
import {
  blockMetaPath,
  deletionMarkPath,
  getIfExists,
  markBlockForDeletion,
  noCompactMarkPath,
  parseDeletionMark,
  parseNoCompactMark,
  type NoCompactMark,
} from '../bucket/index.js';
import { isObjectNotFound, type Bucket, type Clock, type Logger } from '../runtime/index.js';
import {
  BlockMetaError,
  BlockSource,
  isCanonicalUlid,
  parseBlockMeta,
  ulidTime,
  type BlockMeta,
} from '../tsdb/index.js';
import { deletionDue } from './cleaner_blocks.js';
import { errorMessage } from './compaction_errors.js';
import type { CompactionMetrics } from './compaction_metrics.js';
import { forEachConcurrently } from './concurrency.js';
import { findDuplicateBlocks } from './dedup_filter.js';

/** Cortex's ingester external label, removed before grouping. */
export const INGESTER_ID_EXTERNAL_LABEL = '__ingester_id__';

/** Sources whose blocks are complete when they appear (Thanos skips the delay for them). */
const NO_DELAY_SOURCES: ReadonlySet<string> = new Set([
  BlockSource.Compactor,
  BlockSource.CompactorRepair,
  BlockSource.BucketRepair,
]);

export interface MetaSyncConfig {
  metaSyncConcurrency: number;
  consistencyDelayMs: number;
}

export interface MetaSyncDeps {
  bucket: Bucket;
  clock: Clock;
  logger: Logger;
  metrics: CompactionMetrics;
}

/** A tenant's blocks as compaction sees them after the filters. */
export interface SyncedBlocks {
  /** Blocks to plan with, by ULID (no-compact marked ones included). */
  metas: Map<string, BlockMeta>;
  /** Duplicates dropped by the dedup filter, sorted. */
  duplicates: string[];
  /** No-compact marks of the blocks in `metas`. */
  noCompact: Map<string, NoCompactMark>;
}

type SyncState =
  | 'loaded'
  | 'no-meta-json'
  | 'corrupted-meta-json'
  | 'too-fresh'
  | 'marked-for-deletion'
  | 'duplicate'
  | 'marked-for-no-compact';

const decoder = new TextDecoder('utf-8', { fatal: true });

export class MetaSyncer {
  private readonly synced = new Map<SyncState, number>();

  constructor(
    private readonly tenant: string,
    private readonly config: MetaSyncConfig,
    private readonly deps: MetaSyncDeps,
  ) {}

  /** Reads and filters the tenant's blocks; rejects when the view would be incomplete. */
  async sync(signal?: AbortSignal): Promise<SyncedBlocks> {
    const { metrics } = this.deps;
    metrics.metaSyncs.inc();
    this.synced.clear();
    try {
      const metas = await this.fetchMetas(signal);
      for (const m of metas.values()) removeIngesterLabel(m);
      this.applyConsistencyDelay(metas);
      await this.dropDeletionMarked(metas, signal);
      const duplicates = findDuplicateBlocks(metas.values());
      for (const id of duplicates) metas.delete(id);
      this.count('duplicate', duplicates.length);
      const noCompact = await this.gatherNoCompactMarks(metas, signal);
      this.count('loaded', metas.size);
      metrics.metaSynced.reset();
      for (const [state, n] of this.synced) metrics.metaSynced.set({ state }, n);
      return { metas, duplicates, noCompact };
    } catch (err) {
      metrics.metaSyncFailures.inc();
      throw err;
    }
  }

  /**
   * Marks the duplicates for deletion (Thanos's Syncer.GarbageCollect, details "outdated
   * block"), counting each under `reason="compaction"`.
   */
  async garbageCollect(duplicates: readonly string[], signal?: AbortSignal): Promise<void> {
    const { bucket, clock, logger, metrics } = this.deps;
    metrics.garbageCollections.inc();
    try {
      for (const id of duplicates) {
        if (signal?.aborted === true) return;
        logger.info('marking outdated block for deletion', { block: id });
        if (await markBlockForDeletion(bucket, this.tenant, id, clock, 'outdated block')) {
          metrics.blocksMarkedForDeletion.inc({ user: this.tenant, reason: 'compaction' });
        }
        metrics.garbageCollectedBlocks.inc();
      }
    } catch (err) {
      metrics.garbageCollectionFailures.inc();
      throw err;
    }
  }

  private count(state: SyncState, n = 1): void {
    this.synced.set(state, (this.synced.get(state) ?? 0) + n);
  }

  private async fetchMetas(signal: AbortSignal | undefined): Promise<Map<string, BlockMeta>> {
    const { bucket, logger, metrics } = this.deps;
    const opts = signal === undefined ? {} : { signal };
    const prefix = `${this.tenant}/`;
    const ids = (await bucket.list(prefix, opts))
      .filter((e) => e.endsWith('/'))
      .map((e) => e.slice(prefix.length, -1))
      .filter((name) => isCanonicalUlid(name));
    const found = new Map<string, BlockMeta>();
    const failures = await forEachConcurrently(
      ids,
      this.config.metaSyncConcurrency,
      async (id) => {
        let bytes: Uint8Array;
        try {
          bytes = await bucket.get(blockMetaPath(this.tenant, id), opts);
        } catch (err) {
          if (!isObjectNotFound(err)) throw err;
          this.count('no-meta-json');
          return;
        }
        try {
          const meta = parseBlockMeta(decoder.decode(bytes));
          if (meta.ulid !== id) throw new BlockMetaError(`meta.json names block ${meta.ulid}`);
          found.set(id, meta);
        } catch (err) {
          this.count('corrupted-meta-json');
          metrics.corruptedMetas.inc({ user: this.tenant });
          logger.error('corrupted meta.json; the block is left out of compaction', {
            block: id,
            err: errorMessage(err),
          });
        }
      },
      signal,
    );
    if (failures.length > 0) {
      const first = failures[0] as { item: string; error: Error };
      throw new Error(
        `reading ${failures.length} meta.json file(s) of tenant ${this.tenant} failed, first ${first.item}: ${first.error.message}`,
        { cause: first.error },
      );
    }
    // A stable order whatever the concurrency did: by ULID.
    return new Map([...found].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  }

  private applyConsistencyDelay(metas: Map<string, BlockMeta>): void {
    const delay = this.config.consistencyDelayMs;
    if (delay <= 0) return;
    const now = this.deps.clock.now();
    for (const [id, m] of metas) {
      if (now - ulidTime(id) >= delay) continue;
      if (NO_DELAY_SOURCES.has(m.thanos?.source ?? '')) continue;
      metas.delete(id);
      this.count('too-fresh');
    }
  }

  private async dropDeletionMarked(
    metas: Map<string, BlockMeta>,
    signal: AbortSignal | undefined,
  ): Promise<void> {
    const now = this.deps.clock.now();
    const marks = await this.readMarks(metas, deletionMarkPath, parseDeletionMark, signal);
    for (const [id, mark] of marks) {
      if (!deletionDue({ block_id: id, deletion_time: mark.deletion_time }, now, 0)) continue;
      metas.delete(id);
      this.count('marked-for-deletion');
    }
  }

  private async gatherNoCompactMarks(
    metas: Map<string, BlockMeta>,
    signal: AbortSignal | undefined,
  ): Promise<Map<string, NoCompactMark>> {
    const marks = await this.readMarks(metas, noCompactMarkPath, parseNoCompactMark, signal);
    this.count('marked-for-no-compact', marks.size);
    return marks;
  }

  /** The block's own copy of a mark for each block in `metas` that has one; bad ones are ignored. */
  private async readMarks<M>(
    metas: ReadonlyMap<string, BlockMeta>,
    path: (tenant: string, block: string) => string,
    parse: (data: Uint8Array, file: string) => M,
    signal: AbortSignal | undefined,
  ): Promise<Map<string, M>> {
    const found = new Map<string, M>();
    const ids = [...metas.keys()];
    const failures = await forEachConcurrently(
      ids,
      this.config.metaSyncConcurrency,
      async (id) => {
        const file = path(this.tenant, id);
        const data = await getIfExists(this.deps.bucket, file);
        if (data === undefined) return;
        try {
          found.set(id, parse(data, file));
        } catch (err) {
          // Thanos: a partial mark is as good as none; the writer finishes it or a human does.
          this.deps.logger.warn('found an unreadable block mark; ignoring it', {
            file,
            err: errorMessage(err),
          });
        }
      },
      signal,
    );
    if (failures.length > 0) throw (failures[0] as { error: Error }).error;
    return new Map(ids.filter((id) => found.has(id)).map((id) => [id, found.get(id) as M]));
  }
}

/** Drops `__ingester_id__` from a meta's external labels, in place (the meta is our copy). */
function removeIngesterLabel(meta: BlockMeta): void {
  const labels = meta.thanos?.labels;
  if (labels === undefined || !(INGESTER_ID_EXTERNAL_LABEL in labels)) return;
  const { [INGESTER_ID_EXTERNAL_LABEL]: _dropped, ...rest } = labels;
  (meta.thanos as { labels: Record<string, string> }).labels = rest;
}
