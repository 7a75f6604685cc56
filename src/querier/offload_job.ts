/**
 * The evaluation job run on a compute worker (`runJob`): the querier's PromQL engine over a
 * Queryable whose reads are calls back to the querier's thread, where storage lives. The
 * engine runs exactly as it does in-process; only the samples it reads and the result it
 * returns cross threads (offload_wire.ts).
 */
// The API's result encoder itself, not the api module's index: the worker needs no server.
import { encodeElements } from '../api/encode.js';
import type { MatchType } from '../model/index.js';
import { Matcher } from '../model/index.js';
import { Engine } from '../promql/engine/index.js';
import type {
  EngineOptions,
  Querier,
  Queryable,
  QueryOptions,
  SelectHints,
  StorageSeries,
} from '../promql/index.js';
import { VectorEngine } from '../promql/vector/index.js';
import type { JobContext, JobFunction } from '../runtime/index.js';
import { ChunkSampleReader, SampleBlockPool } from './chunk_samples.js';
import {
  decodeError,
  decodeExpr,
  decodeSeriesSet,
  encodeError,
  encodeResult,
  type WireError,
  type WireSeriesSet,
} from './offload_wire.js';

/** What the querier asks of a worker. */
export interface EvalPayload {
  readonly engine: 'prometheus' | 'thanos';
  /** Everything of EngineOptions but its function (the default subquery step is used). */
  readonly options: Omit<EngineOptions, 'noStepSubqueryIntervalFn'>;
  /** The query text, or its AST as encodeExpr made it. */
  readonly query: string | { readonly ast: unknown };
  readonly start: number;
  readonly end: number;
  /** 0 for an instant query at `start`. */
  readonly step: number;
  readonly lookbackDelta?: number;
  readonly timeout?: number;
  /** Answer a vector's or matrix's elements as the HTTP API writes them. */
  readonly encodeResult?: boolean;
}

/**
 * The querier a call reads through: the job's `id`-th, over [mint, maxt]. The querier's
 * thread opens it at its first call and closes every one it opened when the job ends, so
 * opening and closing cost no round trips (a query's few reads are each one).
 */
export interface QuerierRef {
  readonly id: number;
  readonly mint: number;
  readonly maxt: number;
}

/** The worker's calls back to the querier's thread. */
export type StorageCall =
  | {
      readonly op: 'select';
      readonly querier: QuerierRef;
      readonly matchers: [MatchType, string, string][];
      readonly hints?: Omit<SelectHints, 'signal' | 'fetched'>;
    }
  | {
      readonly op: 'labelNames' | 'labelValues';
      readonly querier: QuerierRef;
      readonly name?: string;
      readonly matchers: [MatchType, string, string][];
    };

/** An answer to a StorageCall: its value, or the error storage raised. */
export type StorageAnswer = { readonly ok: unknown } | { readonly error: WireError };

export type EvalAnswer = { readonly result: unknown } | { readonly error: WireError };

/** Where a worker keeps its SampleBlockPool in JobContext.scratch. */
const SAMPLE_BLOCKS = 'querier.sample-blocks';

function sampleBlocks(ctx: JobContext): SampleBlockPool {
  let pool = ctx.scratch.get(SAMPLE_BLOCKS) as SampleBlockPool | undefined;
  if (pool === undefined) {
    pool = new SampleBlockPool();
    ctx.scratch.set(SAMPLE_BLOCKS, pool);
  }
  return pool;
}

export const runJob: JobFunction = async (payload, ctx) => {
  const p = payload as EvalPayload;
  // One reader for the query's selects, its blocks reused by the thread's next query: the
  // result is copied out (encodeResult) before they are given back.
  const reader = new ChunkSampleReader(sampleBlocks(ctx));
  const deps = { clock: { now: () => ctx.now() } };
  const engine =
    p.engine === 'thanos' ? new VectorEngine(p.options, deps) : new Engine(p.options, deps);
  let queriers = 0;
  const queryable: Queryable = {
    querier: (mint, maxt) =>
      Promise.resolve(new RemoteQuerier(ctx, { id: queriers++, mint, maxt }, reader)),
  };
  const options: QueryOptions = {
    ...(p.lookbackDelta === undefined ? {} : { lookbackDelta: p.lookbackDelta }),
    ...(p.timeout === undefined ? {} : { timeout: p.timeout }),
  };
  try {
    const query = typeof p.query === 'string' ? p.query : decodeExpr(p.query.ast);
    const r =
      p.step === 0
        ? await engine.instantQuery(queryable, query, p.start, options)
        : await engine.rangeQuery(queryable, query, p.start, p.end, p.step, options);
    const { result, transfer } = encodeResult(
      r,
      p.encodeResult === true ? encodeElements : undefined,
    );
    return { value: { result } satisfies EvalAnswer, transfer };
  } catch (err) {
    return { value: { error: encodeError(err) } satisfies EvalAnswer };
  } finally {
    reader.release();
  }
};

async function ask(ctx: JobContext, call: StorageCall): Promise<unknown> {
  const answer = (await ctx.call(call)) as StorageAnswer;
  if ('error' in answer) throw decodeError(answer.error);
  return answer.ok;
}

const triples = (ms: readonly Matcher[]): [MatchType, string, string][] =>
  ms.map((m) => [m.type, m.name, m.value]);

/** A querier on the querier's thread, reached by calls. */
class RemoteQuerier implements Querier {
  constructor(
    private readonly ctx: JobContext,
    private readonly ref: QuerierRef,
    private readonly reader: ChunkSampleReader,
  ) {}

  async select(matchers: readonly Matcher[], hints?: SelectHints): Promise<StorageSeries[]> {
    let plain: Omit<SelectHints, 'signal' | 'fetched'> | undefined;
    if (hints !== undefined) {
      const { signal: _signal, fetched: _fetched, ...rest } = hints;
      plain = rest;
    }
    const set = (await ask(this.ctx, {
      op: 'select',
      querier: this.ref,
      matchers: triples(matchers),
      ...(plain === undefined ? {} : { hints: plain }),
    })) as WireSeriesSet;
    return decodeSeriesSet(set, this.reader);
  }

  async labelNames(matchers: readonly Matcher[]): Promise<string[]> {
    return (await ask(this.ctx, {
      op: 'labelNames',
      querier: this.ref,
      matchers: triples(matchers),
    })) as string[];
  }

  async labelValues(name: string, matchers: readonly Matcher[]): Promise<string[]> {
    return (await ask(this.ctx, {
      op: 'labelValues',
      querier: this.ref,
      name,
      matchers: triples(matchers),
    })) as string[];
  }

  /** Closed on the querier's thread when the job ends. */
  close(): Promise<void> {
    return Promise.resolve();
  }
}

/** The matchers of a StorageCall as Matchers again. */
export function matchersOf(triples: readonly [MatchType, string, string][]): Matcher[] {
  return triples.map(([t, n, v]) => new Matcher(t, n, v));
}
