import { setMaxListeners } from 'node:events';
import type { Clock, Logger, RandomStream, Transport } from '../runtime/index.js';
import { RpcError, jsonBody } from '../runtime/index.js';
import {
  FRONTEND_RESULT,
  SCHEDULER_CANCEL,
  SCHEDULER_ENQUEUE,
  decode,
  errorAnswer,
  rpc,
  type CancelRequest,
  type EnqueueRequest,
  type HttpMessage,
  type QueuedQuery,
  type ResultRequest,
} from './protocol.js';
import type { QueueService } from './queue_service.js';
import { TooManyOutstandingRequestsError } from './request_queue.js';

export interface FrontendDispatcherConfig {
  /** `-frontend.scheduler-address`; empty = queue in this frontend (`local` must be given). */
  readonly schedulerAddress: string;
  /** How long a queued query may take before the frontend answers 504 itself. */
  readonly timeoutMs: number;
}

interface Pending {
  readonly resolve: (answer: HttpMessage) => void;
}

/**
 * The frontend's end of the queue (Cortex frontend v1 with its own queue, or v2 with a
 * scheduler): `roundTrip` queues one HTTP request for the tenant and resolves with the HTTP
 * answer a querier sends to `frontend.Result`. Every failure becomes an HTTP answer: 429
 * when the tenant's queue is full, 502/503 when no querier could answer, 504 when the
 * answer did not come in time; so a caller never waits forever and never loses a request.
 */
export class FrontendDispatcher {
  private readonly pending = new Map<string, Pending>();
  private nextId = 0;
  /**
   * Query IDs are `<prefix>-<n>` with a random prefix per process (as Mimir randomises its
   * first query ID): an answer a querier sends late for a query of an earlier process on the
   * same address then matches no query of this one, instead of the one that reused its ID.
   */
  private readonly idPrefix: string;

  constructor(
    private readonly config: FrontendDispatcherConfig,
    private readonly deps: {
      clock: Clock;
      transport: Transport;
      logger: Logger;
      /** Draws the query-ID prefix. */
      random: RandomStream;
      /** This frontend's own queue, when there is no scheduler. */
      local?: QueueService;
    },
  ) {
    const word = (): string => deps.random.uint32().toString(16).padStart(8, '0');
    this.idPrefix = word() + word();
    if (config.schedulerAddress === '' && deps.local === undefined)
      throw new Error('a frontend without a scheduler needs its own queue');
    deps.transport.handle(FRONTEND_RESULT, (req) => {
      const result = decode<ResultRequest>(req, 'query result');
      this.deps.local?.noteResult(result, this.address);
      this.pending.get(result.id)?.resolve(result.response);
      return Promise.resolve(jsonBody({}));
    });
  }

  /** Queues `request` for `tenant` and resolves with the querier's HTTP answer. */
  async roundTrip(
    tenant: string,
    request: HttpMessage,
    signal?: AbortSignal,
  ): Promise<HttpMessage> {
    const id = `${this.idPrefix}-${++this.nextId}`;
    const query: QueuedQuery = { id, frontend: this.address, tenant, request };
    const gone = new AbortController();
    const onAbort = (): void => gone.abort();
    // A split and sharded query's sub-queries all ride on its request's signal: more than
    // Node's default ten listeners is expected, not a leak (each is removed in `finally`).
    // Node's warning would go through process.nextTick, which the simulation forbids.
    if (signal !== undefined) setMaxListeners(0, signal);
    signal?.addEventListener('abort', onAbort, { once: true });
    let timer: { cancel(): void } | undefined;
    try {
      return await new Promise<HttpMessage>((resolve) => {
        this.pending.set(id, { resolve });
        timer = this.deps.clock.setTimer(this.config.timeoutMs, () =>
          resolve(errorAnswer(504, 'the query was not answered in time')),
        );
        gone.signal.addEventListener(
          'abort',
          () => resolve(errorAnswer(499, 'the client canceled the query')),
          { once: true },
        );
        this.enqueue(tenant, query, gone.signal).then(
          (refused) => {
            if (refused !== undefined) resolve(refused);
          },
          (err: unknown) => resolve(errorAnswer(503, `could not queue the query: ${String(err)}`)),
        );
      });
    } finally {
      timer?.cancel();
      this.pending.delete(id);
      signal?.removeEventListener('abort', onAbort);
      if (gone.signal.aborted && this.config.schedulerAddress !== '') void this.cancel(id);
    }
  }

  private get address(): string {
    const address = this.deps.transport.address;
    if (address === undefined) throw new Error('the frontend transport is not listening yet');
    return address;
  }

  /** Queues the query; resolves with an HTTP answer when it was refused. */
  private async enqueue(
    tenant: string,
    query: QueuedQuery,
    signal: AbortSignal,
  ): Promise<HttpMessage | undefined> {
    const local = this.deps.local;
    if (local !== undefined && this.config.schedulerAddress === '') {
      try {
        local.queue.enqueue(tenant, query, signal);
        return undefined;
      } catch (err) {
        if (err instanceof TooManyOutstandingRequestsError) return errorAnswer(429, err.message);
        return errorAnswer(503, (err as Error).message);
      }
    }
    try {
      await this.deps.transport.call(
        this.config.schedulerAddress,
        rpc(SCHEDULER_ENQUEUE, { query } satisfies EnqueueRequest),
        { signal, timeoutMs: this.config.timeoutMs },
      );
      return undefined;
    } catch (err) {
      if (err instanceof RpcError && err.code === 'resource_exhausted')
        return errorAnswer(429, err.message);
      return errorAnswer(503, `the query-scheduler refused the query: ${(err as Error).message}`);
    }
  }

  private async cancel(id: string): Promise<void> {
    const req: CancelRequest = { frontend: this.address, id };
    try {
      await this.deps.transport.call(this.config.schedulerAddress, rpc(SCHEDULER_CANCEL, req), {
        timeoutMs: this.config.timeoutMs,
      });
    } catch {
      // Best effort: the scheduler drops the query when a querier answers nobody.
    }
  }
}
