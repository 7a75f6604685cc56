/**
 * The lifecycler (Cortex's `ring.Lifecycler`): registers one instance in a ring, claims its
 * tokens, heartbeats, and leaves on shutdown. Every ring change is a compare-and-swap of the
 * whole descriptor that only rewrites this instance's entry, so concurrent lifecyclers on one
 * key never lose each other's updates and never claim the same token.
 */
import { Gauge, type Counter } from 'prom-client';
import type { Clock, FileSystem, KV, Logger, MetricsRegistry, Random } from '../runtime/index.js';
import { isAbortError, registeredCounter } from '../runtime/index.js';
import { BasicService } from '../services/index.js';
import { JSON_RING_CODEC, type RingCodec } from './codec.js';
import { allTokens, unixSeconds, type InstanceState, type RingDesc } from './model.js';
import { generateTokens, loadTokensFile, storeTokensFile } from './tokens.js';

export interface LifecyclerConfig {
  /** Ring name for logs and metrics (`ingester`...). */
  ringName: string;
  /** KV key of the ring descriptor. */
  key: string;
  /** Instance ID (Cortex: `-ingester.lifecycler.ID`, the hostname by default). */
  id: string;
  addr: string;
  zone: string;
  numTokens: number;
  heartbeatPeriodMs: number;
  /** Wait in PENDING this long before claiming tokens (Cortex `join_after`). */
  joinAfterMs: number;
  /** Empty: tokens are neither restored at startup nor stored. */
  tokensFilePath: string;
  unregisterOnShutdown: boolean;
}

export interface LifecyclerDeps {
  kv: KV;
  clock: Clock;
  random: Random;
  /** Needed only when `tokensFilePath` is set. */
  fs?: FileSystem;
  logger: Logger;
  metrics: MetricsRegistry;
  codec?: RingCodec;
  /** Runs in LEAVING before unregistering (the ingester flushes here). */
  onLeaving?: () => Promise<void>;
}

/** Allowed state changes; anything else is refused (Cortex's `changeState` rules). */
const TRANSITIONS: Readonly<Record<InstanceState, readonly InstanceState[]>> = {
  PENDING: ['JOINING', 'ACTIVE', 'LEAVING'],
  JOINING: ['ACTIVE', 'LEAVING'],
  ACTIVE: ['LEAVING', 'READONLY'],
  READONLY: ['ACTIVE', 'LEAVING'],
  LEAVING: [],
  LEFT: [],
};

export class Lifecycler extends BasicService {
  private ringState: InstanceState = 'PENDING';
  private tokens: number[] = [];
  private registeredAt = 0;
  private unregisterOnShutdown: boolean;
  private readonly codec: RingCodec;
  private readonly heartbeats: Counter;
  private readonly kvErrors: Counter;
  private readonly tokensOwned: Gauge;
  private readonly tokensToOwn: Gauge;

  constructor(
    private readonly config: LifecyclerConfig,
    private readonly deps: LifecyclerDeps,
  ) {
    super(`${config.ringName}-lifecycler`, {
      starting: (signal) => this.starting(signal),
      running: (signal) => this.running(signal),
      stopping: () => this.stopping(),
      isReady: () =>
        this.ringState === 'ACTIVE' || this.ringState === 'READONLY'
          ? undefined
          : `instance ${config.id} is ${this.ringState} in the ${config.ringName} ring`,
    });
    if (!Number.isSafeInteger(config.numTokens) || config.numTokens < 1) {
      throw new RangeError(`num_tokens must be >= 1, got ${config.numTokens}`);
    }
    if (!(config.heartbeatPeriodMs > 0)) {
      throw new RangeError(`heartbeat_period must be > 0, got ${config.heartbeatPeriodMs}ms`);
    }
    if (config.tokensFilePath !== '' && deps.fs === undefined) {
      throw new Error('a tokens file path is configured but no FileSystem was given');
    }
    this.unregisterOnShutdown = config.unregisterOnShutdown;
    this.codec = deps.codec ?? JSON_RING_CODEC;
    const m = deps.metrics;
    this.heartbeats = registeredCounter(
      m,
      'cortex_member_consul_heartbeats_total',
      'The total number of heartbeats sent to consul.',
      ['name'],
    );
    this.kvErrors = registeredCounter(
      m,
      'strata_ring_kv_errors_total',
      'Ring updates that failed in the KV store, by operation.',
      ['name', 'operation'],
    );
    this.tokensOwned = getOrCreateGauge(
      m,
      'cortex_member_ring_tokens_owned',
      'The number of tokens owned in the ring.',
    );
    this.tokensToOwn = getOrCreateGauge(
      m,
      'cortex_member_ring_tokens_to_own',
      'The number of tokens to own in the ring.',
    );
    this.tokensToOwn.set({ name: config.ringName }, config.numTokens);
  }

  get instanceState(): InstanceState {
    return this.ringState;
  }

  get instanceTokens(): readonly number[] {
    return this.tokens;
  }

  get id(): string {
    return this.config.id;
  }

  /** Whether stopping removes the instance from the ring. */
  setUnregisterOnShutdown(value: boolean): void {
    this.unregisterOnShutdown = value;
  }

  /**
   * `/ingester/shutdown`: stop and remove the instance from the ring even when
   * `unregister_on_shutdown` is off. Resolves once the lifecycler has terminated.
   */
  async forceUnregister(): Promise<void> {
    this.unregisterOnShutdown = true;
    await this.stop();
  }

  /**
   * `/ingester/mode`: switch between ACTIVE and READONLY. A READONLY instance takes no writes
   * (the ring's WRITE operation skips it) and still serves reads.
   */
  async setMode(mode: 'ACTIVE' | 'READONLY'): Promise<void> {
    if (this.state !== 'Running') {
      throw new Error(
        `cannot change the mode of ${this.config.id}: the lifecycler is ${this.state}`,
      );
    }
    if (this.ringState === mode) return;
    await this.changeState(mode);
  }

  /** Moves to `next` and writes it to the ring; throws for a disallowed transition. */
  async changeState(next: InstanceState, signal?: AbortSignal): Promise<void> {
    if (!TRANSITIONS[this.ringState].includes(next)) {
      throw new Error(`Changing instance state from ${this.ringState} -> ${next} is disallowed`);
    }
    const previous = this.ringState;
    this.ringState = next;
    try {
      await this.updateRing('change_state', signal);
    } catch (err) {
      this.ringState = previous;
      throw err;
    }
    this.deps.logger.info('changed instance state', {
      ring: this.config.ringName,
      from: previous,
      to: next,
    });
  }

  private async starting(signal: AbortSignal): Promise<void> {
    let fromFile: number[] | undefined;
    if (this.config.tokensFilePath !== '' && this.deps.fs !== undefined) {
      try {
        fromFile = await loadTokensFile(this.deps.fs, this.config.tokensFilePath);
      } catch (err) {
        // A bad tokens file costs only the old tokens: the instance joins with new ones.
        this.deps.logger.error('error loading tokens from file', {
          ring: this.config.ringName,
          path: this.config.tokensFilePath,
          err: (err as Error).message,
        });
      }
    }
    await this.cas('init', signal, (desc) => {
      const now = this.deps.clock.now();
      const existing = desc.ingesters[this.config.id];
      if (existing === undefined) {
        this.registeredAt = unixSeconds(now);
        if (fromFile !== undefined && fromFile.length > 0) {
          this.tokens = fromFile;
          // A full set of tokens from the file means the instance was a member before: it
          // comes back ACTIVE instead of walking through PENDING and JOINING again.
          if (fromFile.length >= this.config.numTokens) this.ringState = 'ACTIVE';
          this.deps.logger.info('adding tokens from file', { num_tokens: fromFile.length });
        } else {
          this.deps.logger.info('instance not found in ring, adding with no tokens', {
            ring: this.config.ringName,
          });
        }
      } else {
        // The ring is right about an instance it already knows (restart without a file).
        this.registeredAt = existing.registeredTimestamp;
        this.tokens = [...existing.tokens];
        this.ringState = existing.state;
        if (existing.state === 'JOINING') this.ringState = 'PENDING';
        if (existing.state === 'LEAVING' && existing.tokens.length === this.config.numTokens) {
          this.ringState = 'ACTIVE';
        }
        if (existing.state === 'LEFT') this.ringState = 'PENDING';
      }
      this.writeSelf(desc, now);
      return desc;
    });
    this.tokensOwned.set({ name: this.config.ringName }, this.tokens.length);
  }

  private async running(signal: AbortSignal): Promise<void> {
    const heartbeat = this.deps.clock.every(this.config.heartbeatPeriodMs, () =>
      this.heartbeat(signal),
    );
    try {
      if (this.ringState === 'PENDING' || this.tokens.length < this.config.numTokens) {
        await this.deps.clock.sleep(this.config.joinAfterMs, signal);
        await this.joinUntilDone(signal);
      }
      await new Promise<void>((resolve) => {
        if (signal.aborted) resolve();
        else signal.addEventListener('abort', () => resolve(), { once: true });
      });
    } catch (err) {
      if (!isAbortError(err)) throw err;
    } finally {
      heartbeat.cancel();
    }
  }

  /** Claims tokens (JOINING), then becomes ACTIVE; KV errors are retried every heartbeat period. */
  private async joinUntilDone(signal: AbortSignal): Promise<void> {
    for (;;) {
      try {
        await this.autoJoin(signal);
        return;
      } catch (err) {
        if (isAbortError(err)) throw err;
        // Already logged and counted by cas(); try again later.
        await this.deps.clock.sleep(this.config.heartbeatPeriodMs, signal);
      }
    }
  }

  private async autoJoin(signal: AbortSignal): Promise<void> {
    const stream = this.deps.random.stream(`ring/${this.config.ringName}/${this.config.id}/tokens`);
    if (this.tokens.length < this.config.numTokens) {
      let claimed: number[] = this.tokens;
      await this.cas('join', signal, (desc) => {
        // Generated inside the update so the taken set is the one this write is based on.
        const own = desc.ingesters[this.config.id]?.tokens ?? this.tokens;
        const fresh = generateTokens(this.config.numTokens - own.length, allTokens(desc), stream);
        claimed = [...own, ...fresh].sort((a, b) => a - b);
        const state = this.ringState === 'PENDING' ? 'JOINING' : this.ringState;
        this.writeSelf(desc, this.deps.clock.now(), { state, tokens: claimed });
        return desc;
      });
      this.tokens = claimed;
      if (this.ringState === 'PENDING') this.ringState = 'JOINING';
      this.tokensOwned.set({ name: this.config.ringName }, this.tokens.length);
      await this.storeTokens();
    }
    if (this.ringState === 'PENDING' || this.ringState === 'JOINING')
      await this.changeState('ACTIVE', signal);
  }

  private async storeTokens(): Promise<void> {
    if (this.config.tokensFilePath === '' || this.deps.fs === undefined) return;
    try {
      await storeTokensFile(this.deps.fs, this.config.tokensFilePath, this.tokens);
    } catch (err) {
      this.deps.logger.error('error storing tokens to file', {
        path: this.config.tokensFilePath,
        err: (err as Error).message,
      });
    }
  }

  private async heartbeat(signal: AbortSignal): Promise<void> {
    try {
      await this.updateRing('heartbeat', signal);
      this.heartbeats.inc({ name: this.config.ringName });
    } catch {
      // Logged and counted by cas(); the next period tries again.
    }
  }

  private async stopping(): Promise<void> {
    if (this.ringState !== 'LEAVING') {
      try {
        if (TRANSITIONS[this.ringState].includes('LEAVING')) await this.changeState('LEAVING');
      } catch {
        // A KV error must not keep the process from shutting down; it was logged.
      }
    }
    await this.deps.onLeaving?.();
    if (this.unregisterOnShutdown) {
      await this.cas('unregister', undefined, (desc) => {
        if (desc.ingesters[this.config.id] === undefined) return undefined;
        delete desc.ingesters[this.config.id];
        return desc;
      });
      this.deps.logger.info('instance removed from the ring', {
        ring: this.config.ringName,
        id: this.config.id,
      });
    }
  }

  /** Rewrites this instance's entry with the current state and a fresh heartbeat. */
  private updateRing(operation: string, signal: AbortSignal | undefined): Promise<void> {
    return this.cas(operation, signal, (desc) => {
      if (desc.ingesters[this.config.id] === undefined) {
        // Someone forgot us (status page) or the store lost its data while we are alive.
        this.deps.logger.warn('instance missing in the ring, adding it back', {
          ring: this.config.ringName,
          id: this.config.id,
        });
      }
      this.writeSelf(desc, this.deps.clock.now());
      return desc;
    });
  }

  private writeSelf(
    desc: RingDesc,
    nowMs: number,
    pending: { state: InstanceState; tokens: readonly number[] } = {
      state: this.ringState,
      tokens: this.tokens,
    },
  ): void {
    desc.ingesters[this.config.id] = {
      addr: this.config.addr,
      timestamp: unixSeconds(nowMs),
      state: pending.state,
      tokens: [...pending.tokens],
      zone: this.config.zone,
      registeredTimestamp: this.registeredAt,
    };
  }

  /** One CAS of the ring key; failures are logged and counted, then rethrown. */
  private async cas(
    operation: string,
    signal: AbortSignal | undefined,
    mutate: (desc: RingDesc) => RingDesc | undefined,
  ): Promise<void> {
    try {
      await this.deps.kv.cas(
        this.config.key,
        (current) => {
          const next = mutate(this.codec.decode(current));
          return next === undefined ? undefined : this.codec.encode(next);
        },
        signal,
      );
    } catch (err) {
      if (isAbortError(err)) throw err;
      this.kvErrors.inc({ name: this.config.ringName, operation });
      this.deps.logger.error('failed to update the ring in the KV store', {
        ring: this.config.ringName,
        operation,
        err: (err as Error).message,
      });
      throw err;
    }
  }
}

function getOrCreateGauge(registry: MetricsRegistry, name: string, help: string): Gauge {
  const existing = registry.getSingleMetric(name);
  if (existing instanceof Gauge) return existing;
  return new Gauge({ name, help, labelNames: ['name'], registers: [registry] });
}
