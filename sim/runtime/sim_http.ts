import type { Incarnation, ScheduledEvent, SimKernel } from '../kernel/index.js';
import {
  createServerRequest,
  createServerResponse,
  type ServerAnswer,
  type InProcessResponse,
} from '../../src/server/index.js';
import type { SimNetwork } from './sim_network.js';

export const DEFAULT_HTTP_TIMEOUT_MS = 30_000;
/** The port simulated listeners report (addresses are node names; the port is cosmetic). */
export const SIM_HTTP_PORT = 80;

/**
 * A node `(req, res)` request listener, such as an express app (`HttpServer.handler`). Typed
 * with `never` parameters so any such listener fits; the simulated request and response are
 * handed to it as what it expects.
 */
export type SimHttpHandler = (req: never, res: never) => unknown;

/** A listener as `listenHttp` returns one (the shape `Strata.create`'s `listen` wants). */
export interface SimHttpListener {
  readonly address: string;
  readonly port: number;
  /** Refuses new requests, lets those in flight finish for up to `graceMs`, then resets the rest. */
  close(graceMs: number): Promise<void>;
}

export interface SimHttpRequest {
  readonly method: string;
  /** Path with query string, e.g. `/prometheus/api/v1/query?query=up`. */
  readonly path: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: Uint8Array;
}

export type SimHttpResponse = ServerAnswer;

export interface SimHttpRequestOptions {
  /** Virtual milliseconds until the client gives up (default 30s). */
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
}

/**
 * Why a request got no answer: `unreachable` (nothing listens there: connection refused),
 * `timeout` (no answer within the timeout: lost messages, a partition, a server that died or
 * is slow), `reset` (the server closed the connection without answering), `aborted` (the
 * caller's signal).
 */
export type SimHttpFailure = 'unreachable' | 'timeout' | 'reset' | 'aborted';

export class SimHttpError extends Error {
  constructor(
    readonly kind: SimHttpFailure,
    message: string,
  ) {
    super(message);
    this.name = 'SimHttpError';
  }
}

type Outcome = { ok: true; answer: ServerAnswer } | { ok: false; kind: SimHttpFailure };

/** One request the listener is serving (one per delivered copy of a request). */
interface Exchange {
  readonly res: InProcessResponse;
  clientGone(): void;
}

interface ListenerEntry {
  readonly owner: Incarnation;
  readonly handler: SimHttpHandler;
  readonly inflight: Set<Exchange>;
  /** Wakes a graceful close waiting for the last request in flight. */
  onIdle: (() => void) | undefined;
}

/** What travels between client and server: the request, and the connection it rides on. */
interface Connection {
  closed: boolean;
  readonly exchanges: Set<Exchange>;
}

export interface SimHttpNetworkDeps {
  kernel: SimKernel;
  network: SimNetwork;
}

/**
 * The cluster's HTTP plane: at most one listener per node, reached at the node's name. Every
 * request and every answer is a message on the SimNetwork, between the two node names, so
 * latency, loss, duplication (the server then serves the request twice; the client keeps the
 * first answer), partitions and latency spikes apply to HTTP exactly as to RPC. A listener
 * belongs to a process incarnation and dies with it: a crashed server never answers (its
 * clients time out) and a restarted one must listen again.
 */
export class SimHttpNetwork {
  private readonly listeners = new Map<string, ListenerEntry>();

  constructor(readonly deps: SimHttpNetworkDeps) {}

  /** The process's HTTP side: a listener for its node and a client. */
  forProcess(owner: Incarnation): SimHttp {
    return new SimHttp(this, owner);
  }

  /** @internal */
  register(node: string, entry: ListenerEntry): void {
    const current = this.listeners.get(node);
    if (current !== undefined && current.owner.alive && current !== entry)
      throw new Error(`HTTP address ${node} is already in use by ${current.owner.toString()}`);
    this.listeners.set(node, entry);
  }

  /** @internal */
  unregister(node: string, entry: ListenerEntry): void {
    if (this.listeners.get(node) === entry) this.listeners.delete(node);
  }

  /** @internal The live listener at `node`, if any. */
  listenerAt(node: string): ListenerEntry | undefined {
    const entry = this.listeners.get(node);
    return entry !== undefined && entry.owner.alive ? entry : undefined;
  }
}

/**
 * One process incarnation's HTTP: `listen` serves a request listener at the node's name (it
 * is a `ListenFn` for `Strata.create`), `request` is the client. Every request ends: with the
 * server's answer (any status), or a `SimHttpError`. A client that gives up (timeout, abort)
 * closes its connection: the server sees the request aborted and the response closed, as a
 * Node server does when its client goes away.
 */
export class SimHttp {
  private seq = 0;

  constructor(
    private readonly plane: SimHttpNetwork,
    private readonly owner: Incarnation,
  ) {}

  get node(): string {
    return this.owner.node;
  }

  listen(handler: SimHttpHandler): Promise<SimHttpListener> {
    const { plane, owner } = this;
    if (!owner.alive) return Promise.reject(new Error(`${owner.toString()} is dead`));
    const entry: ListenerEntry = { owner, handler, inflight: new Set(), onIdle: undefined };
    plane.register(owner.node, entry);
    owner.onDeath(() => plane.unregister(owner.node, entry));
    let closed: Promise<void> | undefined;
    return Promise.resolve({
      address: owner.node,
      port: SIM_HTTP_PORT,
      close: (graceMs: number): Promise<void> => {
        closed ??= this.close(entry, graceMs);
        return closed;
      },
    });
  }

  private close(entry: ListenerEntry, graceMs: number): Promise<void> {
    const { kernel } = this.plane.deps;
    this.plane.unregister(this.owner.node, entry);
    if (entry.inflight.size === 0) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const deadline = kernel.after(
        Math.max(0, graceMs),
        { owner: this.owner, kind: 'http.close_deadline', detail: this.owner.node },
        () => {
          entry.onIdle = undefined;
          for (const x of [...entry.inflight]) x.res.destroy();
          resolve();
        },
      );
      entry.onIdle = () => {
        deadline.cancel();
        resolve();
      };
    });
  }

  request(
    address: string,
    req: SimHttpRequest,
    opts: SimHttpRequestOptions = {},
  ): Promise<SimHttpResponse> {
    const { kernel, network } = this.plane.deps;
    const { owner } = this;
    const from = owner.node;
    const label = `${req.method} ${req.path.split('?')[0] ?? ''} #${++this.seq}`;
    const what = `${req.method} http://${address}${req.path}`;
    const signal = opts.signal;
    if (signal?.aborted === true)
      return Promise.reject(new SimHttpError('aborted', `${what}: aborted`));
    const timeoutMs = opts.timeoutMs ?? DEFAULT_HTTP_TIMEOUT_MS;
    const body = req.body === undefined ? new Uint8Array(0) : req.body.slice();
    const headers: Record<string, string> = { host: address };
    for (const [k, v] of Object.entries(req.headers ?? {})) headers[k.toLowerCase()] = v;
    if (body.length > 0 && headers['content-length'] === undefined)
      headers['content-length'] = String(body.length);
    const connection: Connection = { closed: false, exchanges: new Set() };

    return new Promise<SimHttpResponse>((resolve, reject) => {
      let settled = false;
      const settle = (outcome: Outcome): void => {
        if (settled) return; // a duplicate's answer, or one after the timeout
        settled = true;
        timeout.cancel();
        signal?.removeEventListener('abort', onAbort);
        if (outcome.ok) {
          resolve(outcome.answer);
          return;
        }
        const reason: Record<SimHttpFailure, string> = {
          unreachable: `connection refused: nothing listens at ${address}`,
          timeout: `no answer within ${timeoutMs}ms`,
          reset: 'connection reset by the server',
          aborted: 'aborted',
        };
        reject(new SimHttpError(outcome.kind, `${what}: ${reason[outcome.kind]}`));
        if (outcome.kind === 'timeout' || outcome.kind === 'aborted') hangUp();
      };
      /** The client closes its connection: the server sees it once the close arrives. */
      const hangUp = (): void => {
        network.transmit(from, address, `http close ${label}`, undefined, () => {
          connection.closed = true;
          for (const x of [...connection.exchanges]) x.clientGone();
        });
      };
      const onAbort = (): void => settle({ ok: false, kind: 'aborted' });
      const timeout: ScheduledEvent = kernel.after(
        timeoutMs,
        { owner, kind: 'http.timeout', detail: `${from}->${address} ${label}` },
        () => settle({ ok: false, kind: 'timeout' }),
      );
      signal?.addEventListener('abort', onAbort, { once: true });
      const reply = (outcome: Outcome): void =>
        network.transmit(address, from, `http reply ${label}`, owner, () => settle(outcome));
      network.transmit(from, address, `http ${label}`, undefined, () => {
        if (connection.closed) return; // the client hung up before its request arrived
        const entry = this.plane.listenerAt(address);
        if (entry === undefined) {
          reply({ ok: false, kind: 'unreachable' });
          return;
        }
        this.serve(entry, connection, {
          method: req.method,
          url: req.path,
          headers,
          body: body.slice(),
          remoteAddress: from,
          reply,
        });
      });
    });
  }

  /** Runs the listener's handler for one delivered request; answers unless its process died. */
  private serve(
    entry: ListenerEntry,
    connection: Connection,
    r: {
      method: string;
      url: string;
      headers: Record<string, string>;
      body: Uint8Array;
      remoteAddress: string;
      reply: (outcome: Outcome) => void;
    },
  ): void {
    const req = createServerRequest(r);
    const finish = (outcome: Outcome): void => {
      entry.inflight.delete(exchange);
      connection.exchanges.delete(exchange);
      if (entry.inflight.size === 0) entry.onIdle?.();
      // A dead server never answers; a client that hung up is not there to read the answer.
      if (entry.owner.alive && !connection.closed) r.reply(outcome);
    };
    const response = createServerResponse(req, {
      onEnd: (answer) => finish({ ok: true, answer }),
      onDestroy: () => finish({ ok: false, kind: 'reset' }),
    });
    const res = response.res;
    const exchange: Exchange = {
      res,
      clientGone: () => {
        response.clientGone();
        finish({ ok: false, kind: 'reset' });
      },
    };
    entry.inflight.add(exchange);
    connection.exchanges.add(exchange);
    try {
      (entry.handler as unknown as (req: unknown, res: unknown) => unknown)(req, res);
    } catch (err) {
      this.plane.deps.kernel.reportError(`HTTP handler on ${entry.owner.toString()}`, err);
      res.destroy();
    }
  }
}
