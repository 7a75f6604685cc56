/**
 * A PromQL engine whose evaluation runs on a compute worker (real processes: a worker
 * thread), so a heavy query never blocks the event loop that serves pushes and ring
 * heartbeats. Storage stays here: the worker's reads come back as calls, answered by the
 * tenant's Queryable (limits, sharding and the ingester/store-gateway fan-out included),
 * and their series go over as encoded chunks. Answers and errors are the in-process
 * engine's: the same engine code runs on the worker. Cancellation and deadlines stop the
 * worker at once (it is terminated) with the error the engine itself would raise.
 */
import {
  PromQLError,
  QueryCanceledError,
  type EngineOptions,
  type Expr,
  type PromQLEngine,
  type Querier,
  type Queryable,
  type QueryOptions,
  type QueryResult,
} from '../promql/index.js';
import { Slicer, type Clock, type ComputePool, type JobReply } from '../runtime/index.js';
import {
  matchersOf,
  runJob,
  type EvalAnswer,
  type EvalPayload,
  type StorageAnswer,
  type StorageCall,
} from './offload_job.js';
import {
  decodeError,
  decodeResult,
  encodeError,
  encodeExpr,
  encodeSeriesSet,
  type WireResult,
} from './offload_wire.js';

/** The job module a worker thread imports (this file's sibling, wherever it is loaded from). */
const JOB_MODULE = new URL('./offload_job.js', import.meta.url).href;

export class OffloadedEngine implements PromQLEngine {
  private readonly options: Omit<EngineOptions, 'noStepSubqueryIntervalFn'>;

  constructor(
    private readonly engine: 'prometheus' | 'thanos',
    options: EngineOptions,
    private readonly pool: ComputePool,
    /** Paces the packing of selected series on this event loop (see `Slicer`). */
    private readonly clock: Clock,
  ) {
    const { noStepSubqueryIntervalFn: _fn, ...rest } = options;
    this.options = rest;
  }

  instantQuery(
    queryable: Queryable,
    query: string | Expr,
    time: number,
    options?: QueryOptions,
  ): Promise<QueryResult> {
    return this.exec(queryable, query, time, time, 0, options);
  }

  rangeQuery(
    queryable: Queryable,
    query: string | Expr,
    start: number,
    end: number,
    step: number,
    options?: QueryOptions,
  ): Promise<QueryResult> {
    return this.exec(queryable, query, start, end, step, options);
  }

  private async exec(
    queryable: Queryable,
    query: string | Expr,
    start: number,
    end: number,
    step: number,
    options: QueryOptions | undefined,
  ): Promise<QueryResult> {
    const signal = options?.signal;
    const aborted = (): boolean => signal?.aborted === true;
    if (aborted()) throw new QueryCanceledError('query execution');
    const payload: EvalPayload = {
      engine: this.engine,
      options: this.options,
      query: typeof query === 'string' ? query : { ast: encodeExpr(query) },
      start,
      end,
      step,
      ...(options?.lookbackDelta === undefined ? {} : { lookbackDelta: options.lookbackDelta }),
      ...(options?.timeout === undefined ? {} : { timeout: options.timeout }),
      ...(options?.encodeResult === true ? { encodeResult: true } : {}),
    };
    const storage = new StorageCalls(queryable, signal, this.clock);
    let answer: EvalAnswer;
    try {
      answer = (await this.pool.run({
        module: JOB_MODULE,
        run: runJob,
        payload,
        onCall: (call) => storage.answer(call as StorageCall),
        ...(signal === undefined ? {} : { signal }),
      })) as EvalAnswer;
    } catch (err) {
      // The worker was stopped because the query was canceled or timed out.
      if (aborted()) throw new QueryCanceledError('expression evaluation');
      // The worker itself failed (e.g. Node stopped it when it ran out of heap): a server
      // failure (500), not the query's fault; the pool replaces the worker.
      const msg = err instanceof Error ? err.message : String(err);
      throw new PromQLError('internal', `query evaluation failed: ${msg}`);
    } finally {
      await storage.closeAll();
    }
    if ('error' in answer) throw decodeError(answer.error);
    return decodeResult(answer.result as WireResult);
  }
}

/** The worker's storage calls, answered over `queryable`; every error is sent back encoded. */
class StorageCalls {
  /** The worker's queriers by id, opened at their first call. */
  private readonly queriers = new Map<number, Promise<Querier>>();

  constructor(
    private readonly queryable: Queryable,
    private readonly signal: AbortSignal | undefined,
    private readonly clock: Clock,
  ) {}

  async answer(call: StorageCall): Promise<JobReply> {
    try {
      return await this.run(call);
    } catch (err) {
      return { value: { error: encodeError(err) } satisfies StorageAnswer };
    }
  }

  private async run(call: StorageCall): Promise<JobReply> {
    const { id, mint, maxt } = call.querier;
    let opened = this.queriers.get(id);
    if (opened === undefined) {
      opened = this.queryable.querier(mint, maxt);
      this.queriers.set(id, opened);
    }
    const q = await opened;
    switch (call.op) {
      case 'select': {
        const hints =
          call.hints === undefined
            ? undefined
            : { ...call.hints, ...(this.signal === undefined ? {} : { signal: this.signal }) };
        const series = await q.select(matchersOf(call.matchers), hints);
        // In slices: thousands of series would otherwise hold up pushes while they pack.
        const { set, transfer } = await encodeSeriesSet(series, new Slicer(this.clock));
        return { value: { ok: set } satisfies StorageAnswer, transfer };
      }
      case 'labelNames':
        return ok(await q.labelNames(matchersOf(call.matchers)));
      case 'labelValues':
        return ok(await q.labelValues(call.name ?? '', matchersOf(call.matchers)));
    }
  }

  /** Closes every querier the job opened (those that failed to open have nothing to close). */
  async closeAll(): Promise<void> {
    const open = [...this.queriers.values()];
    this.queriers.clear();
    await Promise.all(
      open.map((q) =>
        q.then(
          (querier) => querier.close(),
          () => undefined,
        ),
      ),
    );
  }
}

function ok(value: unknown): JobReply {
  return { value: { ok: value } satisfies StorageAnswer };
}
