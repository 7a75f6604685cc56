/**
 * `-querier.max-retries-per-request` (Cortex queryrange retry middleware): a (sub-)query that
 * fails with a 5xx or with an error that is no HTTP answer at all (a querier that crashed or
 * could not be reached) is tried again, up to the configured number of attempts in total.
 * A 4xx is the query's own fault and is returned at once; so is a cancellation.
 */
import type { Histogram } from 'prom-client';
import {
  isAbortError,
  type Logger,
  type MetricsRegistry,
  registeredHistogram,
} from '../runtime/index.js';
import { errorStatus, type RangeMiddleware } from './handler.js';

/** Thanos's pool error: retrying from the frontend would only make the pressure worse. */
const POOL_EXHAUSTED = 'pool exhausted';

/** Cortex's default for `-querier.max-retries-per-request`. */
export const DEFAULT_MAX_RETRIES = 5;

export function isRetryable(err: unknown): boolean {
  if (isAbortError(err)) return false;
  const status = errorStatus(err);
  if (status === undefined) return true;
  if (Math.trunc(status / 100) !== 5) return false;
  return !(err instanceof Error && err.message.includes(POOL_EXHAUSTED));
}

export interface RetryMetrics {
  readonly retries: Histogram;
}

export function retryMetrics(registry: MetricsRegistry): RetryMetrics {
  return {
    retries: registeredHistogram(
      registry,
      'cortex_query_frontend_retries',
      'Number of times a request is retried.',
      [0, 1, 2, 3, 4, 5],
    ),
  };
}

export interface RetryConfig {
  /** Attempts in total (Cortex counts them so); values below 1 mean one attempt. */
  readonly maxRetries: number;
}

export function retryMiddleware(
  config: RetryConfig,
  deps: { logger?: Logger; metrics?: RetryMetrics } = {},
): RangeMiddleware {
  const attempts = Math.max(1, config.maxRetries);
  return (next) => async (req, signal) => {
    let tries = 0;
    try {
      for (;;) {
        signal.throwIfAborted();
        try {
          return await next(req, signal);
        } catch (err) {
          if (!isRetryable(err) || signal.aborted || tries + 1 >= attempts) throw err;
          deps.logger?.error('error processing request', {
            try: tries,
            err: err instanceof Error ? err.message : String(err),
          });
          tries++;
        }
      }
    } finally {
      deps.metrics?.retries.observe(tries);
    }
  };
}
