/**
 * A deliberately broken querier for the mutation canaries (`broken_querier: ignore_ingester`),
 * built from outside the product by wrapping the querier node's Transport: the real querier
 * runs untouched underneath (its ring, its replication-set fan-out, its merge).
 */
import { INGESTER_QUERY_STREAM, encodeSeriesChunks } from '../../../src/ingester/index.js';
import type {
  CallOptions,
  RpcHandler,
  RpcRequest,
  RpcResponse,
  Transport,
} from '../../../src/runtime/index.js';

/** A Transport that forwards everything; subclasses intercept some calls. */
class ForwardingTransport implements Transport {
  constructor(protected readonly inner: Transport) {}

  get address(): string | undefined {
    return this.inner.address;
  }

  handle(method: string, handler: RpcHandler): void {
    this.inner.handle(method, handler);
  }

  listen(): Promise<string> {
    return this.inner.listen();
  }

  call(address: string, req: RpcRequest, opts?: CallOptions): Promise<RpcResponse> {
    return this.inner.call(address, req, opts);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

/**
 * `broken_querier: ignore_ingester`: the querier takes `ignored`'s answers to its queries as
 * empty successes. The replication set counts them towards its quorum, so a read may rest
 * on one ingester fewer than it believes: a sample held by `ignored` and one other replica
 * goes missing whenever that other replica is the one the read did not wait for.
 */
export class IgnoreIngesterTransport extends ForwardingTransport {
  constructor(
    inner: Transport,
    private readonly ignored: string,
  ) {
    super(inner);
  }

  override async call(address: string, req: RpcRequest, opts?: CallOptions): Promise<RpcResponse> {
    const res = await this.inner.call(address, req, opts);
    if (address !== this.ignored || req.method !== INGESTER_QUERY_STREAM) return res;
    return { ...res, body: await encodeSeriesChunks([]) };
  }
}
