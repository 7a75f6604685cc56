// The error kinds a query can end with, named by the Prometheus HTTP API `errorType` they map
// to (web/api/v1 returnAPIError): the API turns each into its status code, the conformance
// runner matches their messages against `expect fail`. Messages are Prometheus's own text.

export type PromQLErrorType = 'bad_data' | 'execution' | 'timeout' | 'canceled' | 'internal';

export class PromQLError extends Error {
  constructor(
    readonly errorType: PromQLErrorType,
    message: string,
  ) {
    super(message);
    this.name = 'PromQLError';
  }
}

/** An evaluation failure that is the query's fault (422 `execution`), e.g. many-to-many matching. */
export class QueryExecutionError extends PromQLError {
  constructor(message: string) {
    super('execution', message);
    this.name = 'QueryExecutionError';
  }
}

/** `query processing would load too many samples into memory in <where>` (422 `execution`). */
export class TooManySamplesError extends PromQLError {
  constructor(where: string) {
    super('execution', `query processing would load too many samples into memory in ${where}`);
    this.name = 'TooManySamplesError';
  }
}

/** `query timed out in <where>` (503 `timeout`). */
export class QueryTimeoutError extends PromQLError {
  constructor(where: string) {
    super('timeout', `query timed out in ${where}`);
    this.name = 'QueryTimeoutError';
  }
}

/** `query was canceled in <where>` (499 `canceled`). */
export class QueryCanceledError extends PromQLError {
  constructor(where: string) {
    super('canceled', `query was canceled in ${where}`);
    this.name = 'QueryCanceledError';
  }
}

/** A storage failure surfaced by the engine (500 `internal`). */
export class StorageError extends PromQLError {
  constructor(
    message: string,
    override readonly cause?: unknown,
  ) {
    super('internal', message);
    this.name = 'StorageError';
  }
}
