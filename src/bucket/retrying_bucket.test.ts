import { describe, expect, it } from 'vitest';
import {
  MemoryBucket,
  ObjectNotFoundError,
  ObjectStoreError,
  RpcError,
  isAbortError,
  type BucketSpec,
} from '../runtime/index.js';
import { ManualClock, describeBucketContract } from '../runtime/testing/index.js';
import { FaultBucket, type Fault } from './fault_bucket.js';
import {
  DEFAULT_RETRY_CONFIG,
  backoffMs,
  isRetryableBucketError,
  retryConfigFor,
  type RetryConfig,
} from './retry_policy.js';
import { RetryingBucket } from './retrying_bucket.js';

const enc = new TextEncoder();

const slowDown = (): Fault => ({
  kind: 'error',
  error: new ObjectStoreError('get x on s3 bucket b failed (SlowDown)', {
    retryable: true,
    code: 'SlowDown',
  }),
});

function config(overrides: Partial<RetryConfig> = {}): RetryConfig {
  return {
    maxRetries: 5,
    minBackoffMs: 100,
    maxBackoffMs: 1_000,
    attemptTimeoutMs: { ...DEFAULT_RETRY_CONFIG.attemptTimeoutMs },
    ...overrides,
  };
}

async function setup(overrides: Partial<RetryConfig> = {}) {
  const clock = new ManualClock(1_000_000);
  const memory = new MemoryBucket({ clock }, 'mem');
  await memory.upload('x', enc.encode('data'));
  const faults = new FaultBucket(memory);
  const bucket = new RetryingBucket(faults, config(overrides), { clock });
  return { clock, faults, bucket };
}

/** Settles `p` into a value or an error, so a test can advance the clock meanwhile. */
function outcome<T>(p: Promise<T>): () => { done: boolean; value?: T; error?: unknown } {
  const state: { done: boolean; value?: T; error?: unknown } = { done: false };
  p.then(
    (value) => Object.assign(state, { done: true, value }),
    (error: unknown) => Object.assign(state, { done: true, error }),
  );
  return () => state;
}

describe('RetryingBucket', () => {
  it('retries retryable failures until the call succeeds', async () => {
    const { clock, faults, bucket } = await setup();
    faults.inject('get', slowDown(), slowDown());
    const result = outcome(bucket.get('x'));
    await clock.advance(100 + 200);
    expect(result().value).toEqual(enc.encode('data'));
    expect(faults.count('get')).toBe(3);
  });

  it('does not retry a missing object, a rejected request or an argument error', async () => {
    const { faults, bucket } = await setup();
    const forbidden = new ObjectStoreError('403 AccessDenied', { retryable: false, status: 403 });
    faults.inject('get', { kind: 'error', error: forbidden });
    await expect(bucket.get('x')).rejects.toBe(forbidden);
    await expect(bucket.get('missing')).rejects.toBeInstanceOf(ObjectNotFoundError);
    const bad = new RangeError('offset must be a non-negative integer, got -1');
    faults.inject('get_range', { kind: 'error', error: bad });
    await expect(bucket.getRange('x', -1, 1)).rejects.toBe(bad);
    expect(faults.count('get')).toBe(2);
    expect(faults.count('get_range')).toBe(1);
  });

  it('waits exponentially longer between retries, up to the cap', async () => {
    const { clock, faults, bucket } = await setup({ minBackoffMs: 100, maxBackoffMs: 300 });
    faults.inject('exists', slowDown(), slowDown(), slowDown(), slowDown());
    const result = outcome(bucket.exists('x'));
    const attemptsAfter: number[] = [];
    for (const wait of [100, 200, 300, 300]) {
      await clock.advance(wait - 1);
      attemptsAfter.push(faults.count('exists'));
      await clock.advance(1);
      attemptsAfter.push(faults.count('exists'));
    }
    expect(attemptsAfter).toEqual([1, 2, 2, 3, 3, 4, 4, 5]);
    expect(result().value).toBe(true);
  });

  it('restarts a streamed upload from the first byte when an attempt fails midway', async () => {
    const { clock, faults, bucket } = await setup();
    const pieces = [enc.encode('first '), enc.encode('second '), enc.encode('third')];
    const opened: number[] = [];
    const source = {
      size: 18,
      async *open() {
        const attempt = opened.push(0);
        for (const [i, piece] of pieces.entries()) {
          // The first attempt's connection drops after two pieces went out.
          if (attempt === 1 && i === 2)
            throw Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
          opened[attempt - 1] = (opened[attempt - 1] ?? 0) + piece.length;
          await Promise.resolve();
          yield piece;
        }
      },
    };
    const result = outcome(bucket.uploadStream('streamed', source));
    await clock.advance(100);
    expect(result()).toEqual({ done: true, value: undefined });
    // Two attempts, each read from the start: the second one whole.
    expect(opened).toEqual([13, 18]);
    expect(faults.count('upload')).toBe(2);
    expect(new TextDecoder().decode(await bucket.get('streamed'))).toBe('first second third');
  });

  it('gives up after maxRetries retries, saying how many attempts it made', async () => {
    const { clock, faults, bucket } = await setup({ maxRetries: 2 });
    faults.inject('upload', slowDown(), slowDown(), slowDown(), slowDown());
    const result = outcome(bucket.upload('y', enc.encode('1')));
    await clock.advance(10_000);
    expect(faults.count('upload')).toBe(3);
    const err = result().error;
    expect(err).toBeInstanceOf(ObjectStoreError);
    expect((err as ObjectStoreError).code).toBe('SlowDown');
    expect(String(err)).toMatch(/gave up after 3 attempts/);
  });

  it('does not retry at all with maxRetries 0', async () => {
    const { faults, bucket } = await setup({ maxRetries: 0 });
    faults.inject('delete', slowDown());
    await expect(bucket.delete('x')).rejects.toThrow(/SlowDown/);
    expect(faults.count('delete')).toBe(1);
  });

  it('aborts an attempt that outlives its timeout and retries it', async () => {
    const { clock, faults, bucket } = await setup({
      attemptTimeoutMs: { ...DEFAULT_RETRY_CONFIG.attemptTimeoutMs, get: 1_000 },
    });
    faults.inject('get', { kind: 'hang' });
    const result = outcome(bucket.get('x'));
    await clock.advance(999);
    expect(result().done).toBe(false);
    expect(faults.calls[0]?.aborted()).toBe(false);
    await clock.advance(1);
    expect(faults.calls[0]?.aborted()).toBe(true);
    expect(faults.count('get')).toBe(1);
    await clock.advance(100);
    expect(faults.count('get')).toBe(2);
    expect(result().value).toEqual(enc.encode('data'));
  });

  it('reports a timeout naming the operation, object, bucket and limit', async () => {
    const { clock, faults, bucket } = await setup({
      maxRetries: 0,
      attemptTimeoutMs: { ...DEFAULT_RETRY_CONFIG.attemptTimeoutMs, iter: 500 },
    });
    faults.inject('iter', { kind: 'hang' });
    const result = outcome(bucket.list('tenant'));
    await clock.advance(500);
    const err = result().error as ObjectStoreError;
    expect(err).toBeInstanceOf(ObjectStoreError);
    expect(err.code).toBe('timeout');
    expect(err.retryable).toBe(true);
    expect(err.message).toBe('iter "tenant" on fault:mem: attempt timed out after 500 ms');
  });

  it('stops at once when the caller aborts, during an attempt or a backoff', async () => {
    const { clock, faults, bucket } = await setup();
    faults.inject('get', { kind: 'hang' });
    const during = new AbortController();
    const first = outcome(bucket.get('x', { signal: during.signal }));
    await clock.advance(10);
    during.abort();
    await clock.advance(0);
    expect(isAbortError(first().error)).toBe(true);
    expect(faults.calls[0]?.aborted()).toBe(true);

    faults.inject('attributes', slowDown());
    const between = new AbortController();
    const second = outcome(bucket.attributes('x', { signal: between.signal }));
    await clock.advance(50);
    between.abort();
    await clock.advance(1_000);
    expect(isAbortError(second().error)).toBe(true);
    expect(faults.count('attributes')).toBe(1);
  });

  it('retries the simulator’s unavailable and throttled answers, not its other RPC errors', async () => {
    const { clock, faults, bucket } = await setup();
    faults.inject(
      'get',
      { kind: 'error', error: new RpcError('unavailable', 'objstore partitioned') },
      { kind: 'error', error: new RpcError('resource_exhausted', 'SlowDown') },
    );
    const result = outcome(bucket.get('x'));
    await clock.advance(300);
    expect(result().value).toEqual(enc.encode('data'));
    const invalid = new RpcError('invalid_argument', 'bad name');
    faults.inject('get', { kind: 'error', error: invalid });
    await expect(bucket.get('x')).rejects.toBe(invalid);
  });
});

describe('retry policy', () => {
  it('classifies errors: server errors, throttling, timeouts and resets retry; the rest not', () => {
    const store = (retryable: boolean): ObjectStoreError =>
      new ObjectStoreError('x', { retryable });
    const withProps = (props: Record<string, unknown>): Error =>
      Object.assign(new Error('x'), props);
    expect(isRetryableBucketError(store(true))).toBe(true);
    expect(isRetryableBucketError(store(false))).toBe(false);
    expect(isRetryableBucketError(new ObjectNotFoundError('o'))).toBe(false);
    expect(isRetryableBucketError(withProps({ code: 'ECONNRESET' }))).toBe(true);
    expect(isRetryableBucketError(withProps({ code: 'ENOENT' }))).toBe(false);
    expect(isRetryableBucketError(withProps({ status: 503 }))).toBe(true);
    expect(isRetryableBucketError(withProps({ status: 429 }))).toBe(true);
    expect(isRetryableBucketError(withProps({ status: 404 }))).toBe(false);
    expect(isRetryableBucketError(withProps({ status: 403 }))).toBe(false);
    expect(isRetryableBucketError(new RpcError('deadline_exceeded', 'slow'))).toBe(true);
    expect(isRetryableBucketError(new Error('plain'))).toBe(false);
    expect(isRetryableBucketError('string')).toBe(false);
  });

  it('computes backoff: doubling from the minimum, capped, jitter in the upper half', () => {
    const c = config({ minBackoffMs: 200, maxBackoffMs: 5_000 });
    expect([1, 2, 3, 4, 5, 6, 7].map((r) => backoffMs(c, r))).toEqual([
      200, 400, 800, 1600, 3200, 5000, 5000,
    ]);
    expect(backoffMs(c, 3, 0)).toBe(400);
    expect(backoffMs(c, 3, 0.999)).toBeLessThanOrEqual(800);
    expect(backoffMs(c, 3, 0.5)).toBe(600);
  });

  it('takes Azure’s max_retries, and does not retry local backends', () => {
    const azure: BucketSpec = {
      backend: 'azure',
      accountName: 'a',
      accountKey: 'k',
      containerName: 'c',
      endpointSuffix: '',
      maxRetries: 20,
    };
    expect(retryConfigFor(azure).maxRetries).toBe(20);
    expect(retryConfigFor({ backend: 'gcs', bucketName: 'b', serviceAccount: '' }).maxRetries).toBe(
      DEFAULT_RETRY_CONFIG.maxRetries,
    );
    expect(retryConfigFor({ backend: 'filesystem', dir: '/x' }).maxRetries).toBe(0);
    expect(retryConfigFor(azure, { maxRetries: 1 }).maxRetries).toBe(1);
  });
});

describeBucketContract('RetryingBucket over MemoryBucket', () => {
  const clock = new ManualClock();
  const bucket = new RetryingBucket(new MemoryBucket({ clock }), config(), { clock });
  return Promise.resolve({ bucket, cleanup: () => Promise.resolve() });
});
