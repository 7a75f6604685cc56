/**
 * This member's side of the gossiped key-value store (dskit's KV as memberlist's Delegate):
 * codec registry, local writes (CAS merges the writer's new value in and gossips the change;
 * delete gossips a key tombstone), incoming gossip and push/pull states (merged in, and
 * re-gossiped only as far as they changed something), and the two broadcast queues (local
 * updates first, then forwarded ones).
 */
import { throwIfAborted, type Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import { KVBroadcast, TransmitLimitedQueue } from './broadcast_queue.js';
import { LWW_BYTES_CODEC, anyCodec, type AnyMergeCodec, type MergeCodec } from './codec.js';
import type { MemberlistKVConfig } from './config.js';
import type { GossipDelegate } from './gossiper.js';
import { MessageHistory } from './history.js';
import { KVState, sameBytes, wirePair, type KVChange } from './kv_state.js';
import type { MemberlistMetrics } from './metrics.js';
import type { WireKVPair } from './wire.js';

export interface GossipedStoreDeps {
  clock: Clock;
  logger: Logger;
  metrics: MemberlistMetrics;
  /** This member's name (the writer of last-writer-wins values). */
  name: string;
  /** Members neither dead nor left, for the retransmit limit. */
  numMembers: () => number;
  /** False while shutting down: local updates are then not gossiped (dskit). */
  gossipLocalUpdates: () => boolean;
}

export class GossipedStore implements GossipDelegate {
  readonly state: KVState;
  readonly history: MessageHistory;
  readonly localQueue: TransmitLimitedQueue;
  readonly gossipQueue: TransmitLimitedQueue;
  private readonly codecs = new Map<string, AnyMergeCodec>();
  private stopped = false;

  constructor(
    private readonly config: MemberlistKVConfig,
    private readonly deps: GossipedStoreDeps,
  ) {
    this.state = new KVState(config, deps.metrics);
    this.history = new MessageHistory(config.messageHistoryBufferBytes);
    this.localQueue = new TransmitLimitedQueue(config, deps.numMembers);
    this.gossipQueue = new TransmitLimitedQueue(config, deps.numMembers);
    this.registerCodec(LWW_BYTES_CODEC);
  }

  private get metrics(): MemberlistMetrics {
    return this.deps.metrics;
  }

  /** Makes values of `codec` mergeable here; a second codec with the same ID is an error. */
  registerCodec<T>(codec: MergeCodec<T>): void {
    const existing = this.codecs.get(codec.id);
    if (existing !== undefined && existing !== anyCodec(codec))
      throw new Error(
        `memberlist: a different codec with ID ${JSON.stringify(codec.id)} is registered`,
      );
    this.codecs.set(codec.id, anyCodec(codec));
  }

  hasCodec(id: string): boolean {
    return this.codecs.has(id);
  }

  codecIds(): string[] {
    return [...this.codecs.keys()];
  }

  /** Drops queued messages and ignores further incoming states. */
  stop(): void {
    this.stopped = true;
    this.localQueue.reset();
    this.gossipQueue.reset();
    this.updateQueueMetrics();
  }

  /** Forgets keys deleted longer than tombstone_timeout ago. */
  sweep(): void {
    this.metrics.deletedKeysSwept.inc(this.state.sweepDeleted(this.deps.clock.now()));
    this.metrics.kvStoreCount.set(this.state.size);
  }

  async cas(
    key: string,
    codecId: string,
    update: (current: Uint8Array | undefined) => Uint8Array | null | undefined,
    signal: AbortSignal | undefined,
  ): Promise<void> {
    const codec = this.codecs.get(codecId);
    if (codec === undefined)
      throw new Error(`memberlist: codec ${JSON.stringify(codecId)} is not registered`);
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
        throw new Error(
          `memberlist: key ${JSON.stringify(key)} holds a ${entry.codec.id} value, not ${codec.id}`,
        );
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
      const incoming = codec.fromClient(out, {
        current: entry?.value,
        nowMs,
        nodeName: this.deps.name,
      });
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

  delete(key: string, signal: AbortSignal | undefined): Promise<void> {
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
    if (local && !this.deps.gossipLocalUpdates()) {
      this.deps.logger.warn('memberlist: not gossiping a local update while shutting down', {
        key: change.key,
      });
      return;
    }
    this.metrics.kvStoreCount.set(this.state.size);
    let pair: WireKVPair;
    try {
      pair = wirePair(change.key, change.change, change.entry);
    } catch (err) {
      this.metrics.broadcastsDropped.inc();
      this.deps.logger.error('memberlist: failed to encode a change', {
        key: change.key,
        err: String(err),
      });
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

  localState(): WireKVPair[] {
    const pairs = this.state.localState();
    let bytes = 0;
    for (const p of pairs) bytes += JSON.stringify(p).length;
    this.metrics.statePulls.inc();
    this.metrics.statePullsBytes.inc(bytes);
    return pairs;
  }

  mergeRemoteState(pairs: readonly WireKVPair[]): void {
    let bytes = 0;
    for (const pair of pairs) {
      const size = JSON.stringify(pair).length;
      bytes += size;
      this.mergePair(pair, size);
    }
    this.metrics.statePushes.inc();
    this.metrics.statePushesBytes.inc(bytes);
  }

  notifyMsg(pair: WireKVPair, sizeBytes: number): void {
    this.metrics.receivedBroadcasts.inc();
    this.metrics.receivedBroadcastsBytes.inc(sizeBytes);
    this.mergePair(pair, sizeBytes);
  }

  private mergePair(pair: WireKVPair, sizeBytes: number): void {
    if (this.stopped) return;
    const codec = this.codecs.get(pair.codec);
    if (codec === undefined) {
      this.metrics.receivedBroadcastsInvalid.inc();
      this.deps.logger.error('memberlist: value with an unknown codec ignored', {
        key: pair.key,
        codec: pair.codec,
      });
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
      this.deps.logger.error('memberlist: failed to merge a received value', {
        key: pair.key,
        err: String(err),
      });
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

  getBroadcasts(overhead: number, limit: number): WireKVPair[] {
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
