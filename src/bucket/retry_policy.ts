import {
  ObjectStoreError,
  RpcError,
  isAbortError,
  isObjectNotFound,
  type BucketSpec,
} from '../runtime/index.js';
import type { BucketOperation } from './bucket_operations.js';

/** How a RetryingBucket retries and when it gives up on one attempt. */
export interface RetryConfig {
  /** Attempts after the first one, for retryable failures only; 0 turns retrying off. */
  maxRetries: number;
  /** Wait before the first retry; it doubles with every further retry, up to `maxBackoffMs`. */
  minBackoffMs: number;
  maxBackoffMs: number;
  /**
   * How long one attempt of each operation may take before it is aborted and counted as a
   * (retryable) timeout; 0 means no limit. Whole-object reads and uploads move the most bytes.
   */
  attemptTimeoutMs: Record<BucketOperation, number>;
}

const SECOND = 1000;
const MINUTE = 60 * SECOND;

/**
 * Defaults: minio-go's 10 retries; backoff from 200 ms (minio-go's retry unit) doubling to
 * 5 s; attempt timeouts long enough for a 512 MiB chunk segment on a slow link.
 */
export const DEFAULT_RETRY_CONFIG: Readonly<RetryConfig> = Object.freeze({
  maxRetries: 10,
  minBackoffMs: 200,
  maxBackoffMs: 5 * SECOND,
  attemptTimeoutMs: Object.freeze({
    iter: 2 * MINUTE,
    get: 5 * MINUTE,
    get_range: MINUTE,
    exists: MINUTE,
    upload: 10 * MINUTE,
    delete: MINUTE,
    attributes: MINUTE,
  }),
});

/**
 * The retry settings for a bucket spec: the defaults, with Azure's `max_retries` as the retry
 * budget (the reference's only retry key). Backends that answer from process memory or local
 * disk are not retried: their errors are not transient.
 */
export function retryConfigFor(
  spec: BucketSpec,
  overrides: Partial<RetryConfig> = {},
): RetryConfig {
  const base: RetryConfig = {
    ...DEFAULT_RETRY_CONFIG,
    attemptTimeoutMs: { ...DEFAULT_RETRY_CONFIG.attemptTimeoutMs },
  };
  if (spec.backend === 'azure') base.maxRetries = spec.maxRetries;
  if (spec.backend === 'filesystem' || spec.backend === 'inmemory') base.maxRetries = 0;
  return { ...base, ...overrides };
}

/** RPC codes (the simulator's object store, HTTP transports) that mean "try again later". */
const RETRYABLE_RPC_CODES = new Set(['unavailable', 'resource_exhausted', 'deadline_exceeded']);
/** Socket failures of clients that do not classify their own errors. */
const RETRYABLE_NETWORK_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'EAI_AGAIN',
]);

/**
 * Whether a failed bucket call may succeed when tried again: server errors, throttling
 * (429, 503, SlowDown), timeouts and dropped connections. Never a missing object, an abort,
 * a rejected request (4xx) or an argument error.
 */
export function isRetryableBucketError(err: unknown): boolean {
  if (isObjectNotFound(err) || isAbortError(err)) return false;
  if (err instanceof ObjectStoreError) return err.retryable;
  if (err instanceof RpcError) return RETRYABLE_RPC_CODES.has(err.code);
  if (err === null || typeof err !== 'object') return false;
  const { code, status } = err as { code?: unknown; status?: unknown };
  if (typeof code === 'string' && RETRYABLE_NETWORK_CODES.has(code)) return true;
  return typeof status === 'number' && (status === 429 || status >= 500);
}

/**
 * The wait before retry number `retry` (1-based): `minBackoffMs * 2^(retry-1)` capped at
 * `maxBackoffMs`. With `jitter` (a uniform draw in [0, 1)), a random point in the upper half
 * of that, so clients that failed together do not retry together.
 */
export function backoffMs(config: RetryConfig, retry: number, jitter?: number): number {
  const exp = config.minBackoffMs * 2 ** Math.max(0, retry - 1);
  const capped = Math.min(config.maxBackoffMs, exp);
  return jitter === undefined ? capped : Math.round(capped / 2 + (capped / 2) * jitter);
}
