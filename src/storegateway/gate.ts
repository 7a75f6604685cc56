/**
 * The per-tenant query gate (Thanos's gate behind `max_concurrent`): at most N queries of a
 * tenant run at once, the others wait in arrival order. Waiting is abortable, so a query
 * whose caller gave up leaves the queue instead of taking a slot nobody will use.
 */
import { AbortError, type Clock } from '../runtime/index.js';
import type { StoreGatewayMetrics } from './metrics.js';

interface Waiter {
  resolve: () => void;
  cleanup: () => void;
}

export class QueryGate {
  private running = 0;
  private readonly waiting: Waiter[] = [];

  constructor(
    /** 0 or less: no limit. */
    private readonly max: number,
    private readonly deps: { clock: Clock; metrics: StoreGatewayMetrics },
  ) {}

  get inFlight(): number {
    return this.running;
  }

  get queued(): number {
    return this.waiting.length;
  }

  /** Runs `fn` once a slot is free; the slot is released when `fn` settles. */
  async run<T>(fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    await this.acquire(signal);
    try {
      return await fn();
    } finally {
      this.release();
    }
  }

  private async acquire(signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) throw new AbortError('query aborted while waiting for the gate');
    const { metrics, clock } = this.deps;
    if (this.max <= 0 || this.running < this.max) {
      this.running++;
      metrics.gateInFlight.inc();
      metrics.gateSeconds.observe(0);
      return;
    }
    const start = clock.now();
    metrics.gateWaiting.inc();
    try {
      await new Promise<void>((resolve, reject) => {
        const onAbort = (): void => {
          const i = this.waiting.indexOf(waiter);
          if (i >= 0) this.waiting.splice(i, 1);
          reject(new AbortError('query aborted while waiting for the gate'));
        };
        const waiter: Waiter = {
          resolve,
          cleanup: () => signal?.removeEventListener('abort', onAbort),
        };
        signal?.addEventListener('abort', onAbort, { once: true });
        this.waiting.push(waiter);
      });
    } finally {
      metrics.gateWaiting.dec();
    }
    metrics.gateSeconds.observe((clock.now() - start) / 1000);
  }

  private release(): void {
    const next = this.waiting.shift();
    if (next !== undefined) {
      // The slot passes straight to the next waiter: `running` stays the same.
      next.cleanup();
      next.resolve();
      return;
    }
    this.running--;
    this.deps.metrics.gateInFlight.dec();
  }
}
