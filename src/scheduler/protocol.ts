/**
 * The messages between query-frontends, query-schedulers and the queriers' workers, sent as
 * JSON envelopes with their HTTP bodies attached as raw bytes (frame.ts) over the runtime
 * Transport (the role Cortex's frontend/scheduler gRPC streams play).
 * A queued query is an HTTP request; the querier runs it through its own HTTP routes and sends
 * the HTTP answer straight to the frontend that queued it (`frontend.Result`), also when a
 * scheduler handed it out.
 */
import { RpcError, parseJsonBody, JSON_CONTENT_TYPE, type RpcRequest } from '../runtime/index.js';
import { FRAME_CONTENT_TYPE, frameBody, parseFrame } from './frame.js';

/** An HTTP request or answer; on the wire its body is a frame attachment. */
export interface HttpMessage {
  readonly method?: string;
  readonly url?: string;
  readonly status?: number;
  /** Lower-case names. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Uint8Array;
}

export interface QueuedQuery {
  /** Unique within the frontend that queued it. */
  readonly id: string;
  /** Where the querier sends the answer (`frontend.Result`). */
  readonly frontend: string;
  readonly tenant: string;
  readonly request: HttpMessage;
}

/** A querier worker asks for the next query (long poll: answers `{}` after `waitMs`). */
export interface PullRequest {
  readonly querier: string;
  /** The worker loop's round-robin position, echoed back from the previous answer. */
  readonly cursor: number;
  readonly waitMs: number;
}

export interface PullResponse {
  readonly query?: QueuedQuery;
  readonly cursor?: number;
}

/** A worker is alive; `leaving` = it shuts down gracefully (forget it at once). */
export interface HeartbeatRequest {
  readonly querier: string;
  readonly leaving?: boolean;
  /** The queries the querier runs, as `runningKey(frontend, id)`. */
  readonly running?: readonly string[];
}

/** The answer to a queued query, sent to the frontend that queued it. */
export interface ResultRequest {
  readonly id: string;
  /** Who ran it: the queue service clears its in-flight record. */
  readonly querier?: string;
  readonly response: HttpMessage;
}

/** Frontend → scheduler. */
export interface EnqueueRequest {
  readonly query: QueuedQuery;
}

export interface CancelRequest {
  readonly frontend: string;
  readonly id: string;
}

/** RPC method names; `prefix` is `frontend` or `scheduler` for the queue-serving side. */
export const methods = (prefix: 'frontend' | 'scheduler') => ({
  pull: `${prefix}.Pull`,
  heartbeat: `${prefix}.Heartbeat`,
});
export const FRONTEND_RESULT = 'frontend.Result';
export const SCHEDULER_ENQUEUE = 'scheduler.Enqueue';
export const SCHEDULER_CANCEL = 'scheduler.Cancel';

export function rpc(method: string, value: unknown): RpcRequest {
  return { method, ...frameBody(value) };
}

export function decode<T>(msg: { body: Uint8Array; contentType: string }, what: string): T {
  try {
    // Bodiless acknowledgements (`{}`) come as plain JSON.
    if (msg.contentType === JSON_CONTENT_TYPE) return parseJsonBody<T>(msg);
    if (msg.contentType !== FRAME_CONTENT_TYPE) {
      throw new RpcError('invalid_argument', `unexpected content type ${msg.contentType}`);
    }
    return parseFrame<T>(msg.body);
  } catch (err) {
    if (err instanceof RpcError) throw err;
    throw new RpcError('invalid_argument', `malformed ${what}: ${(err as Error).message}`);
  }
}

/** An HTTP answer a frontend hands back when a query failed before a querier answered it. */
export function errorAnswer(status: number, message: string): HttpMessage {
  return {
    status,
    headers: { 'content-type': 'text/plain; charset=utf-8' },
    body: new TextEncoder().encode(`${message}\n`),
  };
}
