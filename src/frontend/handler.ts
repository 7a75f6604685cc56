/**
 * The shape every stage of the range-query path has (Cortex tripperware.Handler and
 * Middleware), with no HTTP in it: the HTTP layer parses a RangeRequest, calls the first
 * handler, and encodes the RangeResponse or the error; the last handler calls a querier.
 */
import { ApiError } from '../api/index.js';
import { toHttpError } from '../server/index.js';
import type { RangeRequest } from './range_request.js';
import type { RangeResponse } from './range_response.js';

/**
 * Answers a range query or rejects with the querier's error (an ApiError, HttpError or
 * RpcError carries the status; anything else counts as a 5xx).
 */
export type RangeHandler = (req: RangeRequest, signal: AbortSignal) => Promise<RangeResponse>;

export type RangeMiddleware = (next: RangeHandler) => RangeHandler;

/** `compose([a, b, c], h)` is a(b(c(h))): the first middleware sees the request first. */
export function composeMiddlewares(
  middlewares: readonly RangeMiddleware[],
  downstream: RangeHandler,
): RangeHandler {
  let handler = downstream;
  for (let i = middlewares.length - 1; i >= 0; i--) {
    handler = (middlewares[i] as RangeMiddleware)(handler);
  }
  return handler;
}

/** The HTTP status an error stands for, or undefined for an error that is not an HTTP one. */
export function errorStatus(err: unknown): number | undefined {
  if (err instanceof ApiError) return err.status;
  const http = toHttpError(err);
  if (http !== undefined) return http.status;
  if (typeof err === 'object' && err !== null && 'status' in err) {
    const status = err.status;
    if (typeof status === 'number') return status;
  }
  return undefined;
}
