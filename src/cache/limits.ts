import { setMaxListeners } from 'node:events';
import { AbortError } from '../runtime/clock.js';

/**
 * A counting semaphore: at most `limit` holders at once (0 = unlimited), waiters served in
 * arrival order. Bounds the concurrent get connections (`max_get_multi_concurrency`).
 */
export class Gate {
  private active = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly limit: number) {}

  /** Holders right now (tests check the limit with it). */
  get inUse(): number {
    return this.active;
  }

  async run<T>(fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    await this.acquire(signal);
    try {
      return await fn();
    } finally {
      this.release();
    }
  }

  private acquire(signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(new AbortError());
    if (this.limit <= 0 || this.active < this.limit) {
      this.active++;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const grant = (): void => {
        signal?.removeEventListener('abort', onAbort);
        this.active++;
        resolve();
      };
      const onAbort = (): void => {
        const i = this.waiting.indexOf(grant);
        if (i >= 0) this.waiting.splice(i, 1);
        reject(new AbortError());
      };
      // Many batches of one multi-get wait on the same signal: more than Node's default ten
      // listeners is expected, not a leak (each is removed when granted or aborted).
      if (signal !== undefined) setMaxListeners(0, signal);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(grant);
    });
  }

  private release(): void {
    this.active--;
    this.waiting.shift()?.();
  }
}

/**
 * Runs asynchronous jobs (memcached sets) on at most `concurrency` workers with at most
 * `bufferSize` jobs waiting; `enqueue` refuses a job when the buffer is full, as Thanos'
 * AsyncOperationProcessor does, so a slow cache sheds writes instead of queueing memory.
 */
export class AsyncQueue {
  private running = 0;
  private readonly queue: Array<() => Promise<void>> = [];
  private idleWaiters: Array<() => void> = [];
  private closed = false;

  constructor(
    private readonly concurrency: number,
    private readonly bufferSize: number,
  ) {}

  get pending(): number {
    return this.queue.length;
  }

  /** False (job dropped) when closed or when the buffer is full. Jobs must not reject. */
  enqueue(job: () => Promise<void>): boolean {
    if (this.closed) return false;
    if (this.running < Math.max(1, this.concurrency)) {
      this.start(job);
      return true;
    }
    if (this.queue.length >= this.bufferSize) return false;
    this.queue.push(job);
    return true;
  }

  /** Resolves when no job is running or waiting. */
  idle(): Promise<void> {
    if (this.running === 0 && this.queue.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Drops the waiting jobs, refuses new ones and waits for the running ones. */
  close(): Promise<void> {
    this.closed = true;
    this.queue.length = 0;
    return this.idle();
  }

  private start(job: () => Promise<void>): void {
    this.running++;
    void job()
      .catch(() => undefined)
      .then(() => {
        this.running--;
        const next = this.queue.shift();
        if (next !== undefined) this.start(next);
        else if (this.running === 0) {
          const waiters = this.idleWaiters;
          this.idleWaiters = [];
          for (const w of waiters) w();
        }
      });
  }
}
