import {
  RpcError,
  type CallOptions,
  type RpcHandler,
  type RpcRequest,
  type RpcResponse,
  type Transport,
} from '../../src/runtime/index.js';
import type { Incarnation, ScheduledEvent, SimKernel } from '../kernel/index.js';
import type { NetworkEndpoint, NetworkRequest, ReplyOutcome, SimNetwork } from './sim_network.js';

export const DEFAULT_CALL_TIMEOUT_MS = 5_000;

export interface SimTransportDeps {
  kernel: SimKernel;
  network: SimNetwork;
  owner: Incarnation;
}

interface PendingCall {
  settle(outcome: ReplyOutcome): void;
}

/**
 * A process incarnation's transport in the simulator. Addresses are node names. Calls travel
 * over the SimNetwork and may be lost, duplicated (the handler then runs twice) or cut by a
 * partition; every call ends: with the reply, 'unavailable' when nothing listens at the
 * address, 'deadline_exceeded' after `timeoutMs` (default 5s virtual), or 'aborted'. Timeouts
 * and replies are events of the caller's incarnation, so a crashed caller never sees them.
 */
export class SimTransport implements Transport, NetworkEndpoint {
  private readonly handlers = new Map<string, RpcHandler>();
  private readonly pending = new Set<PendingCall>();
  private readonly inflight = new Set<AbortController>();
  private listening: string | undefined;
  private closed = false;
  private callSeq = 0;

  constructor(private readonly deps: SimTransportDeps) {
    // A dead process keeps nothing: no listener, no pending calls (their events are dropped).
    deps.owner.onDeath(() => {
      if (this.listening !== undefined) deps.network.unlisten(this.listening, this);
      this.pending.clear();
      this.inflight.clear();
    });
  }

  get owner(): Incarnation {
    return this.deps.owner;
  }

  get address(): string | undefined {
    return this.listening;
  }

  handle(method: string, handler: RpcHandler): void {
    if (this.handlers.has(method))
      throw new Error(`handler for ${method} is already registered on ${this.deps.owner.node}`);
    this.handlers.set(method, handler);
  }

  listen(): Promise<string> {
    if (this.closed)
      return Promise.reject(new Error(`transport of ${this.deps.owner.toString()} is closed`));
    const address = this.deps.owner.node;
    this.deps.network.listen(address, this);
    this.listening = address;
    return Promise.resolve(address);
  }

  call(address: string, req: RpcRequest, opts?: CallOptions): Promise<RpcResponse> {
    const { kernel, network, owner } = this.deps;
    if (this.closed)
      return Promise.reject(new RpcError('unavailable', `transport of ${owner.node} is closed`));
    const signal = opts?.signal;
    if (signal?.aborted === true)
      return Promise.reject(new RpcError('aborted', `call ${req.method} to ${address} aborted`));
    const timeoutMs = opts?.timeoutMs ?? DEFAULT_CALL_TIMEOUT_MS;
    const label = `#${++this.callSeq}`;
    return new Promise<RpcResponse>((resolve, reject) => {
      const onAbort = (): void =>
        call.settle({
          ok: false,
          code: 'aborted',
          message: `call ${req.method} to ${address} aborted`,
        });
      const call: PendingCall = {
        settle: (outcome) => {
          if (!this.pending.delete(call)) return; // already settled (duplicate reply, timeout)
          timeout.cancel();
          signal?.removeEventListener('abort', onAbort);
          if (outcome.ok) resolve({ body: outcome.body, contentType: outcome.contentType });
          else reject(new RpcError(outcome.code, outcome.message));
        },
      };
      this.pending.add(call);
      // Settling always happens in a later event, after `timeout` is initialised.
      const timeout: ScheduledEvent = kernel.after(
        timeoutMs,
        { owner, kind: 'rpc.timeout', detail: `${owner.node}->${address} ${req.method} ${label}` },
        () =>
          call.settle({
            ok: false,
            code: 'deadline_exceeded',
            message: `call ${req.method} to ${address} timed out after ${timeoutMs}ms`,
          }),
      );
      signal?.addEventListener('abort', onAbort, { once: true });
      network.sendRequest(
        owner.node,
        address,
        {
          method: req.method,
          body: req.body.slice(),
          contentType: req.contentType,
          headers: { ...(req.headers ?? {}) },
          label,
        },
        owner,
        (outcome) => call.settle(outcome),
      );
    });
  }

  /** Runs the handler for a request that arrived at this node. */
  receive(message: NetworkRequest): void {
    const { owner } = this.deps;
    if (this.closed || !owner.alive) {
      message.reply({ ok: false, code: 'unavailable', message: `${owner.node} is shutting down` });
      return;
    }
    const handler = this.handlers.get(message.method);
    if (handler === undefined) {
      message.reply({
        ok: false,
        code: 'unimplemented',
        message: `unknown method ${message.method} on ${owner.node}`,
      });
      return;
    }
    const controller = new AbortController();
    this.inflight.add(controller);
    const request: RpcRequest = {
      method: message.method,
      body: message.body.slice(),
      contentType: message.contentType,
      headers: message.headers,
    };
    const finish = (outcome: ReplyOutcome): void => {
      this.inflight.delete(controller);
      // A process that died while handling never answers; its caller times out.
      if (owner.alive) message.reply(outcome);
    };
    let result: Promise<RpcResponse>;
    try {
      result = handler(request, controller.signal);
    } catch (err) {
      finish(errorOutcome(err));
      return;
    }
    result.then(
      (res) => finish({ ok: true, body: res.body.slice(), contentType: res.contentType }),
      (err: unknown) => finish(errorOutcome(err)),
    );
  }

  close(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.closed = true;
    if (this.listening !== undefined) this.deps.network.unlisten(this.listening, this);
    for (const controller of [...this.inflight]) controller.abort();
    this.inflight.clear();
    for (const call of [...this.pending]) {
      call.settle({
        ok: false,
        code: 'aborted',
        message: `transport of ${this.deps.owner.node} closed`,
      });
    }
    return Promise.resolve();
  }
}

function errorOutcome(err: unknown): ReplyOutcome {
  if (err instanceof RpcError) return { ok: false, code: err.code, message: err.message };
  const message = err instanceof Error ? err.message : String(err);
  return { ok: false, code: 'internal', message };
}
