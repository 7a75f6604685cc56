import type { Clock, Logger, Timer, Transport } from '../runtime/index.js';
import { AbortError, jsonBody } from '../runtime/index.js';
import { frameBody } from './frame.js';
import {
  FRONTEND_RESULT,
  decode,
  errorAnswer,
  methods,
  rpc,
  type HeartbeatRequest,
  type PullRequest,
  type PullResponse,
  type QueuedQuery,
  type ResultRequest,
} from './protocol.js';
import {
  RequestQueue,
  type QueueLimits,
  type QueueMetrics,
  type RequestQueueFactory,
} from './request_queue.js';

export interface QueueServiceConfig {
  /** `frontend` (a frontend's own queue) or `scheduler`. */
  readonly role: 'frontend' | 'scheduler';
  /** A querier not heard from (pull, heartbeat, result) for this long is gone. */
  readonly querierTimeoutMs: number;
  /** `-query-frontend.querier-forget-delay` / `-query-scheduler.querier-forget-delay`. */
  readonly forgetDelayMs: number;
}

interface InFlight {
  readonly query: QueuedQuery;
  readonly querier: string;
  readonly handedOutAt: number;
}

/**
 * Serves a RequestQueue to the queriers' workers over the Transport: `<role>.Pull` hands out
 * the next query (long poll), `<role>.Heartbeat` keeps a querier in the shards, and the
 * answers go from the querier to the frontend directly. It remembers which querier runs
 * which query, so when a querier falls silent (crashed, partitioned) every query it held is
 * answered with a 502 to its frontend — retryable, so the frontend's retries move it to
 * another querier instead of letting the client wait for its timeout.
 */
export class QueueService {
  readonly queue: RequestQueue<QueuedQuery>;
  private readonly lastSeen = new Map<string, number>();
  private readonly inFlight = new Map<string, InFlight>();
  private timer: Timer | undefined;

  constructor(
    private readonly config: QueueServiceConfig,
    private readonly deps: {
      clock: Clock;
      transport: Transport;
      logger: Logger;
      limits: QueueLimits;
      metrics?: QueueMetrics | undefined;
      /** Told when a querier took a query off the queue. */
      onHandedOut?: (query: QueuedQuery) => void;
      /** Test seam (`RequestQueueFactory`): builds the queue instead of RequestQueue. */
      newQueue?: RequestQueueFactory;
    },
  ) {
    const queueConfig = { forgetDelayMs: config.forgetDelayMs };
    const queueDeps = { limits: deps.limits, metrics: deps.metrics };
    this.queue =
      deps.newQueue?.<QueuedQuery>(queueConfig, queueDeps) ??
      new RequestQueue(queueConfig, queueDeps);
    const m = methods(config.role);
    deps.transport.handle(m.pull, (req, signal) => this.pull(decode(req, 'pull request'), signal));
    deps.transport.handle(m.heartbeat, (req) => {
      this.heartbeat(decode(req, 'heartbeat'));
      return Promise.resolve(jsonBody({}));
    });
  }

  start(): void {
    const period = Math.max(100, Math.floor(this.config.querierTimeoutMs / 4));
    this.timer = this.deps.clock.every(period, () => this.expire());
  }

  /** Stops handing out queries; returns the queries still queued (their frontends get 503s). */
  stop(): QueuedQuery[] {
    this.timer?.cancel();
    return this.queue.stop().map((q) => q.request);
  }

  /** A querier's answer reached the frontend: the query is no longer at that querier. */
  completed(frontend: string, id: string): void {
    this.inFlight.delete(runningKey(frontend, id));
  }

  /** The queriers that count for shuffle sharding right now. */
  get queriers(): readonly string[] {
    return this.queue.queriers;
  }

  /** Registers the querier's result (called by the frontend's Result handler in v1 mode). */
  noteResult(req: ResultRequest, frontend: string): void {
    if (req.querier !== undefined) this.seen(req.querier);
    this.completed(frontend, req.id);
  }

  private async pull(
    req: PullRequest,
    signal: AbortSignal,
  ): Promise<{ body: Uint8Array; contentType: string }> {
    this.seen(req.querier);
    const wait = new AbortController();
    const onAbort = (): void => wait.abort();
    signal.addEventListener('abort', onAbort, { once: true });
    const timer = this.deps.clock.setTimer(Math.max(0, req.waitMs), () => wait.abort());
    try {
      const got = await this.queue.next(req.querier, req.cursor, wait.signal);
      if (signal.aborted) {
        // The worker went away while the query was handed to it: its frontend retries it.
        void this.failToFrontend(got.request, 502, `querier ${req.querier} went away`);
        throw new AbortError();
      }
      this.inFlight.set(runningKey(got.request.frontend, got.request.id), {
        query: got.request,
        querier: req.querier,
        handedOutAt: this.deps.clock.now(),
      });
      this.deps.onHandedOut?.(got.request);
      const answer: PullResponse = { query: got.request, cursor: got.cursor };
      return frameBody(answer);
    } catch (err) {
      if (err instanceof AbortError && !signal.aborted) return jsonBody({} satisfies PullResponse);
      throw err;
    } finally {
      timer.cancel();
      signal.removeEventListener('abort', onAbort);
    }
  }

  private heartbeat(req: HeartbeatRequest): void {
    if (req.leaving === true) {
      if (this.lastSeen.delete(req.querier)) {
        this.queue.querierDisconnected(req.querier, this.deps.clock.now(), true);
      }
      return;
    }
    this.seen(req.querier);
    // A query handed out long ago that the querier does not say it runs never reached it
    // (the pull answer was lost) or its answer to the frontend was lost: fail it so the
    // frontend retries, instead of waiting for its timeout.
    const running = new Set(req.running ?? []);
    const before = this.deps.clock.now() - this.config.querierTimeoutMs;
    for (const [k, flight] of this.inFlight) {
      if (flight.querier !== req.querier || running.has(k) || flight.handedOutAt > before) continue;
      this.inFlight.delete(k);
      void this.failToFrontend(flight.query, 502, `querier ${req.querier} lost the query`);
    }
  }

  private seen(querier: string): void {
    if (!this.lastSeen.has(querier)) this.queue.querierConnected(querier);
    this.lastSeen.set(querier, this.deps.clock.now());
  }

  private expire(): void {
    const now = this.deps.clock.now();
    for (const [querier, at] of this.lastSeen) {
      if (now - at < this.config.querierTimeoutMs) continue;
      this.lastSeen.delete(querier);
      this.queue.querierDisconnected(querier, now, false);
      this.deps.logger.warn('querier stopped answering; failing its queries', { querier });
      for (const [k, flight] of this.inFlight) {
        if (flight.querier !== querier) continue;
        this.inFlight.delete(k);
        void this.failToFrontend(
          flight.query,
          502,
          `querier ${querier} disconnected while running the query`,
        );
      }
    }
    this.queue.forgetDisconnected(now);
  }

  /** Answers a query its querier will never answer, at the frontend that queued it. */
  async failToFrontend(query: QueuedQuery, status: number, message: string): Promise<void> {
    const result: ResultRequest = { id: query.id, response: errorAnswer(status, message) };
    try {
      await this.deps.transport.call(query.frontend, rpc(FRONTEND_RESULT, result), {
        timeoutMs: this.config.querierTimeoutMs,
      });
    } catch (err) {
      // The frontend's own timeout answers the client then.
      this.deps.logger.warn('could not send a failed query back to its frontend', {
        frontend: query.frontend,
        err: (err as Error).message,
      });
    }
  }
}

/** How queries are named in heartbeats' `running` lists. */
export function runningKey(frontend: string, id: string): string {
  return `${frontend}\u0000${id}`;
}
