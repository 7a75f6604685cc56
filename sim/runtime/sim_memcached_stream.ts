import type { ByteStream, Dialer, StreamHandlers } from '../../src/cache/index.js';
import { memcachedProtocol } from '../../src/cache/index.js';
import type { Incarnation, SimKernel } from '../kernel/index.js';
import type {
  ServerConnection,
  SimMemcachedCluster,
  SimMemcachedServer,
} from './sim_memcached_server.js';
import type { SimNetwork } from './sim_network.js';

export interface SimMemcachedDialerDeps {
  kernel: SimKernel;
  network: SimNetwork;
  /** The dialing process: answers are its events and die with it. */
  owner: Incarnation;
  cluster: SimMemcachedCluster;
}

type Segment = { kind: 'data'; bytes: Uint8Array } | { kind: 'fin' };

/**
 * In-order, exactly-once delivery over a network that loses, duplicates and reorders (each
 * message draws its own latency): what TCP gives a byte stream. Segments are numbered; a
 * duplicate is dropped, an early one waits for the gap, and a lost one stalls the stream (the
 * client's timeout then breaks the connection, as a stalled TCP connection does).
 */
class Sequencer {
  private nextSend = 0;
  private expected = 0;
  private readonly early = new Map<number, Segment>();

  number(): number {
    return this.nextSend++;
  }

  arrive(seq: number, segment: Segment): Segment[] {
    if (seq < this.expected || this.early.has(seq)) return [];
    this.early.set(seq, segment);
    const ready: Segment[] = [];
    for (
      let s = this.early.get(this.expected);
      s !== undefined;
      s = this.early.get(this.expected)
    ) {
      ready.push(s);
      this.early.delete(this.expected++);
    }
    return ready;
  }
}

/**
 * A Dialer whose byte streams travel over the SimNetwork between the dialing node and a
 * simulated memcached server (by name): every connect, write, answer and close is a network
 * message, so latency, loss, duplication, partitions and latency spikes apply. A server that
 * is down (or a name no server has) refuses the connection; a crash resets every open one.
 */
export class SimMemcachedDialer implements Dialer {
  private dialed = 0;

  constructor(private readonly deps: SimMemcachedDialerDeps) {}

  connect(host: string, port: number, handlers: StreamHandlers): Promise<ByteStream> {
    const { network, owner, cluster } = this.deps;
    const id = `${owner.toString()}/${++this.dialed}`;
    return new Promise<ByteStream>((resolve, reject) => {
      let pipe: Pipe | undefined;
      let settled = false;
      network.transmit(owner.node, host, `memcached connect ${id}`, undefined, () => {
        if (pipe !== undefined) return; // a duplicated SYN
        const server = cluster.serverAt(host, port);
        const created = server?.up === true ? new Pipe(id, server, handlers, this.deps) : undefined;
        pipe = created;
        const accepted = created !== undefined && server!.accept(created);
        const verdict = accepted ? 'accept' : 'refuse';
        network.transmit(host, owner.node, `memcached ${verdict} ${id}`, owner, () => {
          if (settled) return;
          settled = true;
          if (!accepted || created.clientClosed) {
            reject(
              new Error(`connect ${host}:${port}: ${accepted ? 'ECONNRESET' : 'ECONNREFUSED'}`),
            );
            return;
          }
          resolve(created.clientStream());
        });
      });
    });
  }
}

/** Both ends of one connection; the server end runs in cluster events, the client's in its own. */
class Pipe implements ServerConnection {
  private readonly toServer = new Sequencer();
  private readonly toClient = new Sequencer();
  private request: Uint8Array = new Uint8Array(0);
  private serverOpen = true;
  private clientOpen = true;
  private answerReadyAt = 0;
  private readonly unhookDeath: () => void;

  constructor(
    private readonly id: string,
    private readonly server: SimMemcachedServer,
    private readonly handlers: StreamHandlers,
    private readonly deps: SimMemcachedDialerDeps,
  ) {
    // The OS closes a dead process's sockets: the server hears a FIN.
    this.unhookDeath = deps.owner.onDeath(() => {
      if (this.clientOpen) {
        this.clientOpen = false;
        this.sendToServer({ kind: 'fin' });
      }
    });
  }

  get clientClosed(): boolean {
    return !this.clientOpen;
  }

  clientStream(): ByteStream {
    return {
      write: (data) => {
        if (!this.clientOpen) throw new Error(`write after close (${this.id})`);
        this.sendToServer({ kind: 'data', bytes: data.slice() });
      },
      destroy: () => {
        if (!this.clientOpen) return;
        this.clientOpen = false;
        this.unhookDeath();
        this.sendToServer({ kind: 'fin' });
        void Promise.resolve().then(() => this.handlers.onClose());
      },
    };
  }

  /** The server crashed: its host answers this connection with an RST. */
  reset(): void {
    if (!this.serverOpen) return;
    this.serverOpen = false;
    this.sendReset();
  }

  // ---- client -> server ----

  private sendToServer(segment: Segment): void {
    const seq = this.toServer.number();
    const label = `memcached ${segment.kind} ${this.id} #${seq}`;
    this.deps.network.transmit(this.deps.owner.node, this.server.name, label, undefined, () => {
      for (const s of this.toServer.arrive(seq, segment)) this.serverReceive(s);
    });
  }

  private serverReceive(segment: Segment): void {
    if (!this.serverOpen) return;
    if (!this.server.owns(this)) {
      // The server restarted since: this connection is unknown to it.
      this.serverOpen = false;
      this.sendReset();
      return;
    }
    if (segment.kind === 'fin') {
      this.serverOpen = false;
      this.server.close(this);
      return;
    }
    this.request = memcachedProtocol.concat([this.request, segment.bytes]);
    const whole = wholeFrames(this.request);
    if (whole === 0) return;
    const frames = this.request.slice(0, whole);
    this.request = this.request.slice(whole);
    let answer: Uint8Array;
    try {
      answer = this.server.serve(frames);
    } catch {
      this.server.close(this);
      this.reset();
      return;
    }
    if (answer.length === 0) return;
    // A server answers in order: a slow answer holds back the ones after it.
    const { kernel } = this.deps;
    this.answerReadyAt = Math.max(kernel.now() + this.server.slowMs, this.answerReadyAt);
    kernel.at(this.answerReadyAt, { kind: 'memcached.answer', detail: this.id }, () => {
      if (this.serverOpen && this.server.owns(this)) this.sendToClient(answer);
    });
  }

  // ---- server -> client ----

  private sendToClient(bytes: Uint8Array): void {
    const seq = this.toClient.number();
    const { network, owner } = this.deps;
    const label = `memcached answer ${this.id} #${seq}`;
    network.transmit(this.server.name, owner.node, label, owner, () => {
      for (const s of this.toClient.arrive(seq, { kind: 'data', bytes })) {
        if (this.clientOpen && s.kind === 'data') this.handlers.onData(s.bytes.slice());
      }
    });
  }

  private sendReset(): void {
    const { network, owner } = this.deps;
    network.transmit(this.server.name, owner.node, `memcached reset ${this.id}`, owner, () => {
      if (!this.clientOpen) return;
      this.clientOpen = false;
      this.unhookDeath();
      this.handlers.onClose(new Error(`connection reset by ${this.server.name}`));
    });
  }
}

/** Length of the longest prefix of `buf` made of whole request frames. */
function wholeFrames(buf: Uint8Array): number {
  const header = memcachedProtocol.HEADER_BYTES;
  let at = 0;
  while (at + header <= buf.length) {
    const bodyLen = new DataView(buf.buffer, buf.byteOffset + at, header).getUint32(8);
    if (at + header + bodyLen > buf.length) break;
    at += header + bodyLen;
  }
  return at;
}
