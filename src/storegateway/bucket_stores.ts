/**
 * All tenants' bucket stores on one store-gateway (Cortex's BucketStores): discovers the
 * tenants in the bucket, keeps a TenantStore for each tenant this instance serves, syncs
 * `tenant_sync_concurrency` tenants at a time with retries, drops tenants it no longer
 * serves (from memory and from `<sync_dir>`), and routes queries by tenant. This is the
 * API the RPC handlers and an in-process querier use.
 */
import { GLOBAL_MARKERS_DIR } from '../bucket/index.js';
import type { BucketIndex } from '../bucket/index.js';
import { forEachBounded } from '../ingester/index.js';
import {
  isAbortError,
  type Bucket,
  type Clock,
  type FileSystem,
  type Logger,
  type Random,
} from '../runtime/index.js';
import type { BlockMeta } from '../tsdb/index.js';
import { emptyBlockQueryStats } from './block_api.js';
import type { BlockLoaderFactory } from './block_loader.js';
import {
  BucketIndexMetaFetcher,
  BucketScanMetaFetcher,
  type MetaFetcher,
  type MetaFetcherDeps,
} from './meta_fetcher.js';
import {
  ConsistencyDelayFilter,
  IgnoreDeletionMarkFilter,
  ReplicaLabelRemover,
  ShardingMetaFilter,
} from './meta_filters.js';
import { META_SYNC_STATES, type MetaSyncState, type StoreGatewayMetrics } from './metrics.js';
import type { ShardingStrategy } from './sharding.js';
import {
  TenantStore,
  type LabelsQuery,
  type LabelsResult,
  type SeriesQuery,
  type SeriesResult,
} from './tenant_store.js';

export interface BucketStoresConfig {
  syncDir: string;
  tenantSyncConcurrency: number;
  blockSyncConcurrency: number;
  metaSyncConcurrency: number;
  consistencyDelayMs: number;
  ignoreDeletionMarkDelayMs: number;
  /** Blocks from `<tenant>/bucket-index.json.gz` (true) or a bucket scan (false). */
  bucketIndexEnabled: boolean;
  /** Concurrent queries per tenant; 0 = no limit. */
  maxConcurrent: number;
  /** 0 = no limit. */
  maxSampleCount: number;
  maxChunkPoolBytes: number;
  lazyLoadingEnabled: boolean;
  lazyLoadingIdleTimeoutMs: number;
}

export interface BucketStoresDeps {
  bucket: Bucket;
  fs: FileSystem;
  clock: Clock;
  random: Random;
  logger: Logger;
  metrics: StoreGatewayMetrics;
  blockLoader: BlockLoaderFactory;
  sharding: ShardingStrategy;
  /** Replaces the bucket module's index reader (tests). */
  readIndex?: (bucket: Bucket, tenant: string) => Promise<BucketIndex>;
}

/** What the pages show of one held block. */
export interface HeldBlock {
  meta: BlockMeta;
  /** Open in memory (always, unless lazy loading closed it). */
  open: boolean;
}

/** Cortex's sync retries: 3 attempts, backoff from 1s doubling up to 10s. */
const SYNC_ATTEMPTS = 3;
const SYNC_MIN_BACKOFF_MS = 1_000;
const SYNC_MAX_BACKOFF_MS = 10_000;

export class BucketStores {
  private readonly stores = new Map<string, TenantStore>();
  /** Each tenant's share of the `cortex_blocks_meta_synced` gauge. */
  private readonly syncedShare = new Map<string, Map<MetaSyncState, number>>();
  /** Syncs run one at a time (periodic and ring-change syncs may be due together). */
  private syncChain: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly config: BucketStoresConfig,
    private readonly deps: BucketStoresDeps,
  ) {
    deps.metrics.gateMax.set(config.maxConcurrent);
  }

  /** The initial sync; block dirs of a previous run that are not needed are removed. */
  initialSync(signal?: AbortSignal): Promise<void> {
    return this.serialized(() => this.syncWithRetries(true, signal));
  }

  /** A periodic or ring-change sync. */
  syncBlocks(signal?: AbortSignal): Promise<void> {
    return this.serialized(() => this.syncWithRetries(false, signal));
  }

  /** Tenants with a store here, sorted. */
  tenants(): string[] {
    return [...this.stores.keys()].sort();
  }

  /** The blocks held for `tenant`, by ULID; empty for an unknown tenant. */
  blocks(tenant: string): HeldBlock[] {
    const store = this.stores.get(tenant);
    if (store === undefined) return [];
    return store.blocks
      .metas()
      .sort((a, b) => (a.ulid < b.ulid ? -1 : 1))
      .map((meta) => ({ meta, open: store.blocks.isOpen(meta.ulid) }));
  }

  /** Series of the requested blocks held here; a tenant without a store has none. */
  async series(tenant: string, q: SeriesQuery, signal?: AbortSignal): Promise<SeriesResult> {
    const store = this.stores.get(tenant);
    if (store === undefined)
      return { series: [], queriedBlocks: [], stats: emptyBlockQueryStats() };
    return store.series(q, signal);
  }

  async labelNames(tenant: string, q: LabelsQuery, signal?: AbortSignal): Promise<LabelsResult> {
    const store = this.stores.get(tenant);
    if (store === undefined) return { values: [], queriedBlocks: [] };
    return store.labelNames(q, signal);
  }

  async labelValues(
    tenant: string,
    q: LabelsQuery & { name: string },
    signal?: AbortSignal,
  ): Promise<LabelsResult> {
    const store = this.stores.get(tenant);
    if (store === undefined) return { values: [], queriedBlocks: [] };
    return store.labelValues(q, signal);
  }

  /** Closes lazily opened blocks idle for the idle timeout. */
  async unloadIdleBlocks(): Promise<void> {
    for (const store of this.stores.values()) await store.unloadIdle();
  }

  /** Closes every block (local files stay for the next start). */
  async close(): Promise<void> {
    await this.syncChain.catch(() => undefined);
    for (const [tenant, store] of this.stores) {
      await store.close();
      this.stores.delete(tenant);
      this.setSyncedShare(tenant, undefined);
    }
  }

  private serialized(fn: () => Promise<void>): Promise<void> {
    const run = this.syncChain.catch(() => undefined).then(fn);
    this.syncChain = run;
    return run;
  }

  private async syncWithRetries(initial: boolean, signal?: AbortSignal): Promise<void> {
    const stream = this.deps.random.stream('storegateway/sync-backoff');
    let lastErr: unknown;
    for (let attempt = 0; attempt < SYNC_ATTEMPTS; attempt++) {
      const start = this.deps.clock.now();
      try {
        await this.syncOnce(initial, signal);
        this.deps.metrics.syncSeconds.observe((this.deps.clock.now() - start) / 1000);
        this.deps.metrics.lastSuccessfulSync.set(Math.floor(this.deps.clock.now() / 1000));
        return;
      } catch (err) {
        if (isAbortError(err) || signal?.aborted) throw err;
        this.deps.metrics.syncSeconds.observe((this.deps.clock.now() - start) / 1000);
        lastErr = err;
        this.deps.logger.warn('failed to synchronize blocks', {
          attempt: attempt + 1,
          err: (err as Error).message,
        });
        if (attempt + 1 < SYNC_ATTEMPTS) {
          const backoff = Math.min(SYNC_MAX_BACKOFF_MS, SYNC_MIN_BACKOFF_MS * 2 ** attempt);
          // Jitter in [backoff/2, backoff), so gateways restarted together do not retry in step.
          await this.deps.clock.sleep(backoff / 2 + stream.next() * (backoff / 2), signal);
        }
      }
    }
    throw lastErr;
  }

  private async syncOnce(initial: boolean, signal?: AbortSignal): Promise<void> {
    const { metrics, logger, sharding } = this.deps;
    // A partial tenant list would unload tenants this gateway still serves: no sync at all.
    const discovered = await servedTenants(this.deps.bucket);
    const included = new Set(sharding.filterTenants(discovered));
    metrics.tenantsDiscovered.set(discovered.length);
    metrics.tenantsSynced.set(included.size);
    const errors: string[] = [];
    await forEachBounded([...included], this.config.tenantSyncConcurrency, async (tenant) => {
      const existing = this.stores.get(tenant);
      const store = existing ?? this.createStore(tenant);
      try {
        // A new store (first sync of the tenant, or of this process) clears stale block dirs.
        if (initial || existing === undefined) await store.initialSync(signal);
        else await store.sync(signal);
      } catch (err) {
        if (isAbortError(err)) throw err;
        errors.push(`tenant ${tenant}: ${(err as Error).message}`);
      } finally {
        this.setSyncedShare(tenant, store.lastSynced);
      }
    });
    if (signal?.aborted) throw signal.reason;
    for (const [tenant, store] of [...this.stores]) {
      if (included.has(tenant)) continue;
      logger.info('tenant no longer served here: dropping its blocks', { tenant });
      this.stores.delete(tenant);
      this.setSyncedShare(tenant, undefined);
      await store.drop();
      await this.removeTenantDir(tenant);
    }
    await this.removeStrayTenantDirs(included);
    if (errors.length > 0) throw new Error(`failed to synchronize blocks: ${errors.join('; ')}`);
  }

  private createStore(tenant: string): TenantStore {
    const { bucket, fs, clock, logger, metrics, sharding } = this.deps;
    const c = this.config;
    const tenantLogger = logger.child({ tenant });
    const filters = [
      // The sharding filter must come first (Cortex).
      new ShardingMetaFilter(sharding),
      new ConsistencyDelayFilter(c.consistencyDelayMs, () => clock.now()),
      new IgnoreDeletionMarkFilter(c.ignoreDeletionMarkDelayMs, {
        bucket,
        now: () => clock.now(),
        logger: tenantLogger,
        concurrency: c.metaSyncConcurrency,
      }),
      new ReplicaLabelRemover(),
    ];
    const fetcherDeps: MetaFetcherDeps = {
      bucket,
      logger: tenantLogger,
      metrics,
      filters,
      owned: () => sharding.filterTenants([tenant]).length === 1,
      ...(this.deps.readIndex === undefined ? {} : { readIndex: this.deps.readIndex }),
    };
    const fetcher: MetaFetcher = c.bucketIndexEnabled
      ? new BucketIndexMetaFetcher(tenant, fetcherDeps)
      : new BucketScanMetaFetcher(tenant, { concurrency: c.metaSyncConcurrency }, fetcherDeps);
    const store = new TenantStore(
      {
        dir: tenantDir(c.syncDir, tenant),
        blockSyncConcurrency: c.blockSyncConcurrency,
        maxConcurrent: c.maxConcurrent,
        maxSampleCount: c.maxSampleCount,
        lazyLoading: c.lazyLoadingEnabled,
        idleTimeoutMs: c.lazyLoadingIdleTimeoutMs,
      },
      {
        tenant,
        fs,
        clock,
        logger: tenantLogger,
        metrics,
        loader: this.deps.blockLoader(tenant, { maxChunkPoolBytes: c.maxChunkPoolBytes }),
        fetcher,
      },
    );
    this.stores.set(tenant, store);
    logger.info('created tenant bucket store', { tenant });
    return store;
  }

  private async removeTenantDir(tenant: string): Promise<void> {
    const dir = tenantDir(this.config.syncDir, tenant);
    try {
      await this.deps.fs.remove(dir, { recursive: true });
      this.deps.logger.info('deleted tenant sync directory', { tenant, dir });
    } catch (err) {
      this.deps.logger.warn('failed to delete tenant sync directory', {
        tenant,
        dir,
        err: (err as Error).message,
      });
    }
  }

  /** Cortex's deleteLocalFilesForExcludedTenants, for directories left by a previous run. */
  private async removeStrayTenantDirs(included: ReadonlySet<string>): Promise<void> {
    let names: string[];
    try {
      names = await this.deps.fs.readdir(this.config.syncDir);
    } catch {
      return;
    }
    for (const name of names) {
      if (included.has(name) || this.stores.has(name)) continue;
      const stat = await this.deps.fs.stat(`${this.config.syncDir}/${name}`);
      if (stat?.isDirectory === true) await this.removeTenantDir(name);
    }
  }

  /** Moves the summed gauge by the change of one tenant's counts (undefined: remove). */
  private setSyncedShare(tenant: string, counts: Map<MetaSyncState, number> | undefined): void {
    const gauge = this.deps.metrics.metaSynced;
    const previous = this.syncedShare.get(tenant);
    for (const state of META_SYNC_STATES) {
      const delta = (counts?.get(state) ?? 0) - (previous?.get(state) ?? 0);
      if (delta !== 0) gauge.inc({ state }, delta);
    }
    if (counts === undefined) this.syncedShare.delete(tenant);
    else this.syncedShare.set(tenant, new Map(counts));
  }
}

/** `<sync_dir>/<tenant>` */
export function tenantDir(syncDir: string, tenant: string): string {
  return `${syncDir}/${tenant}`;
}

/**
 * The tenants a store-gateway serves, as Cortex's store-gateway scans them: every tenant
 * with objects under its prefix, active or marked for deletion (Cortex keeps serving a
 * deleting tenant; its blocks go when the compactor deletes its bucket index, then the
 * blocks). A tenant with nothing left but its global deletion mark is not one.
 */
async function servedTenants(bucket: Bucket): Promise<string[]> {
  const tenants: string[] = [];
  for (const entry of await bucket.list('')) {
    // Objects at the root (user-index.json.gz, stray files) are not tenants.
    if (!entry.endsWith('/')) continue;
    const tenant = entry.slice(0, -1);
    if (tenant !== GLOBAL_MARKERS_DIR) tenants.push(tenant);
  }
  return tenants.sort();
}
