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

/**
 * A select's failure as the query's, as Prometheus wraps it (`expanding series: %w`): a coded
 * PromQL error from the storage keeps its kind (a querier's fetch limit stays a 422
 * `execution`, as Cortex returns its limit errors), a StorageError is passed on, anything else
 * is a storage failure (500 `internal`).
 */
export function expandingSeriesError(err: unknown): PromQLError {
  if (err instanceof StorageError) return err;
  const message = `expanding series: ${err instanceof Error ? err.message : String(err)}`;
  if (err instanceof PromQLError) return new PromQLError(err.errorType, message);
  return new StorageError(message, err);
}
