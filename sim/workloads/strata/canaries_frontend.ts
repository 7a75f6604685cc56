/**
 * A deliberately unfair query-frontend for the mutation canary `fifo_frontend_queue`
 * (`workload.frontend.broken: fifo_queue`): its queue serves every tenant's requests in one
 * global FIFO instead of round-robin between tenants, so a tenant that keeps its queue full
 * puts its whole backlog ahead of every other tenant's query. Built outside the product: the
 * harness hands the frontend this queue through `Strata.create`'s sim-only
 * `simCanaries.frontendQueue` factory; the real RequestQueue runs underneath with a single
 * tenant queue, and the per-tenant bound (429) is kept here, so only the order changes.
 */
import {
  RequestQueue,
  TooManyOutstandingRequestsError,
  type Dequeued,
  type RequestQueueConfig,
  type RequestQueueDeps,
  type RequestQueueFactory,
  type TenantCursor,
} from '../../../src/scheduler/index.js';

/** The one queue every tenant's requests share. */
const SHARED = 'fifo-canary-all-tenants';

interface Queued {
  readonly tenant: string;
  readonly signal: AbortSignal | undefined;
}

export class FifoRequestQueue<R> extends RequestQueue<R> {
  /** What is queued, by request: its tenant (for the bound and for handing it out). */
  private readonly queued = new Map<R, Queued>();

  constructor(
    config: RequestQueueConfig,
    private readonly real: RequestQueueDeps,
  ) {
    // The shared queue itself is unbounded and every querier may take from it.
    super(config, { limits: { maxOutstanding: () => 0, maxQueriers: () => 0 } });
  }

  override enqueue(tenant: string, request: R, signal?: AbortSignal): void {
    const max = this.real.limits.maxOutstanding(tenant);
    if (max > 0 && this.length(tenant) >= max) {
      this.real.metrics?.discarded.inc({ user: tenant });
      throw new TooManyOutstandingRequestsError();
    }
    this.queued.set(request, { tenant, signal });
    try {
      super.enqueue(SHARED, request, signal);
    } catch (err) {
      this.queued.delete(request);
      throw err;
    }
  }

  override async next(
    querier: string,
    cursor: TenantCursor,
    signal?: AbortSignal,
  ): Promise<Dequeued<R>> {
    const got = await super.next(querier, cursor, signal);
    const tenant = this.queued.get(got.request)?.tenant ?? got.tenant;
    this.queued.delete(got.request);
    return { ...got, tenant };
  }

  /** The tenant's requests still queued whose callers still wait. */
  override length(tenant: string): number {
    let n = 0;
    for (const [request, q] of this.queued) {
      // The shared queue drops aborted requests without telling: forget them here too.
      if (q.signal?.aborted === true) this.queued.delete(request);
      else if (q.tenant === tenant) n++;
    }
    return n;
  }

  override stop(): { tenant: string; request: R }[] {
    return super
      .stop()
      .map(({ request }) => ({ request, tenant: this.queued.get(request)?.tenant ?? SHARED }));
  }
}

/** The `simCanaries.frontendQueue` factory of `fifo_frontend_queue`. */
export const fifoRequestQueue: RequestQueueFactory = (config, deps) =>
  new FifoRequestQueue(config, deps);
