/**
 * The memberlist protocol over the runtime Transport: failure detection (ping, indirect ping
 * through `indirectChecks` members, suspicion, death), dissemination (every gossip interval,
 * queued messages to `gossip_nodes` random members), push/pull full-state sync, join and leave.
 * Everything the KV store adds rides on the delegate, as dskit's KV is memberlist's Delegate.
 */
import type { Clock, Timer } from '../clock.js';
import type { Logger } from '../logger.js';
import type { RandomStream } from '../random.js';
import {
  RpcError,
  jsonBody,
  type RpcRequest,
  type RpcResponse,
  type Transport,
} from '../transport.js';
import { TransmitLimitedQueue, type Broadcast } from './broadcast_queue.js';
import { pushPullIntervalMs, type MemberlistKVConfig } from './config.js';
import { FailureDetector } from './failure_detector.js';
import { MemberTable, type Member } from './members.js';
import type { MemberlistMetrics } from './metrics.js';
import {
  PACKET_METHOD,
  STREAM_METHOD,
  decodePacketRequest,
  decodePushPull,
  streamRequest,
  type MembershipMessage,
  type PacketRequest,
  type PushPullState,
  type WireKVPair,
} from './wire.js';

/** What the KV store provides to the protocol (memberlist's Delegate). */
export interface GossipDelegate {
  /** Every key's state, for push/pull. */
  localState(): WireKVPair[];
  /** A remote member's full state. */
  mergeRemoteState(pairs: readonly WireKVPair[]): void;
  /** One gossiped KV message. */
  notifyMsg(pair: WireKVPair, sizeBytes: number): void;
  /** KV messages for a packet of at most `limitBytes`. */
  getBroadcasts(overheadBytes: number, limitBytes: number): WireKVPair[];
}

export interface GossiperDeps {
  transport: Transport;
  clock: Clock;
  random: RandomStream;
  logger: Logger;
  metrics: MemberlistMetrics;
  delegate: GossipDelegate;
}

const MESSAGE_OVERHEAD_BYTES = 8;

export class Gossiper {
  private table: MemberTable | undefined;
  private readonly queue: TransmitLimitedQueue;
  private readonly timers: Timer[] = [];
  private running = false;
  private readonly detector: FailureDetector;
  private leaveDone: (() => void) | undefined;

  constructor(
    private readonly config: MemberlistKVConfig & { name: string },
    private readonly deps: GossiperDeps,
  ) {
    this.queue = new TransmitLimitedQueue(config, () => this.numMembers());
    this.detector = new FailureDetector(config, deps);
    deps.transport.handle(PACKET_METHOD, (req) => this.servePacket(req));
    deps.transport.handle(STREAM_METHOD, (req) => this.serveStream(req));
  }

  get healthScore(): number {
    return this.detector.healthScore;
  }

  numMembers(): number {
    return this.table?.numMembers() ?? 1;
  }

  members(): Member[] {
    return this.table?.all() ?? [];
  }

  self(): Member | undefined {
    return this.table?.self;
  }

  /** Starts the protocol at the transport's address (the transport must be listening). */
  start(): void {
    const address = this.deps.transport.address;
    if (address === undefined)
      throw new Error(
        'memberlist: the transport is not listening; start the memberlist KV after the RPC server',
      );
    const { config, deps } = this;
    this.table = new MemberTable(
      { ...config, selfName: config.name, selfAddress: address },
      {
        clock: deps.clock,
        random: deps.random,
        logger: deps.logger,
        broadcast: (m) => this.queueMembership(m),
        onChange: () => deps.metrics.membersCount.set(this.numMembers()),
      },
    );
    deps.metrics.membersCount.set(1);
    this.running = true;
    // Random first delays (memberlist staggers its tickers) keep members out of lockstep.
    const stagger = (ms: number): number => deps.random.int(Math.max(1, Math.floor(ms)));
    this.loop(
      stagger(config.probeIntervalMs),
      () => config.probeIntervalMs,
      () => this.probe(),
    );
    this.loop(
      stagger(config.gossipIntervalMs),
      () => config.gossipIntervalMs,
      () => this.gossip(),
    );
    if (config.pullPushIntervalMs > 0) {
      const period = (): number => pushPullIntervalMs(config.pullPushIntervalMs, this.numMembers());
      this.loop(stagger(config.pullPushIntervalMs), period, () => this.periodicPushPull());
    }
  }

  /** Push/pull with each address in turn; returns how many answered (our own address counts). */
  async join(addresses: readonly string[]): Promise<{ reached: number; errors: string[] }> {
    let reached = 0;
    const errors: string[] = [];
    for (const address of addresses) {
      if (!this.running) break;
      if (address === this.table?.self.address) {
        reached++;
        continue;
      }
      const err = await this.pushPull(address, true);
      if (err === undefined) reached++;
      else errors.push(`${address}: ${err}`);
    }
    return { reached, errors };
  }

  /** Announces our departure and waits (at most `timeoutMs`) until it was gossiped. */
  async leave(timeoutMs: number): Promise<void> {
    const table = this.table;
    if (table === undefined || !this.running) return;
    const sent = new Promise<void>((resolve) => (this.leaveDone = resolve));
    table.leave();
    // Alone (we count as left now): nobody to tell.
    if (table.numMembers() === 0) return;
    let timer: Timer | undefined;
    await Promise.race([
      sent,
      new Promise<void>((resolve) => (timer = this.deps.clock.setTimer(timeoutMs, resolve))),
    ]);
    timer?.cancel();
  }

  shutdown(): void {
    this.running = false;
    for (const t of this.timers.splice(0)) t.cancel();
    this.table?.stop();
    this.queue.reset();
  }

  /** Runs `fn` after `firstMs`, then again `period()` after each run settles, until shutdown. */
  private loop(firstMs: number, period: () => number, fn: () => Promise<void>): void {
    const slot = this.timers.length;
    const arm = (ms: number): void => {
      this.timers[slot] = this.deps.clock.setTimer(ms, () => {
        if (!this.running) return;
        fn().then(
          () => this.running && arm(period()),
          (err: unknown) => {
            this.deps.logger.error('memberlist: periodic task failed', { err: String(err) });
            if (this.running) arm(period());
          },
        );
      });
    };
    arm(firstMs);
  }

  private queueMembership(message: MembershipMessage): void {
    const isOurLeave =
      message.type === 'dead' &&
      message.node === this.config.name &&
      message.from === this.config.name;
    const b: Broadcast = {
      message,
      bytes: JSON.stringify(message).length,
      invalidates: (older) => older.message.type !== 'kv' && older.message.node === message.node,
      finished: () => {
        if (isOurLeave) this.leaveDone?.();
      },
    };
    this.queue.queue(b);
  }

  /**
   * One gossip round: queued messages to `gossip_nodes` random members. Sends are not awaited
   * (memberlist's packets are fire-and-forget): an unreachable member must not slow the round.
   */
  private gossip(): Promise<void> {
    const table = this.table;
    if (table === undefined) return Promise.resolve();
    const limit = this.config.maxPacketBytes;
    const timeoutMs = this.config.packetDialTimeoutMs + this.config.packetWriteTimeoutMs;
    for (const target of table.gossipTargets(this.config.gossipNodes)) {
      const membership = this.queue.take(MESSAGE_OVERHEAD_BYTES, limit);
      let used = 0;
      for (const m of membership) used += JSON.stringify(m).length + MESSAGE_OVERHEAD_BYTES;
      const kv = this.deps.delegate.getBroadcasts(MESSAGE_OVERHEAD_BYTES, limit - used);
      const messages = [...membership, ...kv.map((pair) => ({ type: 'kv' as const, pair }))];
      if (messages.length === 0) continue;
      const packet: PacketRequest = { kind: 'gossip', from: this.config.name, messages };
      void this.detector.sendPacket(target.address, packet, timeoutMs);
    }
    return Promise.resolve();
  }

  private async probe(): Promise<void> {
    const table = this.table;
    if (table === undefined) return;
    table.reap();
    await this.detector.probe(table, () => this.running);
  }

  private async periodicPushPull(): Promise<void> {
    const [target] = this.table?.randomMembers(1, (m) => m.state === 'alive') ?? [];
    if (target !== undefined) await this.pushPull(target.address, false);
  }

  /** One full state exchange; returns the error text, or undefined on success. */
  private async pushPull(address: string, join: boolean): Promise<string | undefined> {
    const m = this.deps.metrics;
    m.outgoingStreams.inc();
    try {
      const res = await this.deps.transport.call(address, streamRequest(this.localState(join)), {
        timeoutMs: this.config.streamTimeoutMs,
      });
      this.mergeRemote(decodePushPull(res));
      return undefined;
    } catch (err) {
      m.outgoingStreamErrors.inc();
      const text = err instanceof Error ? err.message : String(err);
      this.deps.logger.debug('memberlist: push/pull failed', { to: address, join, err: text });
      return text;
    }
  }

  private localState(join: boolean): PushPullState {
    return {
      from: this.config.name,
      join,
      nodes: this.members().map((n) => ({
        name: n.name,
        address: n.address,
        incarnation: n.incarnation,
        state: n.state,
      })),
      kv: this.deps.delegate.localState(),
    };
  }

  private mergeRemote(state: PushPullState): void {
    this.table?.mergeRemote(state.nodes);
    this.deps.delegate.mergeRemoteState(state.kv);
  }

  private async servePacket(req: RpcRequest): Promise<RpcResponse> {
    if (!this.running)
      throw new RpcError('unavailable', `memberlist member ${this.config.name} is not running`);
    const m = this.deps.metrics;
    m.packetsReceived.inc();
    m.packetsReceivedBytes.inc(req.body.length);
    let packet: PacketRequest;
    try {
      packet = decodePacketRequest(req);
    } catch (err) {
      m.packetsReceivedErrors.inc();
      throw err;
    }
    switch (packet.kind) {
      case 'ping':
        if (packet.node !== this.config.name)
          throw new RpcError(
            'not_found',
            `ping for member ${packet.node}, but this is ${this.config.name}`,
          );
        return jsonBody({ kind: 'ack', seq: packet.seq });
      case 'ping-req': {
        const ok = await this.detector.ping(
          { name: packet.node, address: packet.address },
          this.config.probeTimeoutMs,
        );
        return jsonBody({ kind: ok ? 'ack' : 'nack', seq: packet.seq });
      }
      case 'gossip':
        for (const message of packet.messages) {
          if (message.type === 'kv')
            this.deps.delegate.notifyMsg(message.pair, JSON.stringify(message).length);
          else this.table?.handle(message);
        }
        return jsonBody({ kind: 'ok' });
    }
  }

  private serveStream(req: RpcRequest): Promise<RpcResponse> {
    if (!this.running)
      return Promise.reject(
        new RpcError('unavailable', `memberlist member ${this.config.name} is not running`),
      );
    this.deps.metrics.incomingStreams.inc();
    try {
      const remote = decodePushPull(req);
      // Our state as it was before theirs arrives, as memberlist sends it.
      const local = this.localState(false);
      this.mergeRemote(remote);
      return Promise.resolve(jsonBody(local));
    } catch (err) {
      return Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
  }
}
