import { MemoryCache, type Cache, type Clock } from '../../src/runtime/index.js';
import type { ServiceLink } from './service_call.js';

export interface SimCacheServerConfig {
  name: string;
  maxSizeBytes: number;
}

/**
 * A shared cache server of the simulated cluster (what memcached is in production): a
 * MemoryCache whose TTLs run on virtual time. `wipe()` is the "cache loss" fault: every entry
 * is gone at once, as when memcached restarts.
 */
export class SimCacheServer {
  private current: MemoryCache;
  private wipes = 0;

  constructor(
    readonly config: SimCacheServerConfig,
    private readonly deps: { clock: Clock },
  ) {
    this.current = this.fresh();
  }

  get cache(): MemoryCache {
    return this.current;
  }

  get wipeCount(): number {
    return this.wipes;
  }

  wipe(): void {
    this.wipes++;
    this.current = this.fresh();
  }

  private fresh(): MemoryCache {
    return new MemoryCache(
      { name: this.config.name, maxSizeBytes: this.config.maxSizeBytes },
      { clock: this.deps.clock },
    );
  }
}

/**
 * A node's client of a SimCacheServer. Following the Cache contract, failures are misses:
 * an unreachable server or an injected error makes `getMulti` return no hits and `setMulti`
 * drop its entries, never an error for the caller.
 */
export class SimCache implements Cache {
  readonly name: string;
  private readonly pendingSets = new Set<Promise<void>>();
  private failures = 0;

  constructor(
    private readonly server: SimCacheServer,
    private readonly link: ServiceLink,
  ) {
    this.name = `sim:${server.config.name}`;
  }

  /** Calls that failed and were turned into misses or dropped stores. */
  get failedCalls(): number {
    return this.failures;
  }

  async getMulti(keys: readonly string[], signal?: AbortSignal): Promise<Map<string, Uint8Array>> {
    const wanted = [...keys];
    try {
      return await this.link.call('getMulti', `${wanted.length} keys`, () =>
        this.server.cache.getMulti(wanted, signal),
      );
    } catch (err) {
      if (err instanceof Error && err.name === 'AbortError') throw err;
      this.failures++;
      return new Map();
    }
  }

  setMulti(entries: ReadonlyMap<string, Uint8Array>, ttlMs: number): void {
    const copy = new Map([...entries].map(([k, v]) => [k, v.slice()] as const));
    const done = this.link
      .call('setMulti', `${copy.size} keys`, () => this.server.cache.setMulti(copy, ttlMs))
      .catch(() => {
        this.failures++;
      })
      .finally(() => this.pendingSets.delete(done));
    this.pendingSets.add(done);
  }

  async delete(key: string): Promise<void> {
    try {
      await this.link.call('delete', key, () => this.server.cache.delete(key));
    } catch {
      this.failures++;
    }
  }

  /** Resolves when every earlier `setMulti` has been stored or dropped. */
  async flush(): Promise<void> {
    while (this.pendingSets.size > 0) await Promise.all([...this.pendingSets]);
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
