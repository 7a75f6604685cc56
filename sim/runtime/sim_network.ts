import type { RandomStream, RpcCode } from '../../src/runtime/index.js';
import type { Incarnation, SimKernel } from '../kernel/index.js';
import { sampleLatency, type LatencySpec } from './latency.js';

export interface SimNetworkConfig {
  latency: LatencySpec;
  /** Probability that a message is lost. */
  loss: number;
  /** Probability that a message is delivered twice (each copy with its own latency). */
  duplication: number;
}

export interface SimNetworkDeps {
  kernel: SimKernel;
  /** The `network` stream. */
  random: RandomStream;
}

/** The server side of a node's transport, as the network sees it. */
export interface NetworkEndpoint {
  readonly owner: Incarnation;
  /** Called in the arrival event of a request for this node. */
  receive(message: NetworkRequest): void;
}

export interface NetworkRequest {
  readonly from: string;
  readonly method: string;
  readonly body: Uint8Array;
  readonly contentType: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly label: string;
  /** Sends the reply back over the network (subject to loss, latency, partitions). */
  reply(outcome: ReplyOutcome): void;
}

export type ReplyOutcome =
  | { ok: true; body: Uint8Array; contentType: string }
  | { ok: false; code: RpcCode; message: string };

export interface NetworkStats {
  sent: number;
  lost: number;
  duplicated: number;
  blocked: number;
}

/**
 * The cluster's network: who listens at which address (node names), which directed links are
 * cut, and how messages travel. Each message draws its fate from the `network` stream (always
 * the same number of draws per message, so outcomes of one message never shift another's):
 * lost, duplicated, and a latency per copy. A partition drops messages both when they are
 * sent and when they would arrive. Names of shared services (`objstore`, `kv`, `cache`) can
 * be partitioned like nodes.
 */
export class SimNetwork {
  private readonly endpoints = new Map<string, NetworkEndpoint>();
  /** Cut links by the partition that cut them, so one partition can heal while others stay. */
  private readonly partitions = new Map<string, Set<string>>();
  private latencyMultiplier = 1;
  private readonly counters: NetworkStats = { sent: 0, lost: 0, duplicated: 0, blocked: 0 };

  constructor(
    private config: SimNetworkConfig,
    private readonly deps: SimNetworkDeps,
  ) {}

  get stats(): Readonly<NetworkStats> {
    return this.counters;
  }

  // ---- listeners ----

  listen(address: string, endpoint: NetworkEndpoint): void {
    const current = this.endpoints.get(address);
    if (current !== undefined && current.owner.alive && current !== endpoint) {
      throw new Error(`address ${address} is already in use by ${current.owner.toString()}`);
    }
    this.endpoints.set(address, endpoint);
  }

  unlisten(address: string, endpoint: NetworkEndpoint): void {
    if (this.endpoints.get(address) === endpoint) this.endpoints.delete(address);
  }

  private endpointAt(address: string): NetworkEndpoint | undefined {
    const endpoint = this.endpoints.get(address);
    return endpoint !== undefined && endpoint.owner.alive ? endpoint : undefined;
  }

  // ---- faults ----

  /** Cuts every link between nodes of different groups (both directions). */
  partition(groups: ReadonlyArray<readonly string[]>, id = 'partition'): void {
    const links = this.linksOf(id);
    for (let i = 0; i < groups.length; i++) {
      for (let j = 0; j < groups.length; j++) {
        if (i === j) continue;
        for (const a of groups[i]!)
          for (const b of groups[j]!) if (a !== b) links.add(linkKey(a, b));
      }
    }
  }

  /** Cuts the link from `from` to `to` only: messages the other way still pass. */
  partitionOneWay(from: string, to: string, id = 'partition'): void {
    this.linksOf(id).add(linkKey(from, to));
  }

  /** Restores the links one partition cut (others stay cut). */
  healPartition(id: string): void {
    this.partitions.delete(id);
  }

  /** Restores every link and normal latency. */
  heal(): void {
    this.partitions.clear();
    this.latencyMultiplier = 1;
  }

  private linksOf(id: string): Set<string> {
    let links = this.partitions.get(id);
    if (links === undefined) {
      links = new Set();
      this.partitions.set(id, links);
    }
    return links;
  }

  /** Multiplies every latency drawn from now on (a latency spike); `heal` resets it. */
  setLatencyMultiplier(multiplier: number): void {
    if (!Number.isFinite(multiplier) || multiplier <= 0)
      throw new RangeError(`latency multiplier must be positive, got ${multiplier}`);
    this.latencyMultiplier = multiplier;
  }

  setConfig(config: SimNetworkConfig): void {
    this.config = config;
  }

  isBlocked(from: string, to: string): boolean {
    if (this.partitions.size === 0) return false;
    const key = linkKey(from, to);
    for (const links of this.partitions.values()) if (links.has(key)) return true;
    return false;
  }

  /** Currently cut links (`from->to`), sorted. */
  blockedLinkList(): string[] {
    const all = new Set<string>();
    for (const links of this.partitions.values()) for (const l of links) all.add(l);
    return [...all].sort();
  }

  /** One latency draw for a service round trip leg (no loss): used by object store, KV, cache clients. */
  sampleLatency(): number {
    return sampleLatency(this.config.latency, this.deps.random, this.latencyMultiplier);
  }

  // ---- messages ----

  /**
   * Sends one message from `from` to `to`; `arrive` runs at each delivered copy's arrival,
   * in an event owned by `arrivalOwner` (the caller's incarnation for replies, so replies to
   * a dead process are dropped) or by the cluster for requests.
   */
  transmit(
    from: string,
    to: string,
    label: string,
    arrivalOwner: Incarnation | undefined,
    arrive: () => void,
  ): void {
    const { kernel, random } = this.deps;
    this.counters.sent++;
    const lossDraw = random.next();
    const dupDraw = random.next();
    const latency1 = sampleLatency(this.config.latency, random, this.latencyMultiplier);
    const latency2 = sampleLatency(this.config.latency, random, this.latencyMultiplier);
    if (this.isBlocked(from, to)) {
      this.counters.blocked++;
      return;
    }
    if (lossDraw < this.config.loss) {
      this.counters.lost++;
      return;
    }
    const copies = dupDraw < this.config.duplication ? [latency1, latency2] : [latency1];
    if (copies.length > 1) this.counters.duplicated++;
    copies.forEach((latency, copy) => {
      kernel.after(
        latency,
        {
          owner: arrivalOwner,
          kind: 'net.arrive',
          detail: `${from}->${to} ${label}${copy > 0 ? ' dup' : ''}`,
        },
        () => {
          if (this.isBlocked(from, to)) {
            this.counters.blocked++;
            return;
          }
          arrive();
        },
      );
    });
  }

  /**
   * Sends a request to the node listening at `to`. If nobody listens there when it arrives,
   * the reply is 'unavailable' (connection refused), travelling back like any reply.
   */
  sendRequest(
    from: string,
    to: string,
    request: Omit<NetworkRequest, 'reply' | 'from'>,
    callerOwner: Incarnation,
    onReply: (outcome: ReplyOutcome) => void,
  ): void {
    this.transmit(from, to, `${request.method} ${request.label}`, undefined, () => {
      const reply = (outcome: ReplyOutcome): void => {
        this.transmit(to, from, `reply ${request.method} ${request.label}`, callerOwner, () =>
          onReply(outcome),
        );
      };
      const endpoint = this.endpointAt(to);
      if (endpoint === undefined) {
        reply({
          ok: false,
          code: 'unavailable',
          message: `connection refused: nothing listens at ${to}`,
        });
        return;
      }
      endpoint.receive({ ...request, from, reply });
    });
  }
}

function linkKey(from: string, to: string): string {
  return `${from}->${to}`;
}
