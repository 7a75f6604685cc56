/**
 * How ingester failures and push outcomes cross the distributor's two edges: an ingester's
 * RpcError becomes the HTTP error the push answers with (its 4xx unchanged, a 5xx naming the
 * ingester), and an HTTP status becomes the RpcCode of the `distributor.Push` RPC.
 */
import { RpcError, type RpcCode } from '../runtime/index.js';
import { HttpError, InternalError, toHttpError } from '../server/index.js';

/** RPC codes an ingester uses to refuse data (4xx): not retried, passed on as they are. */
const CLIENT_ERROR_CODES: ReadonlySet<RpcCode> = new Set<RpcCode>([
  'invalid_argument',
  'failed_precondition',
  'resource_exhausted',
  'not_found',
  'unauthenticated',
]);

/** True when an ingester call failed because the ingester refused the data (a 4xx). */
export function isIngesterClientError(err: unknown): boolean {
  if (err instanceof RpcError) return CLIENT_ERROR_CODES.has(err.code);
  return err instanceof HttpError && err.status >= 400 && err.status < 500;
}

/**
 * The error a push answers with when an ingester call decided the outcome: a 4xx keeps the
 * ingester's status and message (Cortex passes the ingester's httpgrpc error through); any
 * other failure is a 500 naming the ingester, as Cortex's plain gRPC errors are.
 */
export function ingesterPushError(addr: string, err: unknown): HttpError {
  if (isIngesterClientError(err)) {
    const http = toHttpError(err);
    if (http !== undefined) return http;
  }
  const message = err instanceof Error ? err.message : String(err);
  const code = err instanceof RpcError ? ` (${err.code})` : '';
  return new InternalError(`failed pushing to ingester ${addr}${code}: ${message}`, { cause: err });
}

/** An HttpError's status as the code of an RPC error (the `distributor.Push` handler). */
export function rpcCodeForStatus(status: number): RpcCode {
  if (status === 429) return 'resource_exhausted';
  if (status === 401) return 'unauthenticated';
  if (status === 404) return 'not_found';
  if (status >= 400 && status < 500) return 'invalid_argument';
  if (status === 503) return 'unavailable';
  return 'internal';
}

/** The RpcError for an error thrown by the push pipeline. */
export function toPushRpcError(err: unknown): RpcError {
  if (err instanceof RpcError) return err;
  const http = toHttpError(err);
  if (http !== undefined) return new RpcError(rpcCodeForStatus(http.status), http.message);
  return new RpcError('internal', err instanceof Error ? err.message : String(err));
}
