import {
  RpcError,
  type CallOptions,
  type RpcHandler,
  type RpcRequest,
  type RpcResponse,
  type Transport,
} from '../transport.js';

/**
 * In-process transports that reach each other by name: what component tests use to wire a
 * distributor, ingesters and a querier together without sockets or a simulator. Calls go
 * straight to the peer's handler (no copy, no latency); a peer that is not listening, or was
 * closed or `disconnect`ed, answers 'unavailable' as a dead process would.
 */
export class MemoryNetwork {
  private readonly peers = new Map<string, MemoryTransport>();
  private readonly down = new Set<string>();

  /** A transport that will listen at `address`. */
  transport(address: string): MemoryTransport {
    return new MemoryTransport(address, this);
  }

  /** Makes `address` unreachable (calls to it fail with 'unavailable') until `reconnect`. */
  disconnect(address: string): void {
    this.down.add(address);
  }

  reconnect(address: string): void {
    this.down.delete(address);
  }

  /** @internal */
  register(address: string, transport: MemoryTransport): void {
    if (this.peers.has(address)) throw new Error(`address ${address} is already in use`);
    this.peers.set(address, transport);
  }

  /** @internal */
  unregister(address: string, transport: MemoryTransport): void {
    if (this.peers.get(address) === transport) this.peers.delete(address);
  }

  /** @internal */
  peer(address: string): MemoryTransport | undefined {
    return this.down.has(address) ? undefined : this.peers.get(address);
  }
}

export class MemoryTransport implements Transport {
  private readonly handlers = new Map<string, RpcHandler>();
  private listening = false;

  constructor(
    private readonly name: string,
    private readonly network: MemoryNetwork,
  ) {}

  get address(): string | undefined {
    return this.listening ? this.name : undefined;
  }

  handle(method: string, handler: RpcHandler): void {
    if (this.handlers.has(method)) throw new Error(`handler for ${method} already registered`);
    this.handlers.set(method, handler);
  }

  listen(): Promise<string> {
    if (!this.listening) {
      this.network.register(this.name, this);
      this.listening = true;
    }
    return Promise.resolve(this.name);
  }

  async call(address: string, req: RpcRequest, opts: CallOptions = {}): Promise<RpcResponse> {
    if (opts.signal?.aborted === true) throw new RpcError('aborted', 'call aborted');
    const peer = this.network.peer(address);
    if (peer === undefined) throw new RpcError('unavailable', `no peer listening at ${address}`);
    return peer.serve(req, opts.signal ?? new AbortController().signal);
  }

  /** @internal */
  async serve(req: RpcRequest, signal: AbortSignal): Promise<RpcResponse> {
    const handler = this.handlers.get(req.method);
    if (handler === undefined)
      throw new RpcError('unimplemented', `no handler for ${req.method} at ${this.name}`);
    try {
      return await handler(req, signal);
    } catch (err) {
      if (err instanceof RpcError) throw err;
      throw new RpcError('internal', err instanceof Error ? err.message : String(err));
    }
  }

  close(): Promise<void> {
    this.network.unregister(this.name, this);
    this.listening = false;
    return Promise.resolve();
  }
}
