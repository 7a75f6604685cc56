/**
 * The default blocks finder: each tenant's bucket index (`<tenant>/bucket-index.json.gz`,
 * written by the compactor), loaded lazily on the tenant's first query and then kept fresh
 * in the background (Cortex's bucketindex.Loader + BucketIndexBlocksFinder). Every
 * `checkInterval` the cache is walked: indexes unused for `idleTimeout` are dropped, loaded
 * ones older than the sync interval are re-read, failed ones are retried after
 * `updateOnErrorInterval`. A failed read is cached too, so a broken or missing index does
 * not turn every query into a bucket read.
 *
 * Beyond Cortex, the finder reads every tenant's index once at startup and reports
 * not-ready until that pass has listed the bucket: a querier then joins with warm indexes
 * and `/ready` means its blocks discovery ran.
 */
import {
  BucketIndexNotFoundError,
  listTenants,
  readBucketIndex,
  type BucketIndex,
  type BucketIndexDeletionMark,
} from '../bucket/index.js';
import {
  isAbortError,
  type Bucket,
  type Clock,
  type Logger,
  type MetricsRegistry,
} from '../runtime/index.js';
import { BasicService } from '../services/index.js';
import {
  BlocksFinderError,
  INVALID_BLOCKS_RANGE_MESSAGE,
  blockWithin,
  errorMessage,
  sleep,
  sortByMaxTimeDesc,
  type BlocksFinder,
  type FoundBlock,
  type FoundBlocks,
} from './blocks_finder.js';
import { BucketIndexLoaderMetrics } from './metrics.js';

/** Cortex's errBucketIndexTooOld. */
export const BUCKET_INDEX_TOO_OLD_MESSAGE =
  'bucket index is too old and the last time it was updated exceeds the allowed max staleness';

export interface BucketIndexBlocksFinderConfig {
  /** How often cached indexes are checked (Cortex: 1m). */
  readonly checkIntervalMs: number;
  /** `-blocks-storage.bucket-store.sync-interval`: a loaded index older than this is re-read. */
  readonly syncIntervalMs: number;
  /** `…bucket-index.update-on-error-interval` (1m): retry delay of a failed read. */
  readonly updateOnErrorIntervalMs: number;
  /** `…bucket-index.idle-timeout` (1h): an index not queried this long is dropped. */
  readonly idleTimeoutMs: number;
  /** `…bucket-index.max-stale-period` (1h): older indexes fail queries; 0 disables the check. */
  readonly maxStalePeriodMs: number;
  /** `…bucket-store.ignore-deletion-marks-delay` (6h): blocks marked longer ago are not queried. */
  readonly ignoreDeletionMarksDelayMs: number;
}

/**
 * Reads one tenant's bucket index; undefined when there is none (nothing shipped yet).
 * Other failures reject (a corrupted index, the bucket's errors).
 */
export type BucketIndexReader = (
  tenant: string,
  signal?: AbortSignal,
) => Promise<BucketIndex | undefined>;

export interface BucketIndexBlocksFinderDeps {
  readonly bucket: Bucket;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly metrics: MetricsRegistry;
  /** Defaults to `bucketIndexReader(bucket)`. */
  readonly readIndex?: BucketIndexReader;
}

type CachedIndex =
  | { kind: 'loaded'; index: BucketIndex; updatedAt: number; requestedAt: number }
  | { kind: 'not_found'; updatedAt: number; requestedAt: number }
  | { kind: 'failed'; err: unknown; updatedAt: number; requestedAt: number };

/** Tenants whose indexes the startup pass reads at once. */
const STARTUP_CONCURRENCY = 16;

export class BucketIndexBlocksFinder extends BasicService implements BlocksFinder {
  private readonly cache = new Map<string, CachedIndex>();
  private readonly inflight = new Map<string, Promise<CachedIndex>>();
  private readonly metrics: BucketIndexLoaderMetrics;
  private readonly readIndex: BucketIndexReader;
  private discovered = false;

  constructor(
    private readonly config: BucketIndexBlocksFinderConfig,
    private readonly deps: BucketIndexBlocksFinderDeps,
  ) {
    super('bucket-index-blocks-finder', {
      running: (signal) => this.run(signal),
      stopping: () => Promise.resolve(this.unloadAll()),
      isReady: () =>
        this.discovered
          ? undefined
          : 'blocks discovery has not completed: the bucket indexes are being loaded',
    });
    this.metrics = new BucketIndexLoaderMetrics(deps.metrics);
    this.readIndex = deps.readIndex ?? bucketIndexReader(deps.bucket);
  }

  async getBlocks(tenant: string, minT: number, maxT: number): Promise<FoundBlocks> {
    if (this.state !== 'Running') {
      throw new BlocksFinderError('bucket index blocks finder is not running');
    }
    if (maxT < minT) throw new BlocksFinderError(INVALID_BLOCKS_RANGE_MESSAGE);
    const entry = await this.getIndex(tenant);
    // A tenant that has not shipped a block yet has no index: legitimately no blocks.
    if (entry.kind === 'not_found') return { blocks: [], deletionMarks: new Map() };
    if (entry.kind === 'failed') throw entry.err;
    const { index } = entry;
    const now = this.deps.clock.now();
    if (
      this.config.maxStalePeriodMs > 0 &&
      now - index.updated_at * 1000 > this.config.maxStalePeriodMs
    ) {
      throw new BlocksFinderError(BUCKET_INDEX_TOO_OLD_MESSAGE);
    }
    const matching = new Map<string, FoundBlock>();
    for (const block of index.blocks) {
      if (blockWithin(block, minT, maxT)) matching.set(block.block_id, block);
    }
    const deletionMarks = new Map<string, BucketIndexDeletionMark>();
    for (const mark of index.block_deletion_marks) {
      if (!matching.has(mark.block_id)) continue;
      // As Thanos's IgnoreDeletionMarkFilter: blocks marked long enough ago are gone soon.
      if (now - mark.deletion_time * 1000 > this.config.ignoreDeletionMarksDelayMs) {
        matching.delete(mark.block_id);
        continue;
      }
      deletionMarks.set(mark.block_id, mark);
    }
    return { blocks: sortByMaxTimeDesc([...matching.values()]), deletionMarks };
  }

  /** The cached index of `tenant`, read from the bucket on first use. */
  private async getIndex(tenant: string): Promise<CachedIndex> {
    const cached = this.cache.get(tenant);
    if (cached !== undefined) {
      // Staleness is the background check's business, not the query's.
      cached.requestedAt = this.deps.clock.now();
      return cached;
    }
    let pending = this.inflight.get(tenant);
    if (pending === undefined) {
      pending = this.load(tenant).finally(() => this.inflight.delete(tenant));
      this.inflight.set(tenant, pending);
    }
    return pending;
  }

  private async load(tenant: string): Promise<CachedIndex> {
    const { clock, logger } = this.deps;
    const started = clock.now();
    this.metrics.loads.inc();
    let entry: CachedIndex;
    try {
      const index = await this.readIndex(tenant);
      const now = clock.now();
      if (index === undefined) {
        // Cortex counts a missing index as a failed load too.
        this.metrics.loadFailures.inc();
        entry = { kind: 'not_found', updatedAt: now, requestedAt: now };
      } else {
        this.metrics.loadDuration.observe((now - started) / 1000);
        logger.info('loaded bucket index', { user: tenant, duration_ms: now - started });
        entry = { kind: 'loaded', index, updatedAt: now, requestedAt: now };
      }
    } catch (err) {
      if (isAbortError(err)) throw err;
      // Cached so that a persistent problem is not re-read by every query.
      this.metrics.loadFailures.inc();
      logger.error('unable to load bucket index', { user: tenant, err: errorMessage(err) });
      const now = clock.now();
      entry = { kind: 'failed', err, updatedAt: now, requestedAt: now };
    }
    this.setEntry(tenant, entry);
    return entry;
  }

  private async run(signal: AbortSignal): Promise<void> {
    const { clock } = this.deps;
    while (!this.discovered) {
      try {
        await this.discover();
        this.discovered = true;
      } catch (err) {
        if (signal.aborted) return;
        this.deps.logger.warn('blocks discovery failed: listing the bucket tenants', {
          err: errorMessage(err),
        });
        if (!(await sleep(clock, this.config.updateOnErrorIntervalMs, signal))) return;
      }
    }
    while (await sleep(clock, this.config.checkIntervalMs, signal)) {
      await this.checkCachedIndexes();
    }
  }

  /** Reads every tenant's index once (failures are cached like any other load). */
  private async discover(): Promise<void> {
    const tenants = await listTenants(this.deps.bucket);
    for (let i = 0; i < tenants.length; i += STARTUP_CONCURRENCY) {
      await Promise.all(tenants.slice(i, i + STARTUP_CONCURRENCY).map((t) => this.getIndex(t)));
    }
  }

  /** Cortex's checkCachedIndexes: drop idle indexes, refresh stale and failed ones. */
  async checkCachedIndexes(): Promise<void> {
    const now = this.deps.clock.now();
    const { idleTimeoutMs, updateOnErrorIntervalMs, syncIntervalMs } = this.config;
    const toUpdate: string[] = [];
    for (const [tenant, entry] of [...this.cache]) {
      if (now - entry.requestedAt >= idleTimeoutMs) {
        this.deleteEntry(tenant);
        this.deps.logger.info('unloaded bucket index', { user: tenant, reason: 'idle' });
      } else if (entry.kind !== 'loaded' && now - entry.updatedAt >= updateOnErrorIntervalMs) {
        toUpdate.push(tenant);
      } else if (entry.kind === 'loaded' && now - entry.updatedAt >= syncIntervalMs) {
        toUpdate.push(tenant);
      }
    }
    for (const tenant of toUpdate) await this.updateCachedIndex(tenant);
  }

  private async updateCachedIndex(tenant: string): Promise<void> {
    const { clock, logger } = this.deps;
    const started = clock.now();
    this.metrics.loads.inc();
    let index: BucketIndex | undefined;
    try {
      index = await this.readIndex(tenant);
    } catch (err) {
      // Keep what we had (a loaded index keeps serving until it is too stale); retried at
      // the next check.
      this.metrics.loadFailures.inc();
      logger.warn('unable to update bucket index', { user: tenant, err: errorMessage(err) });
      return;
    }
    const entry = this.cache.get(tenant);
    if (entry === undefined) return; // Dropped meanwhile.
    if (index === undefined) {
      // Deleted from the bucket: forget it, the next query reads again.
      this.deleteEntry(tenant);
      logger.info('unloaded bucket index', {
        user: tenant,
        reason: 'not found during periodic check',
      });
      return;
    }
    const now = clock.now();
    this.metrics.loadDuration.observe((now - started) / 1000);
    this.setEntry(tenant, {
      kind: 'loaded',
      index,
      updatedAt: started,
      requestedAt: entry.requestedAt,
    });
  }

  /** Number of tenants with an index in memory. */
  loadedCount(): number {
    let n = 0;
    for (const entry of this.cache.values()) if (entry.kind === 'loaded') n++;
    return n;
  }

  private setEntry(tenant: string, entry: CachedIndex): void {
    const before = this.cache.get(tenant)?.kind === 'loaded' ? 1 : 0;
    this.cache.set(tenant, entry);
    const after = entry.kind === 'loaded' ? 1 : 0;
    if (after !== before) this.metrics.loaded.inc(after - before);
  }

  private deleteEntry(tenant: string): void {
    if (this.cache.get(tenant)?.kind === 'loaded') this.metrics.loaded.dec();
    this.cache.delete(tenant);
  }

  private unloadAll(): void {
    for (const tenant of [...this.cache.keys()]) this.deleteEntry(tenant);
  }
}

/**
 * Reads `<tenant>/bucket-index.json.gz` with the bucket module's reader: undefined when
 * missing; a corrupted index rejects with its BucketIndexCorruptedError.
 */
export function bucketIndexReader(bucket: Bucket): BucketIndexReader {
  return async (tenant) => {
    try {
      return await readBucketIndex(bucket, tenant);
    } catch (err) {
      if (err instanceof BucketIndexNotFoundError) return undefined;
      throw err;
    }
  };
}
