import type { Clock, Logger, Timer, Transport } from '../runtime/index.js';
import { isAbortError } from '../runtime/index.js';
import { dispatchInProcess, type RequestListener } from '../server/index.js';
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
import { runningKey } from './queue_service.js';
import { FIRST_TENANT } from './request_queue.js';

export interface QuerierWorkerConfig {
  /** `-querier.frontend-address` or `-querier.scheduler-address` (host:port of its RPC). */
  readonly address: string;
  readonly role: 'frontend' | 'scheduler';
  /** `-querier.id` (default: the node name): the shuffle-sharding identity. */
  readonly querierId: string;
  /** `-querier.worker-parallelism`: queries run at once. */
  readonly parallelism: number;
  /** How long one pull waits for work at the queue before asking again. */
  readonly pullWaitMs: number;
  readonly heartbeatMs: number;
  /** Per query: the querier's `-querier.timeout` plus a margin. */
  readonly queryTimeoutMs: number;
}

/**
 * The worker inside a querier that pulls queries from a query-frontend or query-scheduler
 * (Cortex's querier worker): `parallelism` loops each pull one query, run it through the
 * querier's own HTTP handler in process (so it meets the same routes, limits and error table
 * as a direct request) and send the answer to the frontend that queued it. A heartbeat keeps
 * the querier in the tenants' shards and lists what it runs; on stop it says it is leaving.
 */
export class QuerierWorker {
  private readonly running = new Set<string>();
  private readonly stopping = new AbortController();
  private loops: Promise<void>[] = [];
  private heartbeatTimer: Timer | undefined;

  constructor(
    private readonly config: QuerierWorkerConfig,
    private readonly deps: {
      clock: Clock;
      transport: Transport;
      logger: Logger;
      handler: RequestListener;
    },
  ) {}

  start(): void {
    this.heartbeatTimer = this.deps.clock.every(this.config.heartbeatMs, () => this.heartbeat());
    void this.heartbeat();
    for (let i = 0; i < this.config.parallelism; i++) this.loops.push(this.loop());
  }

  async stop(): Promise<void> {
    this.heartbeatTimer?.cancel();
    this.stopping.abort();
    await Promise.allSettled(this.loops);
    this.loops = [];
    await this.send(methods(this.config.role).heartbeat, {
      querier: this.config.querierId,
      leaving: true,
    } satisfies HeartbeatRequest);
  }

  private async heartbeat(): Promise<void> {
    await this.send(methods(this.config.role).heartbeat, {
      querier: this.config.querierId,
      running: [...this.running],
    } satisfies HeartbeatRequest);
  }

  private async send(method: string, body: unknown): Promise<void> {
    try {
      await this.deps.transport.call(this.config.address, rpc(method, body), {
        timeoutMs: this.config.heartbeatMs * 2,
      });
    } catch (err) {
      this.deps.logger.debug('querier worker call failed', { method, err: (err as Error).message });
    }
  }

  private async loop(): Promise<void> {
    const signal = this.stopping.signal;
    let cursor = FIRST_TENANT;
    while (!signal.aborted) {
      let answer: PullResponse;
      try {
        const req: PullRequest = {
          querier: this.config.querierId,
          cursor,
          waitMs: this.config.pullWaitMs,
        };
        const res = await this.deps.transport.call(
          this.config.address,
          rpc(methods(this.config.role).pull, req),
          { signal, timeoutMs: this.config.pullWaitMs + this.config.heartbeatMs * 2 },
        );
        answer = decode<PullResponse>(res, 'pull answer');
      } catch (err) {
        if (signal.aborted || isAbortError(err)) return;
        // The frontend or scheduler is down or unreachable: wait a beat, then ask again.
        await this.deps.clock.sleep(this.config.heartbeatMs, signal).catch(() => undefined);
        continue;
      }
      if (answer.cursor !== undefined) cursor = answer.cursor;
      if (answer.query !== undefined) await this.run(answer.query);
    }
  }

  private async run(query: QueuedQuery): Promise<void> {
    const key = runningKey(query.frontend, query.id);
    this.running.add(key);
    const timeout = new AbortController();
    const timer = this.deps.clock.setTimer(this.config.queryTimeoutMs, () =>
      timeout.abort(new Error('the querier timed the query out')),
    );
    let response;
    try {
      const answer = await dispatchInProcess(
        this.deps.handler,
        {
          method: query.request.method ?? 'GET',
          url: query.request.url ?? '/',
          headers: query.request.headers,
          body: query.request.body,
          remoteAddress: query.frontend,
        },
        timeout.signal,
      );
      response = { status: answer.status, headers: answer.headers, body: answer.body };
    } catch (err) {
      response = errorAnswer(500, `the querier could not run the query: ${(err as Error).message}`);
    } finally {
      timer.cancel();
    }
    const result: ResultRequest = { id: query.id, querier: this.config.querierId, response };
    try {
      await this.deps.transport.call(query.frontend, rpc(FRONTEND_RESULT, result), {
        timeoutMs: this.config.heartbeatMs * 5,
      });
    } catch (err) {
      this.deps.logger.warn('could not send a query answer to its frontend', {
        frontend: query.frontend,
        err: (err as Error).message,
      });
    } finally {
      this.running.delete(key);
    }
  }
}
