/**
 * The error table: every error a handler means to send to a client is one of these coded
 * classes, and the single table below maps its code to an HTTP status. Anything else that
 * reaches the HTTP layer is an unhandled error: logged, counted and answered with 500.
 *
 * The codes are the Prometheus API `errorType` names where one exists (`bad_data`,
 * `execution`, `timeout`, `canceled`, `unavailable`, `not_found`, `internal`), so the query
 * API can put `err.code` straight into its JSON envelope.
 */
import { RpcError, type RpcCode } from '../runtime/index.js';

export type HttpErrorCode =
  | 'bad_data'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'method_not_allowed'
  | 'conflict'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'execution'
  | 'too_many_requests'
  | 'canceled'
  | 'internal'
  | 'not_implemented'
  | 'unavailable'
  | 'timeout';

/** The one table from error code to HTTP status. */
export const HTTP_STATUS_BY_CODE: Readonly<Record<HttpErrorCode, number>> = {
  bad_data: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  execution: 422,
  too_many_requests: 429,
  // 499 is nginx's "client closed request", which Prometheus uses for canceled queries.
  canceled: 499,
  internal: 500,
  not_implemented: 501,
  unavailable: 503,
  timeout: 503,
};

/** An error meant for the client: its message is sent as the response body. */
export class HttpError extends Error {
  override name = 'HttpError';
  constructor(
    readonly code: HttpErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }

  get status(): number {
    return HTTP_STATUS_BY_CODE[this.code];
  }
}

export class BadDataError extends HttpError {
  override name = 'BadDataError';
  constructor(message: string, options?: { cause?: unknown }) {
    super('bad_data', message, options);
  }
}

export class UnauthorizedError extends HttpError {
  override name = 'UnauthorizedError';
  constructor(message: string) {
    super('unauthorized', message);
  }
}

export class ForbiddenError extends HttpError {
  override name = 'ForbiddenError';
  constructor(message: string) {
    super('forbidden', message);
  }
}

export class NotFoundError extends HttpError {
  override name = 'NotFoundError';
  constructor(message: string) {
    super('not_found', message);
  }
}

export class MethodNotAllowedError extends HttpError {
  override name = 'MethodNotAllowedError';
  constructor(
    message: string,
    /** Methods the path does support, sent in the `Allow` header. */
    readonly allowed: readonly string[],
  ) {
    super('method_not_allowed', message);
  }
}

export class ConflictError extends HttpError {
  override name = 'ConflictError';
  constructor(message: string) {
    super('conflict', message);
  }
}

export class PayloadTooLargeError extends HttpError {
  override name = 'PayloadTooLargeError';
  constructor(message: string) {
    super('payload_too_large', message);
  }
}

export class UnsupportedMediaTypeError extends HttpError {
  override name = 'UnsupportedMediaTypeError';
  constructor(message: string) {
    super('unsupported_media_type', message);
  }
}

export class ExecutionError extends HttpError {
  override name = 'ExecutionError';
  constructor(message: string, options?: { cause?: unknown }) {
    super('execution', message, options);
  }
}

export class TooManyRequestsError extends HttpError {
  override name = 'TooManyRequestsError';
  constructor(message: string) {
    super('too_many_requests', message);
  }
}

export class CanceledError extends HttpError {
  override name = 'CanceledError';
  constructor(message: string) {
    super('canceled', message);
  }
}

export class InternalError extends HttpError {
  override name = 'InternalError';
  constructor(message: string, options?: { cause?: unknown }) {
    super('internal', message, options);
  }
}

export class NotImplementedError extends HttpError {
  override name = 'NotImplementedError';
  constructor(message: string) {
    super('not_implemented', message);
  }
}

export class UnavailableError extends HttpError {
  override name = 'UnavailableError';
  constructor(message: string, options?: { cause?: unknown }) {
    super('unavailable', message, options);
  }
}

export class TimeoutError extends HttpError {
  override name = 'TimeoutError';
  constructor(message: string) {
    super('timeout', message);
  }
}

export function isHttpError(err: unknown): err is HttpError {
  return err instanceof HttpError;
}

/** How an RPC failure from a peer component surfaces to an HTTP client. */
const HTTP_CODE_BY_RPC_CODE: Readonly<Record<RpcCode, HttpErrorCode>> = {
  unavailable: 'unavailable',
  deadline_exceeded: 'timeout',
  aborted: 'canceled',
  not_found: 'not_found',
  invalid_argument: 'bad_data',
  failed_precondition: 'bad_data',
  resource_exhausted: 'too_many_requests',
  unauthenticated: 'unauthorized',
  unimplemented: 'not_implemented',
  internal: 'internal',
};

/**
 * The client-facing form of `err` when it has one: our own HttpErrors, RpcErrors from peers,
 * and the 4xx errors express and its body parsers raise (they carry `status` and
 * `expose: true`). Undefined means the error is unhandled: a bug or an unexpected failure.
 */
export function toHttpError(err: unknown): HttpError | undefined {
  if (err instanceof HttpError) return err;
  if (err instanceof RpcError)
    return new HttpError(HTTP_CODE_BY_RPC_CODE[err.code], err.message, { cause: err });
  if (isExposedClientError(err)) {
    const code = codeForStatus(err.status);
    if (code !== undefined) return new HttpError(code, err.message, { cause: err });
  }
  return undefined;
}

interface ExposedClientError {
  status: number;
  message: string;
  expose: true;
}

function isExposedClientError(err: unknown): err is ExposedClientError {
  if (typeof err !== 'object' || err === null) return false;
  const e = err as Partial<ExposedClientError>;
  return e.expose === true && typeof e.status === 'number' && e.status >= 400 && e.status < 500;
}

function codeForStatus(status: number): HttpErrorCode | undefined {
  for (const [code, s] of Object.entries(HTTP_STATUS_BY_CODE) as [HttpErrorCode, number][]) {
    if (s === status) return code;
  }
  // Any other 4xx from a body parser is still the client's fault.
  return status >= 400 && status < 500 ? 'bad_data' : undefined;
}
