import { setMaxListeners } from 'node:events';
import {
  AbortError,
  ObjectStoreError,
  type Bucket,
  type BucketCallOptions,
  type BucketListOptions,
  type Clock,
  type Logger,
  type ObjectAttributes,
  type RandomStream,
  type UploadSource,
} from '../runtime/index.js';
import type { BucketOperation } from './bucket_operations.js';
import { backoffMs, isRetryableBucketError, type RetryConfig } from './retry_policy.js';

export interface RetryingBucketDeps {
  /** Timers for attempt timeouts and backoff: virtual time in the simulator. */
  clock: Clock;
  /** Jitter for the backoff; without it the waits are exact (tests). */
  random?: RandomStream;
  /** Retried failures are logged here (they do not reach the caller). */
  logger?: Logger;
}

/**
 * Retries the retryable failures of another bucket (server errors, throttling, timeouts,
 * dropped connections; see isRetryableBucketError) with exponential backoff, and aborts any
 * attempt that outlives its operation's timeout (a timeout is retryable). Not-found, 4xx and
 * argument errors go straight back to the caller. Every operation is safe to repeat: uploads
 * replace whole objects and deleting a missing object succeeds.
 */
export class RetryingBucket implements Bucket {
  readonly name: string;

  constructor(
    private readonly inner: Bucket,
    private readonly config: RetryConfig,
    private readonly deps: RetryingBucketDeps,
  ) {
    this.name = inner.name;
  }

  get(name: string, opts?: BucketCallOptions): Promise<Uint8Array> {
    return this.run('get', name, opts, (signal) => this.inner.get(name, { signal }));
  }

  getRange(
    name: string,
    offset: number,
    length: number,
    opts?: BucketCallOptions,
  ): Promise<Uint8Array> {
    return this.run('get_range', name, opts, (signal) =>
      this.inner.getRange(name, offset, length, { signal }),
    );
  }

  exists(name: string, opts?: BucketCallOptions): Promise<boolean> {
    return this.run('exists', name, opts, (signal) => this.inner.exists(name, { signal }));
  }

  upload(name: string, data: Uint8Array, opts?: BucketCallOptions): Promise<void> {
    return this.run('upload', name, opts, (signal) => this.inner.upload(name, data, { signal }));
  }

  /**
   * Every attempt hands the source to the inner bucket again, which opens it afresh: a retry
   * re-reads the source from its first byte, never continues a half-sent stream.
   */
  uploadStream(name: string, source: UploadSource, opts?: BucketCallOptions): Promise<void> {
    return this.run('upload', name, opts, (signal) =>
      this.inner.uploadStream(name, source, { signal }),
    );
  }

  delete(name: string, opts?: BucketCallOptions): Promise<void> {
    return this.run('delete', name, opts, (signal) => this.inner.delete(name, { signal }));
  }

  list(dir: string, opts?: BucketListOptions): Promise<string[]> {
    const recursive = opts?.recursive ?? false;
    return this.run('iter', dir, opts, (signal) => this.inner.list(dir, { recursive, signal }));
  }

  attributes(name: string, opts?: BucketCallOptions): Promise<ObjectAttributes> {
    return this.run('attributes', name, opts, (signal) => this.inner.attributes(name, { signal }));
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  private async run<T>(
    op: BucketOperation,
    object: string,
    opts: BucketCallOptions | undefined,
    call: (signal: AbortSignal) => Promise<T>,
  ): Promise<T> {
    const outer = opts?.signal;
    for (let retry = 0; ; retry++) {
      try {
        return await this.attempt(op, object, outer, call);
      } catch (err) {
        if (!isRetryableBucketError(err) || outer?.aborted === true) throw err;
        if (retry >= this.config.maxRetries) throw gaveUp(err, retry + 1);
        const wait = backoffMs(this.config, retry + 1, this.deps.random?.next());
        this.deps.logger?.warn('retrying bucket operation', {
          bucket: this.name,
          operation: op,
          object,
          retry: retry + 1,
          maxRetries: this.config.maxRetries,
          backoffMs: wait,
          err: err instanceof Error ? err.message : String(err),
        });
        await this.deps.clock.sleep(wait, outer);
      }
    }
  }

  /**
   * One try of `call`, abandoned (and its request aborted through the signal) when the
   * operation's timeout passes or the caller's signal aborts, whichever comes first.
   */
  private attempt<T>(
    op: BucketOperation,
    object: string,
    outer: AbortSignal | undefined,
    call: (signal: AbortSignal) => Promise<T>,
  ): Promise<T> {
    if (outer?.aborted === true) return Promise.reject(new AbortError());
    const controller = new AbortController();
    const timeoutMs = this.config.attemptTimeoutMs[op];
    return new Promise<T>((resolve, reject) => {
      let settled = false;
      const finish = (): boolean => {
        if (settled) return false;
        settled = true;
        timer?.cancel();
        outer?.removeEventListener('abort', onOuterAbort);
        return true;
      };
      const onOuterAbort = (): void => {
        if (!finish()) return;
        controller.abort();
        reject(new AbortError(`${op} ${JSON.stringify(object)} on ${this.name}: aborted`));
      };
      const timer =
        timeoutMs > 0
          ? this.deps.clock.setTimer(timeoutMs, () => {
              if (!finish()) return;
              controller.abort();
              reject(
                new ObjectStoreError(
                  `${op} ${JSON.stringify(object)} on ${this.name}: attempt timed out after ${timeoutMs} ms`,
                  { retryable: true, code: 'timeout' },
                ),
              );
            })
          : undefined;
      if (outer !== undefined) {
        // One query's signal rides on all of its bucket calls at once (a store-gateway
        // fetches many ranges in parallel): more than Node's default ten listeners is
        // expected here, not a leak (each is removed when its attempt settles).
        setMaxListeners(0, outer);
        outer.addEventListener('abort', onOuterAbort, { once: true });
      }
      let pending: Promise<T>;
      try {
        pending = call(controller.signal);
      } catch (err) {
        pending = Promise.reject(err instanceof Error ? err : new Error(String(err)));
      }
      pending.then(
        (value) => {
          if (finish()) resolve(value);
        },
        (err: unknown) => {
          // A late failure of an attempt already given up on is expected (it was aborted).
          if (finish()) reject(err instanceof Error ? err : new Error(String(err)));
        },
      );
    });
  }
}

/** The last failure, saying how many attempts were made (kept as the same kind of error). */
function gaveUp(err: unknown, attempts: number): unknown {
  if (attempts <= 1) return err;
  if (err instanceof ObjectStoreError) {
    return new ObjectStoreError(`${err.message} (gave up after ${attempts} attempts)`, {
      retryable: err.retryable,
      ...(err.status === undefined ? {} : { status: err.status }),
      ...(err.code === undefined ? {} : { code: err.code }),
      cause: err,
    });
  }
  if (err instanceof Error) err.message = `${err.message} (gave up after ${attempts} attempts)`;
  return err;
}
