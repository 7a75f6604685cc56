/**
 * API errors: an `errorType` of the Prometheus envelope and the message. The status comes
 * from the server's one error table (400 bad_data, 422 execution, 499 canceled, 503 timeout
 * and unavailable, 500 internal, 404 not_found), which uses Prometheus's codes.
 */
import { isAbortError } from '../runtime/index.js';
import { HTTP_STATUS_BY_CODE, type HttpErrorCode, toHttpError } from '../server/index.js';
import { PromQLError } from '../promql/index.js';

export class ApiError extends Error {
  override name = 'ApiError';
  constructor(
    readonly errorType: HttpErrorCode,
    message: string,
  ) {
    super(message);
  }

  get status(): number {
    return HTTP_STATUS_BY_CODE[this.errorType];
  }
}

/** `bad_data` with Prometheus's `invalid parameter "<name>": <reason>` text. */
export function invalidParam(name: string, reason: string): ApiError {
  return new ApiError('bad_data', `invalid parameter "${name}": ${reason}`);
}

/** Runs `parse` and turns its failure into `invalid parameter "<name>": <reason>`. */
export function param<T>(name: string, parse: () => T): T {
  try {
    return parse();
  } catch (err) {
    if (err instanceof ApiError) throw err;
    throw invalidParam(name, (err as Error).message);
  }
}

export function badData(message: string): ApiError {
  return new ApiError('bad_data', message);
}

/**
 * Prometheus `returnAPIError`: canceled and timed-out queries and storage failures keep
 * their kind, anything else is the query's `execution` failure. Coded errors of our own
 * (PromQL errors, HTTP and RPC errors from peers) keep their code; `fallback` covers the rest.
 */
export function toApiError(err: unknown, fallback: HttpErrorCode = 'execution'): ApiError {
  if (err instanceof ApiError) return err;
  if (err instanceof PromQLError) return new ApiError(err.errorType, err.message);
  if (isAbortError(err)) return new ApiError('canceled', (err as Error).message);
  const http = toHttpError(err);
  if (http !== undefined) return new ApiError(http.code, http.message);
  return new ApiError(fallback, err instanceof Error ? err.message : String(err));
}

/** True when the error was not one of the coded kinds (a bug or an unexpected failure). */
export function isUncoded(err: unknown): boolean {
  return (
    !(err instanceof ApiError) &&
    !(err instanceof PromQLError) &&
    !isAbortError(err) &&
    toHttpError(err) === undefined
  );
}
