/**
 * Calls between components. Real: HTTP on the internal (`-server.grpc-listen-port`) port with
 * protobuf or JSON bodies. Simulated: in-memory messages subject to latency, loss,
 * duplication and partitions. Components address peers by the string `listen()` returned on
 * the peer (real: host:port; simulated: node name), usually learnt from a ring.
 */
export interface Transport {
  /** Registers the handler of `method` (e.g. `ingester.Push`). Registering twice throws. */
  handle(method: string, handler: RpcHandler): void;
  /** Starts accepting calls; resolves with the address peers pass to `call`. */
  listen(): Promise<string>;
  /** The address after `listen()` resolved, otherwise undefined. */
  readonly address: string | undefined;
  /**
   * Calls `req.method` on the peer at `address`. Rejects with an RpcError: the handler's code
   * and message if it threw one, 'internal' for any other handler error, 'unavailable' when
   * the peer cannot be reached, 'deadline_exceeded' after `timeoutMs`, 'aborted' on `signal`.
   */
  call(address: string, req: RpcRequest, opts?: CallOptions): Promise<RpcResponse>;
  /** Stops accepting calls and aborts calls in flight on both sides. */
  close(): Promise<void>;
}

export interface RpcRequest {
  method: string;
  body: Uint8Array;
  /** 'application/x-protobuf' or 'application/json'. */
  contentType: string;
  /** Lower-case header names, e.g. `x-scope-orgid`. */
  headers?: Readonly<Record<string, string>>;
}

export interface RpcResponse {
  body: Uint8Array;
  contentType: string;
}

export type RpcHandler = (req: RpcRequest, signal: AbortSignal) => Promise<RpcResponse>;

export interface CallOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
}

export type RpcCode =
  | 'unavailable'
  | 'deadline_exceeded'
  | 'aborted'
  | 'not_found'
  | 'invalid_argument'
  | 'failed_precondition'
  | 'resource_exhausted'
  | 'unauthenticated'
  | 'unimplemented'
  | 'internal';

export class RpcError extends Error {
  override readonly name = 'RpcError';
  constructor(
    readonly code: RpcCode,
    message: string,
  ) {
    super(message);
  }
}

export const JSON_CONTENT_TYPE = 'application/json';
export const PROTOBUF_CONTENT_TYPE = 'application/x-protobuf';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function jsonBody(value: unknown): { body: Uint8Array; contentType: string } {
  return { body: encoder.encode(JSON.stringify(value)), contentType: JSON_CONTENT_TYPE };
}

export function parseJsonBody<T>(msg: { body: Uint8Array; contentType: string }): T {
  if (msg.contentType !== JSON_CONTENT_TYPE) {
    throw new RpcError('invalid_argument', `expected ${JSON_CONTENT_TYPE}, got ${msg.contentType}`);
  }
  return JSON.parse(decoder.decode(msg.body)) as T;
}
