// Retries: 5xx answers and failures that are no HTTP answer are tried again up to the limit
// of attempts; 4xx answers and cancellations are returned at once.
import { describe, expect, it } from 'vitest';
import { ApiError } from '../api/index.js';
import { AbortError, newMetricsRegistry } from '../runtime/index.js';
import { HttpError } from '../server/index.js';
import type { RangeHandler } from './handler.js';
import { querierError } from './querier_error.js';
import { isRetryable, retryMetrics, retryMiddleware } from './retry.js';
import { formulaAnswer, rangeRequest } from './test_helpers.js';

/** Fails with `errors` in turn, then answers. */
function flaky(errors: Error[]): { handler: RangeHandler; calls: () => number } {
  let calls = 0;
  return {
    handler: (req) => {
      const err = errors[calls++];
      return err === undefined ? Promise.resolve(formulaAnswer(req)) : Promise.reject(err);
    },
    calls: () => calls,
  };
}

describe('retryMiddleware', () => {
  it('retries 5xx and non-HTTP failures until an answer comes', async () => {
    const registry = newMetricsRegistry();
    const down = flaky([
      new HttpError('internal', 'boom'),
      new Error('socket hang up'),
      new ApiError('unavailable', 'querier unavailable'),
    ]);
    const handler = retryMiddleware(
      { maxRetries: 5 },
      { metrics: retryMetrics(registry) },
    )(down.handler);
    const req = rangeRequest();
    expect(await handler(req, new AbortController().signal)).toEqual(formulaAnswer(req));
    expect(down.calls()).toBe(4);
    expect(await registry.metrics()).toContain('cortex_query_frontend_retries_sum 3');
  });

  it('gives up after max-retries-per-request attempts with the last error', async () => {
    const errors = [1, 2, 3, 4, 5, 6].map((i) => new HttpError('internal', `failure ${i}`));
    const down = flaky(errors);
    const handler = retryMiddleware({ maxRetries: 5 })(down.handler);
    await expect(handler(rangeRequest(), new AbortController().signal)).rejects.toThrow(
      'failure 5',
    );
    expect(down.calls()).toBe(5);
  });

  it('returns 4xx answers and cancellations at once', async () => {
    for (const err of [
      new ApiError('bad_data', 'parse error'),
      new ApiError('execution', 'many-to-many matching not allowed'),
      new HttpError('too_many_requests', 'too many outstanding requests'),
      new AbortError(),
    ]) {
      const down = flaky([err, err]);
      const handler = retryMiddleware({ maxRetries: 5 })(down.handler);
      await expect(handler(rangeRequest(), new AbortController().signal)).rejects.toBe(err);
      expect(down.calls()).toBe(1);
    }
  });

  it('stops retrying once the request is cancelled', async () => {
    const controller = new AbortController();
    let calls = 0;
    const handler = retryMiddleware({ maxRetries: 5 })(() => {
      calls++;
      controller.abort();
      return Promise.reject(new HttpError('internal', 'boom'));
    });
    await expect(handler(rangeRequest(), controller.signal)).rejects.toThrow('boom');
    expect(calls).toBe(1);
  });

  it('classifies errors as Cortex does', () => {
    expect(isRetryable(new HttpError('internal', 'x'))).toBe(true);
    expect(isRetryable(new HttpError('internal', 'pool exhausted'))).toBe(false);
    expect(isRetryable({ status: 502 })).toBe(true);
    expect(isRetryable({ status: 404 })).toBe(false);
    expect(isRetryable(new TypeError('fetch failed'))).toBe(true);
  });
});

describe('querierError', () => {
  it('keeps the querier status, errorType, message and body', () => {
    const body = '{"status":"error","errorType":"execution","error":"expanding series: boom"}';
    const err = querierError(422, body);
    expect([err.status, err.errorType, err.message, err.body]).toEqual([
      422,
      'execution',
      'expanding series: boom',
      body,
    ]);
    expect(isRetryable(err)).toBe(false);
    const proxy = querierError(502, '<html>Bad Gateway</html>\n');
    expect([proxy.errorType, proxy.message]).toEqual([undefined, '<html>Bad Gateway</html>']);
    expect(isRetryable(proxy)).toBe(true);
  });
});
