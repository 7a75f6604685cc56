import type { Clock, Logger, Transport } from '../runtime/index.js';
import { RpcError, jsonBody } from '../runtime/index.js';
import {
  SCHEDULER_CANCEL,
  SCHEDULER_ENQUEUE,
  decode,
  type CancelRequest,
  type EnqueueRequest,
} from './protocol.js';
import { QueueService, runningKey } from './queue_service.js';
import {
  TooManyOutstandingRequestsError,
  type QueueLimits,
  type QueueMetrics,
} from './request_queue.js';

export interface QuerySchedulerConfig {
  readonly querierTimeoutMs: number;
  readonly forgetDelayMs: number;
}

/**
 * The query-scheduler (`-target=query-scheduler`): the per-tenant queues moved out of the
 * frontends so both scale apart. Frontends enqueue (`scheduler.Enqueue`, 429 as
 * resource_exhausted when the tenant's queue is full) and cancel; queriers pull and answer
 * the frontend directly; a querier that falls silent has its queries failed back to their
 * frontends, which retry them.
 */
export class QueryScheduler {
  readonly service: QueueService;
  private readonly cancels = new Map<string, AbortController>();

  constructor(
    config: QuerySchedulerConfig,
    deps: {
      clock: Clock;
      transport: Transport;
      logger: Logger;
      limits: QueueLimits;
      metrics?: QueueMetrics;
    },
  ) {
    this.service = new QueueService(
      {
        role: 'scheduler',
        querierTimeoutMs: config.querierTimeoutMs,
        forgetDelayMs: config.forgetDelayMs,
      },
      { ...deps, onHandedOut: (q) => this.cancels.delete(runningKey(q.frontend, q.id)) },
    );
    deps.transport.handle(SCHEDULER_ENQUEUE, (req) => {
      const { query } = decode<EnqueueRequest>(req, 'enqueue request');
      const key = runningKey(query.frontend, query.id);
      const cancel = new AbortController();
      try {
        this.service.queue.enqueue(query.tenant, query, cancel.signal);
      } catch (err) {
        if (err instanceof TooManyOutstandingRequestsError)
          throw new RpcError('resource_exhausted', err.message);
        throw new RpcError('unavailable', (err as Error).message);
      }
      this.cancels.set(key, cancel);
      return Promise.resolve(jsonBody({}));
    });
    deps.transport.handle(SCHEDULER_CANCEL, (req) => {
      const { frontend, id } = decode<CancelRequest>(req, 'cancel request');
      const key = runningKey(frontend, id);
      this.cancels.get(key)?.abort();
      this.cancels.delete(key);
      this.service.completed(frontend, id);
      return Promise.resolve(jsonBody({}));
    });
  }

  start(): void {
    this.service.start();
  }

  /** Stops; queries still queued are answered 503 at their frontends (which retry elsewhere). */
  async stop(): Promise<void> {
    const left = this.service.stop();
    await Promise.all(
      left.map((q) => this.service.failToFrontend(q, 503, 'the query-scheduler is shutting down')),
    );
  }
}
