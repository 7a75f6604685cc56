import { AbortError, type Clock } from '../clock.js';
import type { KV } from '../kv.js';
import type { Logger } from '../logger.js';
import type { MetricsRegistry } from '../metrics.js';
import { MultiKVMetrics } from './multi_kv_metrics.js';

/** Cortex's `-multi.mirror-timeout` default. */
export const DEFAULT_MIRROR_TIMEOUT_MS = 2_000;

export interface MultiKVConfig {
  /** Store names (`etcd`, `consul`, ...) of the two clients: what `switchPrimary` takes. */
  primary: string;
  secondary: string;
  /** Mirror writes to the secondary (`-multi.mirror-enabled`, default off). */
  mirrorEnabled?: boolean;
  /** Limit on one mirror write (`-multi.mirror-timeout`, default 2 s). */
  mirrorTimeoutMs?: number;
  /** Labels this client's metrics and logs (`kv_name`), e.g. the ring's key prefix. */
  name?: string;
}

export interface MultiKVDeps {
  /** The client of the store named `config.primary`, and of `config.secondary`. */
  primaryKV: KV;
  secondaryKV: KV;
  clock: Clock;
  logger: Logger;
  registry: MetricsRegistry;
  /** Called once by `close()` (the provider forgets the client). */
  onClose?: () => void;
}

/** The runtime configuration's `multi_kv_config` block; absent fields change nothing. */
export interface MultiKVRuntimeSettings {
  primary?: string;
  mirror_enabled?: boolean;
}

interface NamedKV {
  readonly name: string;
  readonly kv: KV;
}

/** An operation running against the primary; aborted when the primary changes. */
interface InFlight {
  readonly client: NamedKV;
  readonly abort: AbortController;
}

/**
 * Cortex's multi KV client. Reads and watches use the current primary; every write goes to
 * the primary and, when mirroring is on, the value written is then stored in the secondary
 * within the mirror timeout. Mirror failures never fail the caller: they are logged and
 * counted (`cortex_multikv_mirror_write_errors_total`). Switching the primary restarts
 * running watches on the new primary, which first reports its current state.
 *
 * Unlike Cortex, deletions (`delete`, or a CAS update returning null) are mirrored too, so a
 * secondary that later becomes primary does not resurrect removed instances.
 */
export class MultiKV implements KV {
  private readonly clients: readonly [NamedKV, NamedKV];
  private primaryIndex = 0;
  private mirrorEnabled: boolean;
  private readonly mirrorTimeoutMs: number;
  private readonly name: string;
  private readonly metrics: MultiKVMetrics;
  private readonly inFlight = new Set<InFlight>();
  private readonly closing = new AbortController();

  constructor(
    config: MultiKVConfig,
    private readonly deps: MultiKVDeps,
  ) {
    this.clients = [
      { name: config.primary, kv: deps.primaryKV },
      { name: config.secondary, kv: deps.secondaryKV },
    ];
    this.mirrorEnabled = config.mirrorEnabled ?? false;
    this.mirrorTimeoutMs = config.mirrorTimeoutMs ?? DEFAULT_MIRROR_TIMEOUT_MS;
    if (!Number.isFinite(this.mirrorTimeoutMs) || this.mirrorTimeoutMs <= 0) {
      throw new RangeError(`mirrorTimeoutMs must be > 0, got ${config.mirrorTimeoutMs}`);
    }
    this.name = config.name ?? '';
    this.metrics = new MultiKVMetrics(deps.registry);
    this.updateGauges();
  }

  /** The store name of the current primary. */
  primaryName(): string {
    return this.primary().name;
  }

  isMirrorEnabled(): boolean {
    return this.mirrorEnabled;
  }

  /**
   * Makes the client named `store` the primary; running watches move to it. Returns whether
   * the primary changed. An unknown name is logged and ignored, as Cortex does, so a
   * runtime-config reload never takes a ring down.
   */
  switchPrimary(store: string): boolean {
    const index = this.clients.findIndex((c) => c.name === store);
    if (index < 0) {
      this.deps.logger.error('failed to switch primary KV store: not one of this multi client', {
        kv_name: this.name,
        primary: store,
        stores: this.clients.map((c) => c.name),
      });
      return false;
    }
    if (index === this.primaryIndex) return false;
    const previous = this.primary();
    this.primaryIndex = index;
    this.updateGauges();
    this.deps.logger.info('switched primary KV store', {
      kv_name: this.name,
      primary: store,
      previous: previous.name,
    });
    for (const op of this.inFlight) if (op.client === previous) op.abort.abort();
    return true;
  }

  setMirrorEnabled(enabled: boolean): void {
    if (enabled === this.mirrorEnabled) return;
    this.mirrorEnabled = enabled;
    this.updateGauges();
    this.deps.logger.info('toggled mirroring', { kv_name: this.name, enabled });
  }

  /** Applies a reloaded `multi_kv_config`; empty or absent fields are ignored (Cortex). */
  applyRuntimeConfig(settings: Readonly<MultiKVRuntimeSettings>): void {
    if (settings.mirror_enabled !== undefined) this.setMirrorEnabled(settings.mirror_enabled);
    if (settings.primary !== undefined && settings.primary !== '') {
      this.switchPrimary(settings.primary);
    }
  }

  async get(key: string, signal?: AbortSignal): Promise<Uint8Array | undefined> {
    return this.primaryFor(signal).get(key, signal);
  }

  async list(prefix: string, signal?: AbortSignal): Promise<string[]> {
    return this.primaryFor(signal).list(prefix, signal);
  }

  async cas(
    key: string,
    update: (current: Uint8Array | undefined) => Uint8Array | null | undefined,
    signal?: AbortSignal,
  ): Promise<void> {
    const primary = this.primaryFor(signal);
    // What the last call of `update` decided, copied: that is what the primary stored.
    let written: Uint8Array | null | undefined;
    await primary.cas(
      key,
      (current) => {
        const next = update(current);
        written = next === undefined || next === null ? next : next.slice();
        return next;
      },
      signal,
    );
    if (written !== undefined) await this.mirror(key, written);
  }

  async delete(key: string, signal?: AbortSignal): Promise<void> {
    await this.primaryFor(signal).delete(key, signal);
    await this.mirror(key, null);
  }

  async watchKey(
    key: string,
    signal: AbortSignal,
    onChange: (value: Uint8Array | undefined) => boolean,
  ): Promise<void> {
    return this.watchOnPrimary(signal, (client, s, keepGoing) =>
      client.watchKey(key, s, (v) => keepGoing(onChange(v))),
    );
  }

  async watchPrefix(
    prefix: string,
    signal: AbortSignal,
    onChange: (key: string, value: Uint8Array | undefined) => boolean,
  ): Promise<void> {
    return this.watchOnPrimary(signal, (client, s, keepGoing) =>
      client.watchPrefix(prefix, s, (k, v) => keepGoing(onChange(k, v))),
    );
  }

  async close(): Promise<void> {
    if (this.closing.signal.aborted) return;
    this.closing.abort();
    this.deps.onClose?.();
    for (const op of this.inFlight) op.abort.abort();
    await Promise.all(this.clients.map((c) => c.kv.close()));
  }

  private primary(): NamedKV {
    return this.clients[this.primaryIndex]!;
  }

  private primaryFor(signal: AbortSignal | undefined): KV {
    if (this.closing.signal.aborted) {
      throw new Error(`multi kv client ${JSON.stringify(this.name)} is closed`);
    }
    if (signal?.aborted) throw new AbortError();
    return this.primary().kv;
  }

  /**
   * Runs a watch on the current primary; when the primary changes, the watch is aborted and
   * started again on the new one. Ends when `signal` aborts, the client closes, or the
   * callback returns false.
   */
  private async watchOnPrimary(
    signal: AbortSignal,
    run: (client: KV, signal: AbortSignal, keepGoing: (ok: boolean) => boolean) => Promise<void>,
  ): Promise<void> {
    let stopped = false;
    const keepGoing = (ok: boolean): boolean => {
      if (!ok) stopped = true;
      return ok;
    };
    while (!stopped && !signal.aborted && !this.closing.signal.aborted) {
      const op: InFlight = { client: this.primary(), abort: new AbortController() };
      this.inFlight.add(op);
      try {
        await run(
          op.client.kv,
          AbortSignal.any([signal, this.closing.signal, op.abort.signal]),
          keepGoing,
        );
      } finally {
        this.inFlight.delete(op);
      }
      // Only a primary switch aborts `op` without ending the caller's watch: go round again.
      if (!op.abort.signal.aborted) return;
    }
  }

  /** Stores `value` (null: deletes) in the secondary; never throws. */
  private async mirror(key: string, value: Uint8Array | null): Promise<void> {
    if (!this.mirrorEnabled) return;
    const secondary = this.clients[1 - this.primaryIndex]!;
    this.metrics.mirrorWrites.inc({ kv_name: this.name });
    const timeout = new AbortController();
    const timer = this.deps.clock.setTimer(this.mirrorTimeoutMs, () => timeout.abort());
    let onTimeout: (() => void) | undefined;
    try {
      await Promise.race([
        secondary.kv.cas(key, () => value, timeout.signal),
        // A secondary that ignores the signal must not hold the caller past the timeout.
        new Promise<never>((_, reject) => {
          onTimeout = () =>
            reject(new Error(`mirror write timed out after ${this.mirrorTimeoutMs} ms`));
          timeout.signal.addEventListener('abort', onTimeout, { once: true });
        }),
      ]);
      this.deps.logger.debug('stored updated value to secondary store', {
        kv_name: this.name,
        key,
        secondary: secondary.name,
      });
    } catch (err) {
      this.metrics.mirrorWriteErrors.inc({ kv_name: this.name });
      this.deps.logger.warn('failed to update value in secondary store', {
        kv_name: this.name,
        key,
        primary: this.primary().name,
        secondary: secondary.name,
        err: err instanceof Error ? err.message : String(err),
      });
    } finally {
      timer.cancel();
      if (onTimeout !== undefined) timeout.signal.removeEventListener('abort', onTimeout);
    }
  }

  private updateGauges(): void {
    for (const [i, c] of this.clients.entries()) {
      this.metrics.primaryStore.set(
        { kv_name: this.name, store: c.name },
        i === this.primaryIndex ? 1 : 0,
      );
    }
    this.metrics.mirrorEnabled.set({ kv_name: this.name }, this.mirrorEnabled ? 1 : 0);
  }
}
