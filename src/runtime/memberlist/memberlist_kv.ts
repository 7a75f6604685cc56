/**
 * The process's gossiped key-value store (dskit's `memberlist.KV` plus its init service):
 * one per process, shared by every ring and the HA tracker, each opening a prefix-scoped
 * client with its value codec. Local writes merge into this member's state and are gossiped;
 * incoming states merge in and are re-gossiped when they changed something.
 */
import type { Clock } from '../clock.js';
import type { KV, MemberlistKVSource } from '../kv.js';
import type { Logger } from '../logger.js';
import type { MetricsRegistry } from '../metrics.js';
import type { Random } from '../random.js';
import type { Transport } from '../transport.js';
import { MemberlistKVClient, type MemberlistKVCore } from './client.js';
import { LWW_CODEC_ID, type MergeCodec } from './codec.js';
import { memberlistKVConfig, type MemberlistKVConfig } from './config.js';
import { Gossiper } from './gossiper.js';
import { GossipedStore } from './kv_store.js';
import { MemberlistMetrics } from './metrics.js';
import { memberlistStatus, type MemberlistStatus } from './status.js';

export interface MemberlistKVDeps {
  transport: Transport;
  clock: Clock;
  random: Random;
  logger: Logger;
  registry: MetricsRegistry;
  /** The Env's node name: the member name when `nodeName` is empty. */
  nodeName: string;
  /** Codecs of the values this process may receive (registered before joining, as in Cortex). */
  codecs?: readonly MergeCodec<unknown>[];
}

type Phase = 'new' | 'running' | 'stopping' | 'stopped';

/** Cortex's tombstoneSweepInterval: deleted keys are looked at this often. */
const TOMBSTONE_SWEEP_INTERVAL_MS = 30_000;

export class MemberlistKV implements MemberlistKVSource {
  readonly config: MemberlistKVConfig;
  /** This member's name (with the random suffix when randomize_node_name is on). */
  readonly name: string;
  private readonly store: GossipedStore;
  private readonly gossiper: Gossiper;
  private readonly clients = new Set<MemberlistKVClient>();
  private readonly core: MemberlistKVCore;
  private phase: Phase = 'new';
  private joinedMembers = 0;
  private readonly stopController = new AbortController();
  private sweepTimer: { cancel(): void } | undefined;
  private rejoinTimer: { cancel(): void } | undefined;

  constructor(
    config: Partial<MemberlistKVConfig>,
    private readonly deps: MemberlistKVDeps,
  ) {
    this.config = memberlistKVConfig(config);
    const random = deps.random.stream('memberlist');
    const base = this.config.nodeName !== '' ? this.config.nodeName : deps.nodeName;
    this.name = this.config.randomizeNodeName
      ? `${base}-${Buffer.from(random.bytes(4)).toString('hex')}`
      : base;
    const metrics = new MemberlistMetrics(deps.registry);
    this.store = new GossipedStore(this.config, {
      clock: deps.clock,
      logger: deps.logger,
      metrics,
      name: this.name,
      numMembers: () => this.gossiper.numMembers(),
      gossipLocalUpdates: () => this.phase === 'new' || this.phase === 'running',
    });
    for (const codec of deps.codecs ?? []) this.store.registerCodec(codec);
    this.gossiper = new Gossiper(
      { ...this.config, name: this.name },
      {
        transport: deps.transport,
        clock: deps.clock,
        random,
        logger: deps.logger,
        metrics,
        delegate: this.store,
      },
    );
    this.core = {
      view: this.store.state.view,
      cas: (key, codecId, update, signal) => this.store.cas(key, codecId, update, signal),
      delete: (key, signal) => this.store.delete(key, signal),
      forget: (client) => this.clients.delete(client),
    };
  }

  /** Makes values of `codec` mergeable here; a second codec with the same ID is an error. */
  registerCodec<T>(codec: MergeCodec<T>): void {
    this.store.registerCodec(codec);
  }

  /** A KV client under `prefix` whose values use `codec` (last-writer-wins bytes when absent). */
  openClient(prefix: string, codec?: string | MergeCodec<unknown>): KV {
    let codecId: string;
    if (codec === undefined) codecId = LWW_CODEC_ID;
    else if (typeof codec === 'string') codecId = codec;
    else {
      this.store.registerCodec(codec);
      codecId = codec.id;
    }
    if (!this.store.hasCodec(codecId))
      throw new Error(
        `memberlist: codec ${JSON.stringify(codecId)} is not registered (known: ${this.store.codecIds().join(', ')})`,
      );
    const client = new MemberlistKVClient({ prefix, codecId }, this.core);
    this.clients.add(client);
    return client;
  }

  /**
   * Starts gossiping at the transport's address (it must listen already) and makes one join
   * attempt (dskit's fast join); `run` retries. KV clients work before and during the start.
   */
  async start(signal?: AbortSignal): Promise<void> {
    if (this.phase !== 'new') throw new Error(`memberlist: cannot start in phase ${this.phase}`);
    this.gossiper.start();
    this.phase = 'running';
    this.deps.logger.info('memberlist: started', {
      member: this.name,
      address: this.deps.transport.address,
    });
    const { clock, config } = { clock: this.deps.clock, config: this.config };
    if (config.tombstoneTimeoutMs > 0)
      this.sweepTimer = clock.every(TOMBSTONE_SWEEP_INTERVAL_MS, () => this.store.sweep());
    if (config.rejoinIntervalMs > 0 && config.joinMembers.length > 0) {
      const rejoin = async (): Promise<void> => {
        const { reached, errors } = await this.gossiper.join(config.joinMembers);
        if (reached > 0) this.deps.logger.info('memberlist: re-joined the cluster', { reached });
        else
          this.deps.logger.warn('memberlist: re-joining the cluster failed', {
            errors: errors.join('; '),
          });
      };
      // Cortex: the first rejoin at a random point of the interval, then every interval.
      const first = this.deps.random.stream('memberlist').int(config.rejoinIntervalMs);
      let periodic: { cancel(): void } | undefined;
      const initial = clock.setTimer(first, () => {
        void rejoin().finally(() => {
          if (this.phase === 'running') periodic = clock.every(config.rejoinIntervalMs, rejoin);
        });
      });
      this.rejoinTimer = {
        cancel: () => {
          initial.cancel();
          periodic?.cancel();
        },
      };
    }
    if (config.joinMembers.length > 0 && signal?.aborted !== true) {
      const { reached, errors } = await this.gossiper.join(config.joinMembers);
      this.joinedMembers = reached;
      if (reached === 0)
        this.deps.logger.warn('memberlist: fast join failed; run() retries', {
          errors: errors.join('; '),
        });
    }
  }

  /**
   * Joins `join_members` with backoff until one answers (at most 1 + max_join_retries
   * attempts), then waits for `signal`. Rejects when joining failed and
   * abort_if_cluster_join_fails is set, as Cortex's memberlist KV service fails then.
   */
  async run(signal: AbortSignal): Promise<void> {
    const { config } = this;
    if (config.joinMembers.length > 0 && this.joinedMembers === 0) {
      let backoff = config.minJoinBackoffMs;
      let lastErrors: string[] = [];
      for (
        let attempt = 0;
        attempt <= config.maxJoinRetries && this.joinedMembers === 0;
        attempt++
      ) {
        if (attempt > 0) {
          // Jittered exponential backoff (dskit's backoff): [backoff/2, backoff).
          const jitter = this.deps.random.stream('memberlist').next();
          try {
            await this.deps.clock.sleep(Math.floor(backoff / 2 + (jitter * backoff) / 2), signal);
          } catch {
            return;
          }
          backoff = Math.min(config.maxJoinBackoffMs, backoff * 2);
        }
        if (signal.aborted || this.phase !== 'running') return;
        const { reached, errors } = await this.gossiper.join(config.joinMembers);
        this.joinedMembers = reached;
        lastErrors = errors;
      }
      if (this.joinedMembers === 0) {
        this.deps.logger.error('memberlist: joining the cluster failed', {
          errors: lastErrors.join('; '),
        });
        if (config.abortIfJoinFails)
          throw new Error(`failed to join memberlist cluster on startup: ${lastErrors.join('; ')}`);
      } else
        this.deps.logger.info('memberlist: joined the cluster', { reached: this.joinedMembers });
    }
    if (signal.aborted) return;
    await new Promise<void>((resolve) => {
      signal.addEventListener('abort', () => resolve(), { once: true });
      this.stopController.signal.addEventListener('abort', () => resolve(), { once: true });
    });
  }

  /** Joins members now (e.g. from an operator action); returns how many answered. */
  async join(addresses: readonly string[]): Promise<number> {
    const { reached } = await this.gossiper.join(addresses);
    if (reached > 0) this.joinedMembers += reached;
    return reached;
  }

  /**
   * Leaves the cluster: waits (bounded) for locally generated updates to go out, announces
   * the departure, then stops gossiping and ends every client's watches.
   */
  async stop(): Promise<void> {
    if (this.phase === 'stopping' || this.phase === 'stopped') return;
    const wasRunning = this.phase === 'running';
    this.phase = 'stopping';
    if (wasRunning) {
      const deadline = this.deps.clock.now() + this.config.broadcastTimeoutOnShutdownMs;
      while (
        this.store.localQueue.length > 0 &&
        this.gossiper.numMembers() > 1 &&
        this.deps.clock.now() < deadline
      )
        await this.deps.clock.sleep(Math.min(250, this.config.gossipIntervalMs));
      if (this.store.localQueue.length > 0)
        this.deps.logger.warn('memberlist: local updates left unsent on shutdown', {
          count: this.store.localQueue.length,
        });
      await this.gossiper.leave(this.config.leaveTimeoutMs);
    }
    this.gossiper.shutdown();
    this.sweepTimer?.cancel();
    this.rejoinTimer?.cancel();
    this.store.stop();
    this.stopController.abort();
    await Promise.all([...this.clients].map((c) => c.close()));
    this.phase = 'stopped';
  }

  status(): MemberlistStatus {
    return memberlistStatus({
      name: this.name,
      phase: this.phase,
      self: this.gossiper.self(),
      members: this.gossiper.members(),
      numMembers: this.gossiper.numMembers(),
      healthScore: this.gossiper.healthScore,
      state: this.store.state,
      history: this.store.history,
      queued: { local: this.store.localQueue.length, gossip: this.store.gossipQueue.length },
    });
  }

  /** The bytes a client of `key` would read now (for the status page), or undefined. */
  clientValue(key: string): Uint8Array | undefined {
    return this.store.state.view.read(key)?.value.slice();
  }
}
