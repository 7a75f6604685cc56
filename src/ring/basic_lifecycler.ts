/**
 * Ring membership driven by its owner (Cortex's BasicLifecycler, as the store-gateway uses
 * it). It differs from the ingesters' Lifecycler in the one way that matters to such owners:
 * the instance registers JOINING *with* its tokens and stays JOINING until the owner moves it
 * (the store-gateway: once its blocks are loaded) — queriers read ACTIVE instances only, so
 * a store-gateway is never asked for blocks it has not loaded yet. The ingester Lifecycler
 * goes PENDING → JOINING → ACTIVE by itself, which is why this one exists.
 *
 * Delegates reproduced: tokens kept from the ring entry or the tokens file (filled up to the
 * token count), leave on stopping (LEAVING, then removed from the ring), and auto-forget of
 * instances unhealthy for 10 heartbeat timeouts on every heartbeat.
 */
import { JSON_RING_CODEC } from './codec.js';
import { allTokens, unixSeconds, type InstanceState, type RingDesc } from './model.js';
import { generateTokens, loadTokensFile, storeTokensFile } from './tokens.js';
import type { Clock, FileSystem, KV, Logger, Random } from '../runtime/index.js';
import { isAbortError } from '../runtime/index.js';
import { BasicService } from '../services/index.js';

export interface BasicLifecyclerConfig {
  ringName: string;
  key: string;
  id: string;
  /** Empty: resolved from `deps.addr()` at start. */
  addr: string;
  zone: string;
  numTokens: number;
  heartbeatPeriodMs: number;
  /** Instances whose heartbeat is older than this are removed; 0 disables auto-forget. */
  autoForgetAfterMs: number;
  /** Empty: tokens are neither restored nor stored. */
  tokensFilePath: string;
}

export interface BasicLifecyclerDeps {
  kv: KV;
  clock: Clock;
  random: Random;
  fs: FileSystem;
  logger: Logger;
  /** The address to register when `addr` is empty (the transport's listen address). */
  addr?: () => string | undefined;
}

export class BasicLifecycler extends BasicService {
  private ringState: InstanceState = 'JOINING';
  private tokens: number[] = [];
  private registeredAt = 0;
  private resolvedAddr = '';

  constructor(
    private readonly config: BasicLifecyclerConfig,
    private readonly deps: BasicLifecyclerDeps,
  ) {
    super(`${config.ringName}-lifecycler`, {
      starting: (signal) => this.register(signal),
      running: (signal) => this.heartbeatLoop(signal),
      stopping: () => this.leave(),
    });
    if (!(config.heartbeatPeriodMs > 0))
      throw new RangeError(`heartbeat_period must be > 0, got ${config.heartbeatPeriodMs}ms`);
  }

  get instanceId(): string {
    return this.config.id;
  }

  /** The address in the ring ('' before start). */
  get instanceAddr(): string {
    return this.resolvedAddr;
  }

  get instanceState(): InstanceState {
    return this.ringState;
  }

  get instanceTokens(): readonly number[] {
    return this.tokens;
  }

  async changeState(next: InstanceState, signal?: AbortSignal): Promise<void> {
    const previous = this.ringState;
    this.ringState = next;
    try {
      await this.update('change_state', signal);
    } catch (err) {
      this.ringState = previous;
      throw err;
    }
    this.deps.logger.info('changed instance state in the ring', {
      ring: this.config.ringName,
      from: previous,
      to: next,
    });
  }

  private async register(signal: AbortSignal): Promise<void> {
    this.resolvedAddr = this.config.addr !== '' ? this.config.addr : (this.deps.addr?.() ?? '');
    if (this.resolvedAddr === '')
      throw new Error(`${this.config.ringName} lifecycler: no instance address to register`);
    let fromFile: number[] | undefined;
    if (this.config.tokensFilePath !== '') {
      try {
        fromFile = await loadTokensFile(this.deps.fs, this.config.tokensFilePath);
      } catch (err) {
        // A bad file costs only the old tokens: the instance registers with new ones.
        this.deps.logger.error('error loading tokens from file', {
          path: this.config.tokensFilePath,
          err: (err as Error).message,
        });
      }
    }
    const stream = this.deps.random.stream(`ring/${this.config.ringName}/${this.config.id}/tokens`);
    await this.cas(signal, (desc) => {
      const existing = desc.ingesters[this.config.id];
      const own = existing?.tokens ?? fromFile ?? [];
      const taken = allTokens(desc).filter((t) => !own.includes(t));
      const fresh = generateTokens(
        Math.max(0, this.config.numTokens - own.length),
        [...taken, ...own],
        stream,
      );
      this.tokens = [...new Set([...own, ...fresh])].sort((a, b) => a - b);
      // Whatever the ring said, start clean: JOINING until the blocks are loaded (Cortex).
      this.ringState = 'JOINING';
      this.registeredAt = existing?.registeredTimestamp ?? unixSeconds(this.deps.clock.now());
      this.writeSelf(desc);
      return desc;
    });
    if (this.config.tokensFilePath !== '') {
      try {
        await storeTokensFile(this.deps.fs, this.config.tokensFilePath, this.tokens);
      } catch (err) {
        this.deps.logger.error('error storing tokens to file', {
          path: this.config.tokensFilePath,
          err: (err as Error).message,
        });
      }
    }
    this.deps.logger.info('instance registered in the ring', {
      ring: this.config.ringName,
      id: this.config.id,
      addr: this.resolvedAddr,
      state: this.ringState,
      tokens: this.tokens.length,
    });
  }

  private async heartbeatLoop(signal: AbortSignal): Promise<void> {
    const timer = this.deps.clock.every(this.config.heartbeatPeriodMs, async () => {
      try {
        await this.update('heartbeat', signal);
      } catch {
        // Logged by cas(); the next period tries again.
      }
    });
    try {
      await new Promise<void>((resolve) => {
        if (signal.aborted) resolve();
        else signal.addEventListener('abort', () => resolve(), { once: true });
      });
    } finally {
      timer.cancel();
    }
  }

  private async leave(): Promise<void> {
    try {
      await this.changeState('LEAVING');
    } catch {
      // Logged; the instance is removed below or forgotten by its peers.
    }
    try {
      await this.cas(undefined, (desc) => {
        if (desc.ingesters[this.config.id] === undefined) return undefined;
        delete desc.ingesters[this.config.id];
        return desc;
      });
      this.deps.logger.info('instance removed from the ring', {
        ring: this.config.ringName,
        id: this.config.id,
      });
    } catch {
      // A KV failure must not keep the process from stopping; peers auto-forget us.
    }
  }

  /** Rewrites our entry with a fresh heartbeat and forgets long-dead peers. */
  private update(operation: string, signal: AbortSignal | undefined): Promise<void> {
    return this.cas(signal, (desc) => {
      this.writeSelf(desc);
      if (operation === 'heartbeat') this.autoForget(desc);
      return desc;
    });
  }

  private autoForget(desc: RingDesc): void {
    const limitMs = this.config.autoForgetAfterMs;
    if (limitMs <= 0) return;
    const now = this.deps.clock.now();
    for (const [id, inst] of Object.entries(desc.ingesters)) {
      if (id === this.config.id || now - inst.timestamp * 1000 <= limitMs) continue;
      delete desc.ingesters[id];
      this.deps.logger.warn('auto-forgot an instance unhealthy for too long', {
        ring: this.config.ringName,
        id,
        last_heartbeat_s: inst.timestamp,
      });
    }
  }

  private writeSelf(desc: RingDesc): void {
    desc.ingesters[this.config.id] = {
      addr: this.resolvedAddr,
      timestamp: unixSeconds(this.deps.clock.now()),
      state: this.ringState,
      tokens: [...this.tokens],
      zone: this.config.zone,
      registeredTimestamp: this.registeredAt,
    };
  }

  private async cas(
    signal: AbortSignal | undefined,
    mutate: (desc: RingDesc) => RingDesc | undefined,
  ): Promise<void> {
    try {
      await this.deps.kv.cas(
        this.config.key,
        (current) => {
          const next = mutate(JSON_RING_CODEC.decode(current));
          return next === undefined ? undefined : JSON_RING_CODEC.encode(next);
        },
        signal,
      );
    } catch (err) {
      if (!isAbortError(err))
        this.deps.logger.error('failed to update the ring in the KV store', {
          ring: this.config.ringName,
          err: (err as Error).message,
        });
      throw err;
    }
  }
}
