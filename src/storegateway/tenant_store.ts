/**
 * One tenant's bucket store (Thanos's BucketStore as Cortex runs it per tenant): syncs the
 * held blocks with the fetched block list, and answers series, label-name and label-value
 * queries over the requested blocks it holds, at most `max_concurrent` at a time.
 *
 * A block that fails during a query (unreadable range, missing chunk file, corrupt data) is
 * logged, counted and left out of `queriedBlocks`, and the other blocks still answer: the
 * querier's consistency check then asks another replica for it, or reports it by ID.
 */
import type { Matcher } from '../model/index.js';
import type { Clock, FileSystem, Logger } from '../runtime/index.js';
import { forEachBounded } from '../ingester/index.js';
import { isCanonicalUlid, type BlockMeta } from '../tsdb/index.js';
import {
  emptyBlockQueryStats,
  type BlockQueryStats,
  type LoadedBlock,
  type StoreSeries,
} from './block_api.js';
import type { TenantBlockLoader } from './block_loader.js';
import { isQueryError } from './bucket_block_error.js';
import { MAX_SAMPLES_PER_CHUNK, SampleLimitError } from './errors.js';
import { QueryGate } from './gate.js';
import { mergeSeriesSets, mergeSortedStrings } from './merge.js';
import type { MetaFetcher } from './meta_fetcher.js';
import type { MetaSyncState, StoreGatewayMetrics } from './metrics.js';
import { TenantBlocks, type BlockLease } from './tenant_blocks.js';

export interface TenantStoreConfig {
  /** `<sync_dir>/<tenant>` */
  dir: string;
  blockSyncConcurrency: number;
  maxConcurrent: number;
  /** 0: no limit. */
  maxSampleCount: number;
  lazyLoading: boolean;
  idleTimeoutMs: number;
}

export interface TenantStoreDeps {
  tenant: string;
  fs: FileSystem;
  clock: Clock;
  logger: Logger;
  metrics: StoreGatewayMetrics;
  loader: TenantBlockLoader;
  fetcher: MetaFetcher;
}

/** A series query as the store layer takes it (matchers decoded). */
export interface SeriesQuery {
  /** Inclusive ms. */
  start: number;
  end: number;
  matchers: readonly Matcher[];
  blockIds: readonly string[];
  skipChunks?: boolean;
}

export interface LabelsQuery {
  start: number;
  end: number;
  matchers: readonly Matcher[];
  blockIds: readonly string[];
}

export interface SeriesResult {
  series: StoreSeries[];
  /** The requested blocks that answered. */
  queriedBlocks: string[];
  stats: BlockQueryStats;
}

export interface LabelsResult {
  values: string[];
  queriedBlocks: string[];
}

export class TenantStore {
  readonly blocks: TenantBlocks;
  private readonly gate: QueryGate;
  /** The fetcher's per-state counts of the last sync (for the metrics' per-tenant sums). */
  lastSynced = new Map<MetaSyncState, number>();

  constructor(
    private readonly config: TenantStoreConfig,
    private readonly deps: TenantStoreDeps,
  ) {
    this.blocks = new TenantBlocks(
      { dir: config.dir, lazyLoading: config.lazyLoading, idleTimeoutMs: config.idleTimeoutMs },
      deps,
    );
    this.gate = new QueryGate(config.maxConcurrent, deps);
  }

  get tenant(): string {
    return this.deps.tenant;
  }

  /**
   * Thanos's SyncBlocks: loads new blocks (`block_sync_concurrency` at a time) and, when the
   * fetch saw the whole tenant, drops the blocks no longer listed. Block load failures do not
   * fail the sync; an incomplete fetch does, after the new blocks were added.
   */
  async sync(signal?: AbortSignal): Promise<void> {
    const result = await this.deps.fetcher.fetch(signal);
    this.lastSynced = result.synced;
    const fresh = [...result.metas.values()].filter((m) => !this.blocks.has(m.ulid));
    await forEachBounded(fresh, this.config.blockSyncConcurrency, async (meta) => {
      if (signal?.aborted) return;
      await this.blocks.add(meta, signal);
    });
    if (result.error !== undefined) throw result.error;
    const gone = this.blocks.ids().filter((id) => !result.metas.has(id));
    await Promise.all(gone.map((id) => this.blocks.drop(id)));
  }

  /** Thanos's InitialSync: a sync, then removal of block directories left from before. */
  async initialSync(signal?: AbortSignal): Promise<void> {
    await this.sync(signal);
    await this.blocks.removeStrayDirs(isCanonicalUlid);
  }

  /** Shutdown: closes the blocks, keeps their local files. */
  async close(): Promise<void> {
    await this.blocks.closeAll();
    await this.deps.loader.close?.();
  }

  /** The tenant is no longer served here: drops every block and its local files. */
  async drop(): Promise<void> {
    await this.blocks.dropAll();
    await this.deps.loader.close?.();
  }

  async series(q: SeriesQuery, signal?: AbortSignal): Promise<SeriesResult> {
    return this.gate.run(() => this.seriesUngated(q, signal), signal);
  }

  async labelNames(q: LabelsQuery, signal?: AbortSignal): Promise<LabelsResult> {
    return this.gate.run(
      () => this.labels(q, (b, s) => b.labelNames(q.matchers, { signal: s }), signal),
      signal,
    );
  }

  async labelValues(
    q: LabelsQuery & { name: string },
    signal?: AbortSignal,
  ): Promise<LabelsResult> {
    return this.gate.run(
      () => this.labels(q, (b, s) => b.labelValues(q.name, q.matchers, { signal: s }), signal),
      signal,
    );
  }

  private async seriesUngated(q: SeriesQuery, signal?: AbortSignal): Promise<SeriesResult> {
    const { metrics } = this.deps;
    const stats = emptyBlockQueryStats();
    const local = linkedController(signal);
    let chunks = 0;
    const limit = this.config.maxSampleCount;
    let answers: { results: StoreSeries[][]; queried: string[] };
    try {
      answers = await this.forEachBlock(q, local, async (block, s) => {
        const series = await block.series(q.matchers, q.start, q.end, {
          signal: s,
          stats,
          ...(q.skipChunks === true ? { skipChunks: true } : {}),
        });
        if (limit > 0) {
          for (const x of series) chunks += x.chunks.length;
          if (chunks * MAX_SAMPLES_PER_CHUNK > limit) {
            const err = new SampleLimitError(limit, chunks);
            // The answer is lost anyway: stop the other blocks' reads.
            local.controller.abort(err);
            throw err;
          }
        }
        return series;
      });
    } catch (err) {
      if (err instanceof SampleLimitError) metrics.queriesDropped.inc();
      throw err;
    } finally {
      local.dispose();
    }
    const series = mergeSeriesSets(answers.results);
    metrics.blocksQueried.observe(answers.queried.length);
    metrics.resultSeries.observe(series.length);
    metrics.dataFetched.observe({ data_type: 'series' }, stats.seriesFetched);
    metrics.dataFetched.observe({ data_type: 'chunks' }, stats.chunksFetched);
    metrics.dataFetched.observe({ data_type: 'requests' }, stats.bucketRequests);
    metrics.dataSizeFetched.observe({ data_type: 'bucket' }, stats.bucketBytes);
    return { series, queriedBlocks: answers.queried, stats };
  }

  private async labels(
    q: LabelsQuery,
    run: (block: LoadedBlock, signal: AbortSignal) => Promise<string[]>,
    signal?: AbortSignal,
  ): Promise<LabelsResult> {
    const local = linkedController(signal);
    try {
      const answers = await this.forEachBlock(q, local, run);
      return { values: mergeSortedStrings(answers.results), queriedBlocks: answers.queried };
    } finally {
      local.dispose();
    }
  }

  /**
   * Runs `fn` on every requested block held, concurrently. Held blocks outside the time
   * range count as queried (they hold nothing for it). A failing block is dropped from the
   * answer; an abort (the caller's, or the sample limit's) fails the whole query.
   */
  private async forEachBlock<T>(
    q: { start: number; end: number; blockIds: readonly string[] },
    local: { controller: AbortController },
    fn: (block: LoadedBlock, signal: AbortSignal) => Promise<T>,
  ): Promise<{ results: T[]; queried: string[] }> {
    const signal = local.controller.signal;
    const leases = this.blocks.lease(new Set(q.blockIds));
    const queried: string[] = [];
    // By lease order, not completion order, so equal chunks of two blocks merge the same way
    // every run.
    const byLease: (T | undefined)[] = leases.map(() => undefined);
    let fatal: { err: unknown } | undefined;
    await Promise.all(
      leases.map(async (lease, i) => {
        try {
          if (overlaps(lease.meta, q.start, q.end)) {
            const block = await lease.open(signal);
            byLease[i] = await fn(block, signal);
          }
          queried.push(lease.meta.ulid);
        } catch (err) {
          // The caller's abort, the sample limit, an exhausted chunk pool: the query's own
          // failure, not the block's.
          if (signal.aborted || isQueryError(err))
            fatal ??= { err: signal.aborted ? signal.reason : err };
          else this.blockFailed(lease, err);
        } finally {
          lease.release();
        }
      }),
    );
    if (fatal !== undefined) throw fatal.err;
    queried.sort();
    return { results: byLease.filter((r): r is T => r !== undefined), queried };
  }

  private blockFailed(lease: BlockLease, err: unknown): void {
    this.deps.metrics.blockQueryFailures.inc();
    this.deps.logger.error('block query failed; the block is left out of the answer', {
      tenant: this.deps.tenant,
      block: lease.meta.ulid,
      err: err instanceof Error ? err.message : String(err),
    });
  }

  async unloadIdle(): Promise<void> {
    await this.blocks.unloadIdle();
  }
}

/** Thanos's block selection: the block's [minTime, maxTime] touches [start, end]. */
function overlaps(meta: BlockMeta, start: number, end: number): boolean {
  return meta.minTime <= end && meta.maxTime >= start;
}

/** A controller aborted with `parent`; `dispose` detaches it. */
function linkedController(parent: AbortSignal | undefined): {
  controller: AbortController;
  dispose: () => void;
} {
  const controller = new AbortController();
  if (parent === undefined) return { controller, dispose: () => undefined };
  const onAbort = (): void => controller.abort(parent.reason);
  if (parent.aborted) onAbort();
  else parent.addEventListener('abort', onAbort, { once: true });
  return { controller, dispose: () => parent.removeEventListener('abort', onAbort) };
}
