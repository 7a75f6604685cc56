import {
  AbortError,
  DEFAULT_MAX_CAS_RETRIES,
  type KV,
  type MemoryKVStore,
  type RandomStream,
} from '../../src/runtime/index.js';
import type { SimKernel } from '../kernel/index.js';
import type { ServiceLink } from './service_call.js';
import { toError } from './to_error.js';

export interface SimKVConfig {
  /** Prepended to every key; keys are reported without it. */
  prefix: string;
  /** CAS attempts before giving up (Cortex's clients use 10). */
  maxCasRetries?: number;
  /** How long a watch waits before retrying after the store was unreachable. */
  watchRetryMs?: number;
  /**
   * Bound of the pause before a CAS retry (Consul client's `cas-retry-delay`, 1s in Cortex):
   * a `cas` that lost a race draws one pause in [0, bound) and waits it before each further
   * attempt, so clients that collided spread out instead of colliding again in lockstep
   * (several ingesters registering at the same instant exhausted the 10 attempts within
   * 133ms without it).
   */
  casRetryDelayMs?: number;
}

export interface SimKVDeps {
  kernel: SimKernel;
  store: MemoryKVStore;
  link: ServiceLink;
  /** Draws the CAS retry pauses; without it a conflicting `cas` retries at once. */
  random?: RandomStream;
}

/**
 * A node's client of the cluster's shared KV store. It behaves like Cortex's Consul client:
 * `cas` reads the versioned value in one round trip, runs `update` on the client, and writes
 * with a version check in a second round trip, retrying on conflict. Other clients' writes
 * can land in between, so CAS conflicts really happen under concurrency. Watches are long
 * polls: wait for a change on the store, then read the latest value one round trip later
 * (rapid changes coalesce). Unreachable store ⇒ RpcError 'unavailable'; watches retry.
 */
export class SimKV implements KV {
  private readonly prefix: string;
  private readonly maxCasRetries: number;
  private readonly watchRetryMs: number;
  private readonly casRetryDelayMs: number;
  private readonly closeController = new AbortController();

  constructor(
    config: SimKVConfig,
    private readonly deps: SimKVDeps,
  ) {
    this.prefix = config.prefix;
    this.maxCasRetries = config.maxCasRetries ?? DEFAULT_MAX_CAS_RETRIES;
    this.watchRetryMs = config.watchRetryMs ?? 1_000;
    this.casRetryDelayMs = config.casRetryDelayMs ?? 1_000;
  }

  get(key: string, signal?: AbortSignal): Promise<Uint8Array | undefined> {
    return this.call(signal, 'get', key, () =>
      this.deps.store.read(this.prefix + key)?.value.slice(),
    );
  }

  list(prefix: string, signal?: AbortSignal): Promise<string[]> {
    return this.call(signal, 'list', prefix, () =>
      this.deps.store.keys(this.prefix + prefix).map((k) => k.slice(this.prefix.length)),
    );
  }

  async cas(
    key: string,
    update: (current: Uint8Array | undefined) => Uint8Array | null | undefined,
    signal?: AbortSignal,
  ): Promise<void> {
    const fullKey = this.prefix + key;
    // Drawn at the first conflict only, so runs without conflicts draw nothing.
    let retryPauseMs: number | undefined;
    for (let attempt = 0; attempt < this.maxCasRetries; attempt++) {
      if (attempt > 0) {
        retryPauseMs ??= Math.floor((this.deps.random?.next() ?? 0) * this.casRetryDelayMs);
        if (retryPauseMs > 0) await this.sleep(retryPauseMs, 'kv.cas.retry', signal);
      }
      const current = await this.call(signal, 'cas.read', key, () => {
        const v = this.deps.store.read(fullKey);
        return v === undefined ? undefined : { value: v.value.slice(), version: v.version };
      });
      const next = update(current?.value);
      if (next === undefined) return;
      const copy = next === null ? null : next.slice();
      const written = await this.call(signal, 'cas.write', key, () =>
        this.deps.store.compareAndSwap(fullKey, current?.version ?? 0, copy),
      );
      if (written) return;
    }
    throw new Error(
      `failed to CAS key ${JSON.stringify(key)} (store key ${JSON.stringify(fullKey)}): ` +
        `modified concurrently on each of ${this.maxCasRetries} attempts`,
    );
  }

  delete(key: string, signal?: AbortSignal): Promise<void> {
    return this.call(signal, 'delete', key, () => this.deps.store.put(this.prefix + key, null));
  }

  async watchKey(
    key: string,
    signal: AbortSignal,
    onChange: (value: Uint8Array | undefined) => boolean,
  ): Promise<void> {
    const fullKey = this.prefix + key;
    await this.watch(
      signal,
      `watchKey ${key}`,
      (changed) => changed === fullKey,
      () => [fullKey],
      (_k, value) => onChange(value),
    );
  }

  async watchPrefix(
    prefix: string,
    signal: AbortSignal,
    onChange: (key: string, value: Uint8Array | undefined) => boolean,
  ): Promise<void> {
    const fullPrefix = this.prefix + prefix;
    await this.watch(
      signal,
      `watchPrefix ${prefix}`,
      (changed) => changed.startsWith(fullPrefix),
      () => this.deps.store.keys(fullPrefix),
      (k, value) => onChange(k.slice(this.prefix.length), value),
    );
  }

  close(): Promise<void> {
    this.closeController.abort();
    return Promise.resolve();
  }

  /**
   * The long-poll loop: subscribe on the store (server side), report the initial state, then
   * after each change read the changed keys in one round trip and report them.
   */
  private async watch(
    signal: AbortSignal,
    what: string,
    matches: (storeKey: string) => boolean,
    initialKeys: () => string[],
    report: (storeKey: string, value: Uint8Array | undefined) => boolean,
  ): Promise<void> {
    const closed = this.closeController.signal;
    if (signal.aborted || closed.aborted) return;
    const dirty = new Set<string>();
    let wake: (() => void) | undefined;
    const notify = (): void => {
      const w = wake;
      wake = undefined;
      w?.();
    };
    const unsubscribe = this.deps.store.subscribe((key) => {
      if (!matches(key)) return;
      dirty.add(key);
      notify();
    });
    // If the process dies, stop listening without waking the loop: a dead process's code
    // must never resume, so its watch just stays suspended forever.
    const forgetOnDeath = this.deps.link.owner.onDeath(unsubscribe);
    signal.addEventListener('abort', notify);
    closed.addEventListener('abort', notify);
    const ended = (): boolean => signal.aborted || closed.aborted;
    try {
      let first = true;
      for (;;) {
        if (ended()) return;
        if (!first && dirty.size === 0) {
          await new Promise<void>((resolve) => (wake = resolve));
          continue;
        }
        const changed = first ? undefined : [...dirty];
        dirty.clear();
        let values: Array<[string, Uint8Array | undefined]>;
        try {
          values = await this.deps.link.call('watch', what, () =>
            (changed ?? initialKeys()).map((k): [string, Uint8Array | undefined] => [
              k,
              this.deps.store.read(k)?.value.slice(),
            ]),
          );
        } catch {
          // Unreachable: keep what changed and poll again later, as a real client re-polls.
          for (const k of changed ?? []) dirty.add(k);
          await this.sleep(this.watchRetryMs, 'kv.watch.retry', signal);
          continue;
        }
        if (ended()) return;
        first = false;
        for (const [k, value] of values) {
          if (!report(k, value)) return;
        }
      }
    } finally {
      unsubscribe();
      forgetOnDeath();
      signal.removeEventListener('abort', notify);
      closed.removeEventListener('abort', notify);
    }
  }

  /** Waits `ms` of virtual time (less if `signal` aborts; never if the process dies). */
  private sleep(ms: number, kind: string, signal: AbortSignal | undefined): Promise<void> {
    return new Promise<void>((resolve) => {
      const onAbort = (): void => {
        ev.cancel();
        resolve();
      };
      const ev = this.deps.kernel.after(ms, { owner: this.deps.link.owner, kind }, () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      });
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  private call<T>(
    signal: AbortSignal | undefined,
    op: string,
    key: string,
    fn: () => T,
  ): Promise<T> {
    if (this.closeController.signal.aborted) {
      return Promise.reject(
        new Error(`kv client (prefix ${JSON.stringify(this.prefix)}) is closed`),
      );
    }
    if (signal?.aborted === true) return Promise.reject(new AbortError());
    const result = this.deps.link.call(op, key, fn);
    if (signal === undefined) return result;
    return new Promise<T>((resolve, reject) => {
      const onAbort = (): void => reject(new AbortError());
      signal.addEventListener('abort', onAbort, { once: true });
      result.then(
        (v) => {
          signal.removeEventListener('abort', onAbort);
          resolve(v);
        },
        (err: unknown) => {
          signal.removeEventListener('abort', onAbort);
          reject(toError(err));
        },
      );
    });
  }
}
