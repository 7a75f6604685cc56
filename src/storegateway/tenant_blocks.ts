/**
 * The blocks one store-gateway holds for one tenant, each with its local directory
 * `<sync_dir>/<tenant>/<block>/` and, once opened, its LoadedBlock. Loading prepares the
 * index-header (reused from disk after a restart) and, unless lazy loading is on, opens the
 * block; lazy blocks open on first use and close again after an idle timeout (the header
 * file stays). A block being dropped waits for the queries using it before it is closed and
 * its directory removed, so a sync never pulls a block from under a running query.
 */
import type { Clock, FileSystem, Logger } from '../runtime/index.js';
import type { BlockMeta } from '../tsdb/index.js';
import type { LoadedBlock } from './block_api.js';
import type { TenantBlockLoader } from './block_loader.js';
import type { StoreGatewayMetrics } from './metrics.js';

export interface TenantBlocksConfig {
  /** `<sync_dir>/<tenant>` */
  dir: string;
  lazyLoading: boolean;
  /** 0: lazily opened blocks stay open. */
  idleTimeoutMs: number;
}

export interface TenantBlocksDeps {
  tenant: string;
  fs: FileSystem;
  clock: Clock;
  logger: Logger;
  metrics: StoreGatewayMetrics;
  loader: TenantBlockLoader;
}

interface Entry {
  readonly meta: BlockMeta;
  readonly dir: string;
  block: LoadedBlock | undefined;
  opening: Promise<LoadedBlock> | undefined;
  lastUsed: number;
  users: number;
  onIdle: (() => void) | undefined;
}

/** A held block lent to a query; `release` must be called exactly once. */
export interface BlockLease {
  readonly meta: BlockMeta;
  open(signal?: AbortSignal): Promise<LoadedBlock>;
  release(): void;
}

export class TenantBlocks {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly config: TenantBlocksConfig,
    private readonly deps: TenantBlocksDeps,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  has(id: string): boolean {
    return this.entries.has(id);
  }

  ids(): string[] {
    return [...this.entries.keys()];
  }

  metas(): BlockMeta[] {
    return [...this.entries.values()].map((e) => e.meta);
  }

  /** Whether the block is open in memory (always, unless lazy loading). */
  isOpen(id: string): boolean {
    return this.entries.get(id)?.block !== undefined;
  }

  /**
   * Loads one block; failures are logged and counted and leave no trace on disk (the next
   * sync tries again). Resolves to whether the block is now held.
   */
  async add(meta: BlockMeta, signal?: AbortSignal): Promise<boolean> {
    const { fs, loader, metrics, logger, tenant } = this.deps;
    const id = meta.ulid;
    if (this.entries.has(id)) return true;
    const dir = `${this.config.dir}/${id}`;
    metrics.blockLoads.inc();
    let block: LoadedBlock | undefined;
    try {
      await fs.mkdir(dir, { recursive: true });
      await loader.prepare(meta, dir, signal);
      if (!this.config.lazyLoading) block = await loader.open(meta, dir, signal);
    } catch (err) {
      metrics.blockLoadFailures.inc();
      logger.error('failed to load block; it is retried on the next sync', {
        tenant,
        block: id,
        err: (err as Error).message,
      });
      await fs.remove(dir, { recursive: true }).catch(() => undefined);
      return false;
    }
    this.entries.set(id, {
      meta,
      dir,
      block,
      opening: undefined,
      lastUsed: this.deps.clock.now(),
      users: 0,
      onIdle: undefined,
    });
    metrics.blocksLoaded.inc();
    logger.debug('loaded block', { tenant, block: id, lazy: this.config.lazyLoading });
    return true;
  }

  /** Stops serving the block, then closes it and removes its directory once unused. */
  async drop(id: string): Promise<void> {
    const entry = this.entries.get(id);
    if (entry === undefined) return;
    const { fs, metrics, logger, tenant } = this.deps;
    this.entries.delete(id);
    metrics.blocksLoaded.dec();
    if (entry.users > 0) await new Promise<void>((resolve) => (entry.onIdle = resolve));
    try {
      const block = entry.block ?? (await entry.opening?.catch(() => undefined));
      await block?.close();
      await fs.remove(entry.dir, { recursive: true });
      metrics.blockDrops.inc();
      logger.info('dropped block', { tenant, block: id });
    } catch (err) {
      metrics.blockDropFailures.inc();
      logger.warn('failed to drop block', { tenant, block: id, err: (err as Error).message });
    }
  }

  async dropAll(): Promise<void> {
    await Promise.all(this.ids().map((id) => this.drop(id)));
  }

  /**
   * Shutdown: closes every block once its queries finished, keeping the local files (the
   * next start reuses the index-headers).
   */
  async closeAll(): Promise<void> {
    const entries = [...this.entries.values()];
    this.entries.clear();
    this.deps.metrics.blocksLoaded.dec(entries.length);
    await Promise.all(
      entries.map(async (entry) => {
        if (entry.users > 0) await new Promise<void>((resolve) => (entry.onIdle = resolve));
        const block = entry.block ?? (await entry.opening?.catch(() => undefined));
        await block?.close().catch((err: unknown) =>
          this.deps.logger.warn('failed to close block', {
            tenant: this.deps.tenant,
            block: entry.meta.ulid,
            err: (err as Error).message,
          }),
        );
      }),
    );
  }

  /** Lends the held blocks among `ids` (others are simply absent from the answer). */
  lease(ids: Iterable<string>): BlockLease[] {
    const out: BlockLease[] = [];
    for (const id of ids) {
      const entry = this.entries.get(id);
      if (entry === undefined) continue;
      entry.users++;
      let released = false;
      out.push({
        meta: entry.meta,
        open: (signal) => this.open(entry, signal),
        release: () => {
          if (released) return;
          released = true;
          entry.lastUsed = this.deps.clock.now();
          entry.users--;
          if (entry.users === 0) entry.onIdle?.();
        },
      });
    }
    return out;
  }

  private async open(entry: Entry, signal?: AbortSignal): Promise<LoadedBlock> {
    entry.lastUsed = this.deps.clock.now();
    if (entry.block !== undefined) return entry.block;
    if (entry.opening === undefined) {
      const { metrics, loader } = this.deps;
      entry.opening = loader.open(entry.meta, entry.dir, signal).then(
        (block) => {
          entry.block = block;
          entry.opening = undefined;
          metrics.lazyLoads.inc();
          return block;
        },
        (err: unknown) => {
          entry.opening = undefined;
          metrics.lazyLoadFailures.inc();
          throw err;
        },
      );
    }
    return entry.opening;
  }

  /** Closes lazily opened blocks unused for the idle timeout. */
  async unloadIdle(): Promise<void> {
    if (!this.config.lazyLoading || this.config.idleTimeoutMs <= 0) return;
    const now = this.deps.clock.now();
    for (const [id, entry] of this.entries) {
      const block = entry.block;
      if (block === undefined || entry.users > 0) continue;
      if (now - entry.lastUsed < this.config.idleTimeoutMs) continue;
      entry.block = undefined;
      try {
        await block.close();
        this.deps.metrics.lazyUnloads.inc();
      } catch (err) {
        this.deps.metrics.lazyUnloadFailures.inc();
        this.deps.logger.warn('failed to unload idle block', {
          tenant: this.deps.tenant,
          block: id,
          err: (err as Error).message,
        });
      }
    }
  }

  /**
   * Removes block directories under the tenant's dir that hold no loaded block (left by a
   * previous run for blocks since deleted or moved to another gateway). Other entries (not
   * named like a block) are left alone.
   */
  async removeStrayDirs(isBlockDirName: (name: string) => boolean): Promise<void> {
    const { fs, logger, tenant } = this.deps;
    let names: string[];
    try {
      names = await fs.readdir(this.config.dir);
    } catch {
      return;
    }
    for (const name of names) {
      if (!isBlockDirName(name) || this.entries.has(name)) continue;
      try {
        await fs.remove(`${this.config.dir}/${name}`, { recursive: true });
        logger.info('removed local directory of a block no longer held', { tenant, block: name });
      } catch (err) {
        logger.warn('failed to remove a stale block directory', {
          tenant,
          block: name,
          err: (err as Error).message,
        });
      }
    }
  }
}
