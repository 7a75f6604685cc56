/**
 * The store-gateway's coded errors and how they cross the Transport. A query's own fault
 * (too many samples) must not be retried on another store-gateway; an unavailable or
 * overloaded gateway must be, so the querier can tell them apart by RPC code.
 */
import { RpcError, type RpcCode } from '../runtime/index.js';
import { HttpError, UnavailableError } from '../server/index.js';
import { ChunkPoolExhaustedError } from './chunk_pool.js';

/** Average samples in a chunk: Thanos estimates a query's samples as chunks × 120. */
export const MAX_SAMPLES_PER_CHUNK = 120;

/** `max_sample_count` exceeded (HTTP 422 in process, `failed_precondition` over RPC). */
export class SampleLimitError extends HttpError {
  override name = 'SampleLimitError';
  readonly estimated: number;

  constructor(
    readonly limit: number,
    readonly chunks: number,
  ) {
    const estimated = chunks * MAX_SAMPLES_PER_CHUNK;
    super(
      'execution',
      `exceeded samples limit: the query would read about ${estimated} samples from long-term storage ` +
        `(${chunks} chunks × ${MAX_SAMPLES_PER_CHUNK}), more than the limit of ${limit} ` +
        `(-experimental.tsdb.bucket-store.max-sample-count)`,
    );
    this.estimated = estimated;
  }
}

/** The gateway cannot serve yet (starting, initial sync) or any more (stopping). */
export class StoreGatewayUnavailableError extends UnavailableError {
  override name = 'StoreGatewayUnavailableError';
}

/** What a handler error becomes on the wire; anything unknown stays 'internal'. */
export function toRpcError(err: unknown): unknown {
  if (err instanceof RpcError) return err;
  if (err instanceof SampleLimitError) return new RpcError('failed_precondition', err.message);
  // Another replica has its own chunk pool: retryable, as Cortex treats ResourceExhausted.
  if (err instanceof ChunkPoolExhaustedError)
    return new RpcError('resource_exhausted', err.message);
  if (err instanceof HttpError) {
    const code: RpcCode =
      err.code === 'unavailable'
        ? 'unavailable'
        : err.code === 'too_many_requests'
          ? 'resource_exhausted'
          : err.code === 'canceled'
            ? 'aborted'
            : err.status < 500
              ? 'invalid_argument'
              : 'internal';
    return new RpcError(code, err.message);
  }
  if (err instanceof Error && err.name === 'AbortError')
    return new RpcError('aborted', err.message);
  return err;
}

/**
 * Whether a failed store-gateway call may succeed on another replica: the peer was
 * unreachable or not ready, overloaded, timed out, or aborted the call itself. The caller's
 * own abort never reaches here as an RpcError (the client rethrows it as an AbortError).
 */
export function isRetryableStoreGatewayError(err: unknown): boolean {
  if (!(err instanceof RpcError)) return false;
  return (
    err.code === 'unavailable' ||
    err.code === 'resource_exhausted' ||
    err.code === 'aborted' ||
    err.code === 'deadline_exceeded'
  );
}
