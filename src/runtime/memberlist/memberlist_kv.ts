/**
 * The process's gossiped key-value store (dskit's `memberlist.KV` plus its init service):
 * one per process, shared by every ring and the HA tracker, each opening a prefix-scoped
 * client with its value codec. Local writes merge into this member's state and are gossiped;
 * incoming states merge in and are re-gossiped when they changed something.
 */
import { throwIfAborted, type Clock } from '../clock.js';
import type { KV, MemberlistKVSource } from '../kv.js';
import type { Logger } from '../logger.js';
import type { MetricsRegistry } from '../metrics.js';
import type { Random } from '../random.js';
import type { Transport } from '../transport.js';
import { KVBroadcast, TransmitLimitedQueue } from './broadcast_queue.js';
import { MemberlistKVClient, type MemberlistKVCore } from './client.js';
import { LWW_BYTES_CODEC, LWW_CODEC_ID, anyCodec, type AnyMergeCodec, type MergeCodec } from './codec.js';
import { memberlistKVConfig, type MemberlistKVConfig } from './config.js';
import { Gossiper } from './gossiper.js';
import { MessageHistory } from './history.js';
import { KVState, sameBytes, wirePair, type KVChange } from './kv_state.js';
import { MemberlistMetrics } from './metrics.js';
import type { WireKVPair } from './wire.js';
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

export class MemberlistKV implements MemberlistKVSource {
  readonly config: MemberlistKVConfig;
  /** This member's name (with the random suffix when randomize_node_name is on). */
  readonly name: string;
  private readonly codecs = new Map<string, AnyMergeCodec>();
  private readonly metrics: MemberlistMetrics;
  private readonly state: KVState;
  private readonly history: MessageHistory;
  private readonly localQueue: TransmitLimitedQueue;
  private readonly gossipQueue: TransmitLimitedQueue;
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
    this.metrics = new MemberlistMetrics(deps.registry);
    this.state = new KVState(this.config, this.metrics);
    this.history = new MessageHistory(this.config.messageHistoryBufferBytes);
    const numMembers = (): number => this.gossiper.numMembers();
    this.localQueue = new TransmitLimitedQueue(this.config, numMembers);
    this.gossipQueue = new TransmitLimitedQueue(this.config, numMembers);
    this.registerCodec(LWW_BYTES_CODEC);
    for (const codec of deps.codecs ?? []) this.registerCodec(codec);
    this.gossiper = new Gossiper(
      { ...this.config, name: this.name },
      {
        transport: deps.transport,
        clock: deps.clock,
        random,
        logger: deps.logger,
        metrics: this.metrics,
        delegate: {
          localState: () => this.localState(),
          mergeRemoteState: (pairs) => this.mergeRemoteState(pairs),
          notifyMsg: (pair, size) => this.notifyMsg(pair, size),
          getBroadcasts: (overhead, limit) => this.getBroadcasts(overhead, limit),
        },
      },
    );
    this.core = {
      view: this.state.view,
      cas: (key, codecId, update, signal) => this.cas(key, codecId, update, signal),
      delete: (key, signal) => this.deleteKey(key, signal),
      forget: (client) => this.clients.delete(client),
    };
  }

  /** Makes values of `codec` mergeable here; a second codec with the same ID is an error. */
  registerCodec<T>(codec: MergeCodec<T>): void {
    const existing = this.codecs.get(codec.id);
    if (existing !== undefined && existing !== anyCodec(codec))
      throw new Error(`memberlist: a different codec with ID ${JSON.stringify(codec.id)} is registered`);
    this.codecs.set(codec.id, anyCodec(codec));
  }

  /** A KV client under `prefix` whose values use `codec` (last-writer-wins bytes when absent). */
  openClient(prefix: string, codec?: string | MergeCodec<unknown>): KV {
    let codecId: string;
    if (codec === undefined) codecId = LWW_CODEC_ID;
    else if (typeof codec === 'string') codecId = codec;
    else {
      this.registerCodec(codec);
      codecId = codec.id;
    }
    if (!this.codecs.has(codecId))
      throw new Error(
        `memberlist: codec ${JSON.stringify(codecId)} is not registered (known: ${[...this.codecs.keys()].join(', ')})`,
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
    this.deps.logger.info('memberlist: started', { member: this.name, address: this.deps.transport.address });
    const { clock, config } = { clock: this.deps.clock, config: this.config };
    if (config.tombstoneTimeoutMs > 0)
      this.sweepTimer = clock.every(30_000, () => {
        this.metrics.deletedKeysSwept.inc(this.state.sweepDeleted(clock.now()));
        this.metrics.kvStoreCount.set(this.state.size);
      });
    if (config.rejoinIntervalMs > 0 && config.joinMembers.length > 0)
      this.rejoinTimer = clock.every(config.rejoinIntervalMs, async () => {
        const { reached, errors } = await this.gossiper.join(config.joinMembers);
        if (reached > 0) this.deps.logger.info('memberlist: re-joined the cluster', { reached });
        else this.deps.logger.warn('memberlist: re-joining the cluster failed', { errors: errors.join('; ') });
      });
    if (config.joinMembers.length > 0 && signal?.aborted !== true) {
      const { reached, errors } = await this.gossiper.join(config.joinMembers);
      this.joinedMembers = reached;
      if (reached === 0)
        this.deps.logger.warn('memberlist: fast join failed; run() retries', { errors: errors.join('; ') });
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
      for (let attempt = 0; attempt <= config.maxJoinRetries && this.joinedMembers === 0; attempt++) {
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
        this.deps.logger.error('memberlist: joining the cluster failed', { errors: lastErrors.join('; ') });
        if (config.abortIfJoinFails)
          throw new Error(`failed to join memberlist cluster on startup: ${lastErrors.join('; ')}`);
      } else this.deps.logger.info('memberlist: joined the cluster', { reached: this.joinedMembers });
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
      while (this.localQueue.length > 0 && this.gossiper.numMembers() > 1 && this.deps.clock.now() < deadline)
        await this.deps.clock.sleep(Math.min(250, this.config.gossipIntervalMs));
      if (this.localQueue.length > 0)
        this.deps.logger.warn('memberlist: local updates left unsent on shutdown', { count: this.localQueue.length });
      await this.gossiper.leave(this.config.leaveTimeoutMs);
    }
    this.gossiper.shutdown();
    this.sweepTimer?.cancel();
    this.rejoinTimer?.cancel();
    this.localQueue.reset();
    this.gossipQueue.reset();
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
      state: this.state,
      history: this.history,
      queued: { local: this.localQueue.length, gossip: this.gossipQueue.length },
    });
  }

  /** The bytes a client of `key` would read now (for the status page), or undefined. */
  clientValue(key: string): Uint8Array | undefined {
    return this.state.view.read(key)?.value.slice();
  }

  private async cas(
    key: string,
    codecId: string,
    update: (current: Uint8Array | undefined) => Uint8Array | null | undefined,
    signal: AbortSignal | undefined,
  ): Promise<void> {
    const codec = this.codecs.get(codecId);
    if (codec === undefined) throw new Error(`memberlist: codec ${JSON.stringify(codecId)} is not registered`);
    let noChange = false;
    for (let attempt = 0; attempt < this.config.maxCasRetries; attempt++) {
      throwIfAborted(signal);
      this.metrics.casAttempts.inc();
      // Ring timestamps have one-second resolution: an update within the same second as the
      // stored one may merge as "no change"; dskit waits a second and tries again.
      if (noChange) await this.deps.clock.sleep(this.config.noChangeRetrySleepMs, signal);
      const entry = this.state.read(key);
      if (entry !== undefined && entry.codec.id !== codec.id) {
        this.metrics.casFailures.inc();
        throw new Error(`memberlist: key ${JSON.stringify(key)} holds a ${entry.codec.id} value, not ${codec.id}`);
      }
      const input = entry !== undefined && !entry.deleted ? codec.toClient(entry.value) : undefined;
      let out: Uint8Array | null | undefined;
      try {
        out = update(input?.slice());
      } catch (err) {
        this.metrics.casFailures.inc();
        throw err;
      }
      if (out === undefined) return;
      if (out === null) {
        this.deleteNow(key);
        return;
      }
      if (input !== undefined && sameBytes(input, out)) return;
      const nowMs = this.deps.clock.now();
      const incoming = codec.fromClient(out, { current: entry?.value, nowMs, nodeName: this.name });
      const change = this.state.merge(key, incoming, codec, {
        localCAS: entry !== undefined,
        deleted: false,
        updatedAtMs: Math.max(Math.floor(nowMs), (entry?.updatedAtMs ?? 0) + 1),
        nowMs,
      });
      if (change === undefined) {
        noChange = true;
        continue;
      }
      this.metrics.casSuccesses.inc();
      this.broadcast(change, true);
      return;
    }
    this.metrics.casFailures.inc();
    throw new Error(
      `failed to CAS-update key ${JSON.stringify(key)}: the merge saw no change on each of ${this.config.maxCasRetries} attempts`,
    );
  }

  private deleteKey(key: string, signal: AbortSignal | undefined): Promise<void> {
    try {
      throwIfAborted(signal);
      this.deleteNow(key);
      return Promise.resolve();
    } catch (err) {
      return Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
  }

  /** Marks the key deleted (a key tombstone gossiped like any change); missing keys are no-ops. */
  private deleteNow(key: string): void {
    const entry = this.state.read(key);
    if (entry === undefined || entry.deleted) return;
    const nowMs = this.deps.clock.now();
    const change = this.state.merge(key, entry.value, entry.codec, {
      localCAS: false,
      deleted: true,
      updatedAtMs: Math.max(Math.floor(nowMs), entry.updatedAtMs + 1),
      nowMs,
    });
    if (change !== undefined) this.broadcast(change, true);
  }

  private broadcast(change: KVChange, local: boolean): void {
    if (local && this.phase !== 'running' && this.phase !== 'new') {
      this.deps.logger.warn('memberlist: not gossiping a local update while shutting down', { key: change.key });
      return;
    }
    this.metrics.kvStoreCount.set(this.state.size);
    let pair: WireKVPair;
    try {
      pair = wirePair(change.key, change.change, change.entry);
    } catch (err) {
      this.metrics.broadcastsDropped.inc();
      this.deps.logger.error('memberlist: failed to encode a change', { key: change.key, err: String(err) });
      return;
    }
    const bytes = JSON.stringify(pair).length;
    if (bytes > this.config.maxPacketBytes) {
      // Too big for a packet: push/pull carries it instead.
      this.metrics.broadcastsDropped.inc();
      return;
    }
    this.history.addSent({
      timeMs: this.deps.clock.now(),
      sizeBytes: bytes,
      key: change.key,
      codec: pair.codec,
      deleted: pair.deleted,
      version: change.entry.version,
      changes: change.content,
    });
    const queue = local ? this.localQueue : this.gossipQueue;
    queue.queue(new KVBroadcast({ type: 'kv', pair }, bytes, change.entry.version, change.content));
    this.updateQueueMetrics();
  }

  private updateQueueMetrics(): void {
    this.metrics.messagesInQueue.set({ queue: 'local' }, this.localQueue.length);
    this.metrics.messagesInQueue.set({ queue: 'gossip' }, this.gossipQueue.length);
    this.metrics.messagesInQueueBytes.set(this.localQueue.bytes + this.gossipQueue.bytes);
  }

  private localState(): WireKVPair[] {
    const pairs = this.state.localState();
    let bytes = 0;
    for (const p of pairs) bytes += JSON.stringify(p).length;
    this.metrics.statePulls.inc();
    this.metrics.statePullsBytes.inc(bytes);
    return pairs;
  }

  private mergeRemoteState(pairs: readonly WireKVPair[]): void {
    let bytes = 0;
    for (const pair of pairs) {
      const size = JSON.stringify(pair).length;
      bytes += size;
      this.mergePair(pair, size);
    }
    this.metrics.statePushes.inc();
    this.metrics.statePushesBytes.inc(bytes);
  }

  private notifyMsg(pair: WireKVPair, sizeBytes: number): void {
    this.metrics.receivedBroadcasts.inc();
    this.metrics.receivedBroadcastsBytes.inc(sizeBytes);
    this.mergePair(pair, sizeBytes);
  }

  private mergePair(pair: WireKVPair, sizeBytes: number): void {
    if (this.phase === 'stopped') return;
    const codec = this.codecs.get(pair.codec);
    if (codec === undefined) {
      this.metrics.receivedBroadcastsInvalid.inc();
      this.deps.logger.error('memberlist: value with an unknown codec ignored', { key: pair.key, codec: pair.codec });
      return;
    }
    let change: KVChange | undefined;
    try {
      const value = codec.decode(new Uint8Array(Buffer.from(pair.value, 'base64')));
      change = this.state.merge(pair.key, value, codec, {
        localCAS: false,
        deleted: pair.deleted,
        updatedAtMs: pair.updatedAt,
        nowMs: this.deps.clock.now(),
      });
    } catch (err) {
      this.metrics.receivedBroadcastsInvalid.inc();
      this.deps.logger.error('memberlist: failed to merge a received value', { key: pair.key, err: String(err) });
      return;
    }
    this.history.addReceived({
      timeMs: this.deps.clock.now(),
      sizeBytes,
      key: pair.key,
      codec: pair.codec,
      deleted: pair.deleted,
      version: change?.entry.version ?? 0,
      changes: change?.content ?? [],
    });
    // Re-gossip only what changed here, never the message as received.
    if (change !== undefined) this.broadcast(change, false);
  }

  private getBroadcasts(overhead: number, limit: number): WireKVPair[] {
    const local = this.localQueue.take(overhead, limit);
    let used = 0;
    for (const m of local) used += overhead + JSON.stringify(m).length;
    const gossip = used < limit ? this.gossipQueue.take(overhead, limit - used) : [];
    this.updateQueueMetrics();
    const out: WireKVPair[] = [];
    for (const m of [...local, ...gossip]) if (m.type === 'kv') out.push(m.pair);
    return out;
  }
}
