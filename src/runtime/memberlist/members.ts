/**
 * The member list and its state machine: hashicorp/memberlist's aliveNode, suspectNode,
 * deadNode, refute and mergeState rules (SWIM with incarnation numbers and Lifeguard's
 * confirmation-shortened suspicion), without the networking, which MemberlistKV does.
 */
import type { Clock, Timer } from '../clock.js';
import type { Logger } from '../logger.js';
import type { RandomStream } from '../random.js';
import { suspicionTimeoutMs } from './config.js';
import type { MemberState, MembershipMessage, PushNodeState } from './wire.js';

export interface Member {
  readonly name: string;
  address: string;
  incarnation: number;
  state: MemberState;
  /** Local time of the last state change. */
  stateChangeMs: number;
}

export interface MemberTableConfig {
  selfName: string;
  selfAddress: string;
  probeIntervalMs: number;
  suspicionMult: number;
  suspicionMaxTimeoutMult: number;
  deadNodeReclaimTimeMs: number;
  gossipToDeadNodesTimeMs: number;
}

export interface MemberTableDeps {
  clock: Clock;
  random: RandomStream;
  logger: Logger;
  /** Queues a membership message for gossip. */
  broadcast(message: MembershipMessage): void;
  /** After any change of the member list (metrics). */
  onChange(): void;
}

interface Suspicion {
  readonly incarnation: number;
  readonly startMs: number;
  readonly minMs: number;
  readonly maxMs: number;
  /** Confirmations that make the timeout shrink to `minMs`. */
  readonly k: number;
  readonly confirmations: Set<string>;
  timer: Timer;
}

export class MemberTable {
  private readonly members = new Map<string, Member>();
  private readonly suspicions = new Map<string, Suspicion>();
  private probeOrder: string[] = [];
  private probeIndex = 0;
  /** Set by leave(): our own dead message is a departure, not an accusation to refute. */
  private leaving = false;

  constructor(
    private readonly config: MemberTableConfig,
    private readonly deps: MemberTableDeps,
  ) {
    this.members.set(config.selfName, {
      name: config.selfName,
      address: config.selfAddress,
      incarnation: 1,
      state: 'alive',
      stateChangeMs: deps.clock.now(),
    });
  }

  get self(): Member {
    return this.members.get(this.config.selfName)!;
  }

  get(name: string): Member | undefined {
    return this.members.get(name);
  }

  /** Every known member (self included), sorted by name. */
  all(): Member[] {
    return [...this.members.values()].sort((a, b) =>
      a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
    );
  }

  /** memberlist's NumMembers: members neither dead nor left, self included. */
  numMembers(): number {
    let n = 0;
    for (const m of this.members.values()) if (m.state === 'alive' || m.state === 'suspect') n++;
    return n;
  }

  /** The next member to probe: round robin over a shuffled list, skipping self, dead and left. */
  nextProbeTarget(): Member | undefined {
    for (let tries = 0; tries <= this.members.size; tries++) {
      if (this.probeIndex >= this.probeOrder.length) {
        this.probeOrder = shuffle([...this.members.keys()].sort(), this.deps.random);
        this.probeIndex = 0;
      }
      const m = this.members.get(this.probeOrder[this.probeIndex++] ?? '');
      if (
        m !== undefined &&
        m.name !== this.config.selfName &&
        (m.state === 'alive' || m.state === 'suspect')
      )
        return m;
    }
    return undefined;
  }

  /** Up to `k` random other members that pass `accept`. */
  randomMembers(k: number, accept: (m: Member) => boolean): Member[] {
    const candidates = this.all().filter((m) => m.name !== this.config.selfName && accept(m));
    return shuffle(candidates, this.deps.random).slice(0, k);
  }

  /** Gossip targets: alive and suspect members, and the recently dead (so they can refute). */
  gossipTargets(k: number): Member[] {
    const now = this.deps.clock.now();
    return this.randomMembers(
      k,
      (m) =>
        m.state === 'alive' ||
        m.state === 'suspect' ||
        (m.state === 'dead' && now - m.stateChangeMs <= this.config.gossipToDeadNodesTimeMs),
    );
  }

  handle(message: MembershipMessage): void {
    if (message.type === 'alive') this.aliveNode(message);
    else if (message.type === 'suspect') this.suspectNode(message);
    else this.deadNode(message);
  }

  aliveNode(a: Extract<MembershipMessage, { type: 'alive' }>): void {
    if (a.node === this.config.selfName) {
      // Only we speak for ourselves: a claim of a newer incarnation is refuted.
      if (a.incarnation > this.self.incarnation && !this.leaving) this.refute(a.incarnation);
      return;
    }
    const now = this.deps.clock.now();
    const state = this.members.get(a.node);
    if (state === undefined) {
      this.members.set(a.node, {
        name: a.node,
        address: a.address,
        incarnation: a.incarnation,
        state: 'alive',
        stateChangeMs: now,
      });
      this.deps.logger.info('memberlist: member joined', { member: a.node, address: a.address });
      this.deps.broadcast(a);
      this.deps.onChange();
      return;
    }
    let readdressed = false;
    if (state.address !== a.address) {
      const reclaimable =
        this.config.deadNodeReclaimTimeMs > 0 &&
        now - state.stateChangeMs > this.config.deadNodeReclaimTimeMs;
      if (state.state === 'left' || (state.state === 'dead' && reclaimable)) {
        readdressed = true;
      } else {
        this.deps.logger.warn('memberlist: conflicting address for member', {
          member: a.node,
          known: state.address,
          claimed: a.address,
          state: state.state,
        });
        return;
      }
    }
    if (a.incarnation <= state.incarnation && !readdressed) return;
    this.cancelSuspicion(a.node);
    state.incarnation = a.incarnation;
    state.address = a.address;
    if (state.state !== 'alive') {
      state.state = 'alive';
      state.stateChangeMs = now;
    }
    this.deps.broadcast(a);
    this.deps.onChange();
  }

  suspectNode(s: Extract<MembershipMessage, { type: 'suspect' }>): void {
    const state = this.members.get(s.node);
    if (state === undefined || s.incarnation < state.incarnation) return;
    const suspicion = this.suspicions.get(s.node);
    if (suspicion !== undefined) {
      if (this.confirm(s.node, suspicion, s.from)) this.deps.broadcast(s);
      return;
    }
    if (state.state !== 'alive') return;
    if (s.node === this.config.selfName) {
      this.refute(s.incarnation);
      return;
    }
    const now = this.deps.clock.now();
    state.incarnation = s.incarnation;
    state.state = 'suspect';
    state.stateChangeMs = now;
    this.deps.broadcast(s);
    this.deps.onChange();
    const n = this.numMembers();
    let k = this.config.suspicionMult - 2;
    if (n - 2 < k) k = 0;
    const minMs = suspicionTimeoutMs(this.config.suspicionMult, n, this.config.probeIntervalMs);
    const maxMs = this.config.suspicionMaxTimeoutMult * minMs;
    const created: Suspicion = {
      incarnation: s.incarnation,
      startMs: now,
      minMs,
      maxMs,
      k,
      confirmations: new Set(s.from === this.config.selfName ? [] : [s.from]),
      timer: { cancel: () => undefined },
    };
    this.suspicions.set(s.node, created);
    this.armSuspicion(s.node, created);
  }

  deadNode(d: Extract<MembershipMessage, { type: 'dead' }>): void {
    const state = this.members.get(d.node);
    if (state === undefined || d.incarnation < state.incarnation) return;
    this.cancelSuspicion(d.node);
    if (state.state === 'dead' || state.state === 'left') return;
    if (d.node === this.config.selfName && !this.leaving) {
      this.refute(d.incarnation);
      return;
    }
    this.deps.broadcast(d);
    state.incarnation = d.incarnation;
    state.state = d.node === d.from ? 'left' : 'dead';
    state.stateChangeMs = this.deps.clock.now();
    this.deps.logger.info(`memberlist: member ${state.state}`, { member: d.node, from: d.from });
    this.deps.onChange();
  }

  /** memberlist's mergeState: a remote member list from push/pull. */
  mergeRemote(nodes: readonly PushNodeState[]): void {
    const self = this.config.selfName;
    for (const n of nodes) {
      switch (n.state) {
        case 'alive':
          this.aliveNode({
            type: 'alive',
            node: n.name,
            address: n.address,
            incarnation: n.incarnation,
          });
          break;
        case 'left':
          this.deadNode({ type: 'dead', node: n.name, incarnation: n.incarnation, from: n.name });
          break;
        case 'dead':
        case 'suspect':
          // A remote death is only a suspicion here: the member gets its chance to refute.
          this.suspectNode({
            type: 'suspect',
            node: n.name,
            incarnation: n.incarnation,
            from: self,
          });
          break;
      }
    }
  }

  /** Our own departure: broadcast "dead from ourselves", which others record as left. */
  leave(): MembershipMessage {
    this.leaving = true;
    const d: MembershipMessage = {
      type: 'dead',
      node: this.config.selfName,
      incarnation: this.self.incarnation,
      from: this.config.selfName,
    };
    this.deadNode(d);
    return d;
  }

  /** Forgets dead and left members after gossip_to_dead_nodes_time (memberlist's resetNodes). */
  reap(): void {
    const now = this.deps.clock.now();
    for (const m of [...this.members.values()]) {
      if (m.name === this.config.selfName) continue;
      if (
        (m.state === 'dead' || m.state === 'left') &&
        now - m.stateChangeMs > this.config.gossipToDeadNodesTimeMs
      ) {
        this.members.delete(m.name);
        this.deps.onChange();
      }
    }
  }

  stop(): void {
    for (const name of [...this.suspicions.keys()]) this.cancelSuspicion(name);
  }

  private refute(accusedIncarnation: number): void {
    const self = this.self;
    self.incarnation = Math.max(self.incarnation + 1, accusedIncarnation + 1);
    this.deps.logger.info('memberlist: refuting a suspicion of this member', {
      incarnation: self.incarnation,
    });
    this.deps.broadcast({
      type: 'alive',
      node: self.name,
      address: self.address,
      incarnation: self.incarnation,
    });
    this.deps.onChange();
  }

  /** Lifeguard: each independent confirmation shortens the suspicion towards its minimum. */
  private confirm(node: string, s: Suspicion, from: string): boolean {
    if (
      s.k < 1 ||
      s.confirmations.size >= s.k ||
      s.confirmations.has(from) ||
      from === this.config.selfName
    )
      return false;
    s.confirmations.add(from);
    s.timer.cancel();
    this.armSuspicion(node, s);
    return true;
  }

  private armSuspicion(node: string, s: Suspicion): void {
    let timeout = s.minMs;
    if (s.k >= 1) {
      const frac = Math.log(s.confirmations.size + 1) / Math.log(s.k + 1);
      timeout = Math.max(s.minMs, Math.floor(s.maxMs - frac * (s.maxMs - s.minMs)));
    }
    const remaining = Math.max(0, timeout - (this.deps.clock.now() - s.startMs));
    s.timer = this.deps.clock.setTimer(remaining, () => {
      if (this.suspicions.get(node) !== s) return;
      this.suspicions.delete(node);
      const state = this.members.get(node);
      if (state?.state !== 'suspect' || state.incarnation !== s.incarnation) return;
      this.deps.logger.warn('memberlist: suspect member declared dead', { member: node });
      this.deadNode({ type: 'dead', node, incarnation: s.incarnation, from: this.config.selfName });
    });
  }

  private cancelSuspicion(node: string): void {
    const s = this.suspicions.get(node);
    if (s === undefined) return;
    s.timer.cancel();
    this.suspicions.delete(node);
  }
}

/** Fisher–Yates with the given stream (deterministic in the simulator). */
export function shuffle<T>(items: T[], random: RandomStream): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = random.int(i + 1);
    const tmp = items[i]!;
    items[i] = items[j]!;
    items[j] = tmp;
  }
  return items;
}
