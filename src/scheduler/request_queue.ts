import type { Counter, Gauge } from 'prom-client';
import { AbortError } from '../runtime/index.js';
import { tenantQueriers } from './querier_shards.js';

/** The queue is full for this tenant: Cortex answers 429 with this message. */
export class TooManyOutstandingRequestsError extends Error {
  readonly status = 429;
  constructor() {
    super('too many outstanding requests');
  }
}

/** The queue was stopped: no more requests are accepted or handed out. */
export class QueueStoppedError extends Error {
  constructor() {
    super('the request queue is stopped');
  }
}

export interface QueueLimits {
  /** Requests a tenant may have waiting; 0 or less = unbounded. */
  maxOutstanding(tenant: string): number;
  /** Queriers in the tenant's shuffle shard; 0 = every querier. */
  maxQueriers(tenant: string): number;
}

export interface QueueMetrics {
  queueLength: Gauge<'user'>;
  discarded: Counter<'user'>;
}

export interface RequestQueueConfig {
  forgetDelayMs: number;
}

export interface RequestQueueDeps {
  limits: QueueLimits;
  metrics?: QueueMetrics | undefined;
}

/**
 * Builds a queue service's RequestQueue. A test seam only: the simulator's mutation canary
 * `fifo_frontend_queue` passes a deliberately unfair queue (through `Strata.create`'s
 * sim-only `simCanaries` option); everything else gets the RequestQueue itself.
 */
export type RequestQueueFactory = <R>(
  config: RequestQueueConfig,
  deps: RequestQueueDeps,
) => RequestQueue<R>;

/** Where a querier's round-robin over tenants stands; start with FIRST_TENANT. */
export type TenantCursor = number;
export const FIRST_TENANT: TenantCursor = -1;

interface TenantQueue<R> {
  readonly tenant: string;
  readonly index: number;
  readonly items: { request: R; signal: AbortSignal | undefined }[];
  maxQueriers: number;
  /** The tenant's shard; undefined = every querier. */
  queriers: ReadonlySet<string> | undefined;
}

interface Waiter<R> {
  readonly querier: string;
  readonly cursor: TenantCursor;
  readonly resolve: (r: Dequeued<R>) => void;
  readonly reject: (err: Error) => void;
  readonly detach: () => void;
}

export interface Dequeued<R> {
  request: R;
  tenant: string;
  /** Pass back to the next `next()` call of the same querier loop. */
  cursor: TenantCursor;
}

/**
 * Per-tenant FIFO queues served round-robin across tenants (Cortex's
 * pkg/scheduler/queue): every querier loop walks the tenants in slot order from where it
 * last took a request, so a tenant with a thousand queued queries waits its turn like a
 * tenant with one. A tenant whose queue holds its limit gets TooManyOutstandingRequestsError
 * (429); with `-frontend.max-queriers-per-tenant` a tenant's requests go only to the
 * queriers of its shuffle shard. Queriers that disconnect without saying they shut down
 * stay in the shards for `forgetDelayMs` (the caller calls `forgetDisconnected`).
 */
export class RequestQueue<R> {
  private readonly slots: (TenantQueue<R> | undefined)[] = [];
  private readonly byTenant = new Map<string, TenantQueue<R>>();
  private readonly waiters: Waiter<R>[] = [];
  /** Connected querier → number of its open connections (worker loops). */
  private readonly connections = new Map<string, number>();
  /** Disconnected querier → when it disconnected; forgotten after the delay. */
  private readonly disconnectedAt = new Map<string, number>();
  private sortedQueriers: string[] = [];
  private stopped = false;

  constructor(
    private readonly config: RequestQueueConfig,
    private readonly deps: RequestQueueDeps,
  ) {}

  /** Queues `request`; throws TooManyOutstandingRequestsError when the tenant's queue is full. */
  enqueue(tenant: string, request: R, signal?: AbortSignal): void {
    if (this.stopped) throw new QueueStoppedError();
    const max = this.deps.limits.maxOutstanding(tenant);
    const queue = this.queueOf(tenant);
    if (max > 0 && queue.items.length >= max) {
      this.deps.metrics?.discarded.inc({ user: tenant });
      throw new TooManyOutstandingRequestsError();
    }
    queue.items.push({ request, signal });
    this.deps.metrics?.queueLength.set({ user: tenant }, queue.items.length);
    this.serveWaiters();
  }

  /**
   * The next request for `querier`, waiting until there is one it may take. Requests whose
   * signal aborted while queued are dropped here (their caller is gone).
   */
  next(querier: string, cursor: TenantCursor, signal?: AbortSignal): Promise<Dequeued<R>> {
    if (this.stopped) return Promise.reject(new QueueStoppedError());
    if (signal?.aborted) return Promise.reject(new AbortError());
    const ready = this.take(querier, cursor);
    if (ready !== undefined) return Promise.resolve(ready);
    return new Promise((resolve, reject) => {
      const onAbort = (): void => {
        this.removeWaiter(waiter);
        reject(new AbortError());
      };
      const waiter: Waiter<R> = {
        querier,
        cursor,
        resolve,
        reject,
        detach: () => signal?.removeEventListener('abort', onAbort),
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiters.push(waiter);
    });
  }

  /** A querier opened a connection (a worker loop). */
  querierConnected(querier: string): void {
    this.connections.set(querier, (this.connections.get(querier) ?? 0) + 1);
    if (this.disconnectedAt.delete(querier) || this.connections.get(querier) === 1)
      this.refreshQueriers();
  }

  /**
   * A querier closed a connection. When its last connection closes it leaves the shards at
   * once if it said it is shutting down, otherwise after the forget delay.
   */
  querierDisconnected(querier: string, now: number, shuttingDown: boolean): void {
    const open = (this.connections.get(querier) ?? 0) - 1;
    if (open > 0) {
      this.connections.set(querier, open);
      return;
    }
    this.connections.delete(querier);
    if (shuttingDown || this.config.forgetDelayMs <= 0) this.refreshQueriers();
    else this.disconnectedAt.set(querier, now);
  }

  /** Forgets queriers disconnected for longer than the forget delay. */
  forgetDisconnected(now: number): void {
    let changed = false;
    for (const [querier, at] of this.disconnectedAt) {
      if (now - at < this.config.forgetDelayMs) continue;
      this.disconnectedAt.delete(querier);
      changed = true;
    }
    if (changed) this.refreshQueriers();
  }

  /** Queriers counted in the shards (connected, or disconnected within the delay). */
  get queriers(): readonly string[] {
    return this.sortedQueriers;
  }

  length(tenant: string): number {
    return this.byTenant.get(tenant)?.items.length ?? 0;
  }

  /** Rejects every waiting querier and refuses new requests; returns what was still queued. */
  stop(): { tenant: string; request: R }[] {
    this.stopped = true;
    for (const w of this.waiters.splice(0)) {
      w.detach();
      w.reject(new QueueStoppedError());
    }
    const left: { tenant: string; request: R }[] = [];
    for (const q of this.byTenant.values())
      for (const item of q.items) left.push({ tenant: q.tenant, request: item.request });
    return left;
  }

  private queueOf(tenant: string): TenantQueue<R> {
    const maxQueriers = this.deps.limits.maxQueriers(tenant);
    let queue = this.byTenant.get(tenant);
    if (queue === undefined) {
      let index = this.slots.indexOf(undefined);
      if (index < 0) index = this.slots.length;
      queue = { tenant, index, items: [], maxQueriers: -1, queriers: undefined };
      this.slots[index] = queue;
      this.byTenant.set(tenant, queue);
    }
    if (queue.maxQueriers !== maxQueriers) {
      queue.maxQueriers = maxQueriers;
      queue.queriers = tenantQueriers(tenant, maxQueriers, this.sortedQueriers);
    }
    return queue;
  }

  private removeQueue(queue: TenantQueue<R>): void {
    this.slots[queue.index] = undefined;
    this.byTenant.delete(queue.tenant);
    this.deps.metrics?.queueLength.remove({ user: queue.tenant });
  }

  /** Takes the next request for `querier` after `cursor` in slot order, if any. */
  private take(querier: string, cursor: TenantCursor): Dequeued<R> | undefined {
    const n = this.slots.length;
    for (let step = 1; step <= n; step++) {
      const index = (((cursor + step) % n) + n) % n;
      const queue = this.slots[index];
      if (queue === undefined) continue;
      if (queue.queriers !== undefined && !queue.queriers.has(querier)) continue;
      const item = this.shiftLive(queue);
      if (item === undefined) continue;
      return { request: item.request, tenant: queue.tenant, cursor: index };
    }
    return undefined;
  }

  /** The first queued item whose caller is still waiting; drops the others. */
  private shiftLive(queue: TenantQueue<R>): TenantQueue<R>['items'][number] | undefined {
    let item = queue.items.shift();
    while (item?.signal?.aborted === true) item = queue.items.shift();
    if (queue.items.length === 0) this.removeQueue(queue);
    else this.deps.metrics?.queueLength.set({ user: queue.tenant }, queue.items.length);
    return item;
  }

  private serveWaiters(): void {
    for (let i = 0; i < this.waiters.length;) {
      const waiter = this.waiters[i] as Waiter<R>;
      const got = this.take(waiter.querier, waiter.cursor);
      if (got === undefined) {
        i++;
        continue;
      }
      this.waiters.splice(i, 1);
      waiter.detach();
      waiter.resolve(got);
      if (this.byTenant.size === 0) return;
    }
  }

  private removeWaiter(waiter: Waiter<R>): void {
    const i = this.waiters.indexOf(waiter);
    if (i >= 0) this.waiters.splice(i, 1);
  }

  private refreshQueriers(): void {
    const known = new Set([...this.connections.keys(), ...this.disconnectedAt.keys()]);
    this.sortedQueriers = [...known].sort();
    for (const queue of this.byTenant.values())
      queue.queriers = tenantQueriers(queue.tenant, queue.maxQueriers, this.sortedQueriers);
    // A shard change can make queued requests takeable by a waiting querier.
    this.serveWaiters();
  }
}
