import { throwIfAborted } from '../clock.js';
import type { KV } from '../kv.js';
import type { MemoryKVStore } from './memory_kv_store.js';

export interface MemoryKVConfig {
  /** Prepended to every key (e.g. `collectors/`); keys are reported without it. */
  prefix?: string;
  /** CAS attempts before giving up; Cortex's clients use 10. */
  maxCasRetries?: number;
}

/** Cortex's bound on CAS attempts (consul/etcd clients) before reporting a conflict. */
export const DEFAULT_MAX_CAS_RETRIES = 10;

/**
 * A KV client over a shared MemoryKVStore. Several clients (one per ring, per prefix) share
 * one store, as rings in one Cortex process share the `inmemory` store. Values are copied on
 * the way in and out.
 */
export class MemoryKV implements KV {
  private readonly prefix: string;
  private readonly maxCasRetries: number;
  private readonly activeWatches = new Set<ChangeWaiter>();
  private closed = false;

  constructor(
    config: MemoryKVConfig,
    private readonly deps: { store: MemoryKVStore },
  ) {
    this.prefix = config.prefix ?? '';
    this.maxCasRetries = config.maxCasRetries ?? DEFAULT_MAX_CAS_RETRIES;
    if (!Number.isSafeInteger(this.maxCasRetries) || this.maxCasRetries < 1) {
      throw new RangeError(`maxCasRetries must be a positive integer, got ${config.maxCasRetries}`);
    }
  }

  get(key: string, signal?: AbortSignal): Promise<Uint8Array | undefined> {
    return this.run(signal, () => this.deps.store.read(this.prefix + key)?.value.slice());
  }

  list(prefix: string, signal?: AbortSignal): Promise<string[]> {
    return this.run(signal, () =>
      this.deps.store.keys(this.prefix + prefix).map((k) => k.slice(this.prefix.length)),
    );
  }

  cas(
    key: string,
    update: (current: Uint8Array | undefined) => Uint8Array | null | undefined,
    signal?: AbortSignal,
  ): Promise<void> {
    return this.run(signal, () => {
      const fullKey = this.prefix + key;
      for (let attempt = 0; attempt < this.maxCasRetries; attempt++) {
        throwIfAborted(signal);
        const current = this.deps.store.read(fullKey);
        const next = update(current?.value.slice());
        if (next === undefined) return;
        if (this.deps.store.compareAndSwap(fullKey, current?.version ?? 0, next)) return;
      }
      throw new Error(
        `failed to CAS key ${JSON.stringify(key)} (store key ${JSON.stringify(fullKey)}): ` +
          `modified concurrently on each of ${this.maxCasRetries} attempts`,
      );
    });
  }

  delete(key: string, signal?: AbortSignal): Promise<void> {
    return this.run(signal, () => this.deps.store.put(this.prefix + key, null));
  }

  async watchKey(
    key: string,
    signal: AbortSignal,
    onChange: (value: Uint8Array | undefined) => boolean,
  ): Promise<void> {
    const fullKey = this.prefix + key;
    await this.watch(
      signal,
      (changedKey, waiter) => {
        if (changedKey === fullKey) waiter.notify();
      },
      () => onChange(this.deps.store.read(fullKey)?.value.slice()),
      () => onChange(this.deps.store.read(fullKey)?.value.slice()),
    );
  }

  async watchPrefix(
    prefix: string,
    signal: AbortSignal,
    onChange: (key: string, value: Uint8Array | undefined) => boolean,
  ): Promise<void> {
    const fullPrefix = this.prefix + prefix;
    // Changed keys in order of first change since the last report; a Set coalesces repeats.
    const dirty = new Set<string>();
    const report = (keys: Iterable<string>): boolean => {
      for (const k of keys) {
        if (!onChange(k.slice(this.prefix.length), this.deps.store.read(k)?.value.slice())) {
          return false;
        }
      }
      return true;
    };
    await this.watch(
      signal,
      (changedKey, waiter) => {
        if (!changedKey.startsWith(fullPrefix)) return;
        dirty.add(changedKey);
        waiter.notify();
      },
      () => {
        dirty.clear();
        return report(this.deps.store.keys(fullPrefix));
      },
      () => {
        const keys = [...dirty];
        dirty.clear();
        return report(keys);
      },
    );
  }

  close(): Promise<void> {
    this.closed = true;
    for (const waiter of this.activeWatches) waiter.notify();
    return Promise.resolve();
  }

  /**
   * The watch loop shared by watchKey and watchPrefix: subscribe first (so no change between
   * the initial report and the first wait is lost), report the current state, then report
   * after each wake-up until the signal aborts, the client closes or a report returns false.
   */
  private async watch(
    signal: AbortSignal,
    onStoreChange: (key: string, waiter: ChangeWaiter) => void,
    reportInitial: () => boolean,
    reportChanges: () => boolean,
  ): Promise<void> {
    if (this.closed || signal.aborted) return;
    const waiter = new ChangeWaiter();
    const unsubscribe = this.deps.store.subscribe((key) => onStoreChange(key, waiter));
    const onAbort = (): void => waiter.notify();
    signal.addEventListener('abort', onAbort);
    this.activeWatches.add(waiter);
    try {
      if (!reportInitial()) return;
      for (;;) {
        await waiter.wait();
        if (signal.aborted || this.closed) return;
        if (!reportChanges()) return;
      }
    } finally {
      unsubscribe();
      signal.removeEventListener('abort', onAbort);
      this.activeWatches.delete(waiter);
    }
  }

  private run<T>(signal: AbortSignal | undefined, body: () => T): Promise<T> {
    try {
      if (this.closed)
        throw new Error(`kv client (prefix ${JSON.stringify(this.prefix)}) is closed`);
      throwIfAborted(signal);
      return Promise.resolve(body());
    } catch (err) {
      return Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
  }
}

/**
 * A level-triggered wake-up: notifications before `wait()` are remembered, and every
 * notification up to the moment the waiter resumes is absorbed by that one wake-up (the
 * caller reads the latest state right after).
 */
class ChangeWaiter {
  private pending = false;
  private wake: (() => void) | undefined;

  notify(): void {
    this.pending = true;
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }

  async wait(): Promise<void> {
    if (!this.pending) {
      await new Promise<void>((resolve) => {
        this.wake = resolve;
      });
    }
    this.pending = false;
  }
}
