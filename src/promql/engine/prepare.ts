// What every engine does before it evaluates a query (Prometheus NewInstantQuery /
// NewRangeQuery and the start of execEvalStmt): parse the text unless given an AST, reject
// non-vector/scalar range queries, preprocess, work out the lookback delta and deadline,
// build the query context, plan every selector's Select and open one querier over their
// time range. The default and the vectorised engine share it, so they agree on all of it.
import type { Clock } from '../../runtime/index.js';
import { Annotations } from '../annotations.js';
import { PromQLError, StorageError } from '../errors.js';
import type { FunctionCall } from '../function_call.js';
import { FUNCTIONS } from '../functions/index.js';
import { documentedType, exprType, parseExpr, type Expr } from '../parser/index.js';
import type { EngineOptions, PromQLEngine, QueryOptions, QueryResult } from '../query.js';
import type { Querier, Queryable } from '../storage.js';
import { QueryContext } from './context.js';
import { preprocessExpr } from './preprocess.js';
import { findMinMaxTime, planSelectors, type SelectorPlan } from './selectors.js';

/** What the engines take from their callers besides options (EngineDeps, VectorEngineDeps). */
export interface QueryDeps {
  /** Source of time for the query timeout; without one the timeout is not enforced. */
  readonly clock?: Pick<Clock, 'now'>;
  /** Parses a query string (defaults to the parser's parseExpr). */
  readonly parse?: (query: string) => Expr;
  /** The function library (defaults to the functions module's FUNCTIONS). */
  readonly functions?: ReadonlyMap<string, FunctionCall>;
}

export interface PreparedQuery {
  /** The preprocessed expression (step-invariant parts wrapped). */
  readonly expr: Expr;
  readonly type: ReturnType<typeof exprType>;
  readonly ctx: QueryContext;
  readonly plans: SelectorPlan[];
  /** Open over the selectors' time range; the caller closes it. */
  readonly querier: Querier;
}

/** The options with Prometheus's fallback for a non-positive lookback delta. */
export function normalizeOptions<T extends EngineOptions>(options: T, defaults: EngineOptions): T {
  return options.lookbackDelta > 0
    ? options
    : { ...options, lookbackDelta: defaults.lookbackDelta };
}

/** The error for a range query's step, or undefined when the step is valid. */
export function badStep(step: number): PromQLError | undefined {
  return step > 0
    ? undefined
    : new PromQLError(
        'bad_data',
        'zero or negative query resolution step widths are not accepted. Try a positive integer',
      );
}

/** Turns a storage failure into Prometheus's storage error kind. */
export function asStorageError(err: unknown): PromQLError {
  if (err instanceof PromQLError) return err;
  const msg = err instanceof Error ? err.message : String(err);
  return new StorageError(msg, err);
}

/** Prepares a query over [start, end] with `interval` (0 for an instant query). */
export async function prepareQuery(
  options: EngineOptions,
  deps: QueryDeps,
  queryable: Queryable,
  query: string | Expr,
  start: number,
  end: number,
  interval: number,
  queryOptions: QueryOptions | undefined,
): Promise<PreparedQuery> {
  const text = typeof query === 'string' ? query : '';
  const parsed =
    typeof query !== 'string'
      ? query
      : deps.parse !== undefined
        ? deps.parse(query)
        : parseExpr(query, { enableExperimentalFunctions: options.enableExperimentalFunctions });
  const type = exprType(parsed);
  if (interval !== 0 && type !== 'vector' && type !== 'scalar') {
    throw new PromQLError(
      'bad_data',
      `invalid expression type "${documentedType(type)}" for range query, must be Scalar or instant Vector`,
    );
  }
  const expr = preprocessExpr(parsed, start, end, interval);
  const lookbackDelta =
    queryOptions?.lookbackDelta !== undefined && queryOptions.lookbackDelta > 0
      ? queryOptions.lookbackDelta
      : options.lookbackDelta;
  const clock = deps.clock;
  // The effective deadline is the nearer of the engine's and the query's timeouts.
  const timeouts = [options.timeout, queryOptions?.timeout ?? 0].filter((t) => t > 0);
  const ctx = new QueryContext({
    maxSamples: options.maxSamples,
    lookbackDelta,
    noStepSubqueryIntervalFn: options.noStepSubqueryIntervalFn,
    functions: deps.functions ?? FUNCTIONS,
    annotations: new Annotations(),
    query: text,
    now: clock === undefined ? () => 0 : () => clock.now(),
    deadline:
      clock !== undefined && timeouts.length > 0 ? clock.now() + Math.min(...timeouts) : undefined,
    signal: queryOptions?.signal,
    rangeQuery: interval !== 0,
    delayedNameRemoval: options.enableDelayedNameRemoval,
  });
  ctx.checkDone('query execution');

  const stmt = { expr, start, end, interval, lookbackDelta };
  const plans = planSelectors(stmt, options.noStepSubqueryIntervalFn);
  const [mint, maxt] = findMinMaxTime(plans);
  let querier: Querier;
  try {
    querier = await queryable.querier(mint, maxt);
  } catch (err) {
    throw asStorageError(err);
  }
  return { expr, type, ctx, plans, querier };
}

/**
 * The `PromQLEngine` entry points both engines share: an instant query is a range query of
 * one step, a range query's step is checked before anything else (as Prometheus's API and
 * engine do), and every query is prepared the same way. Subclasses evaluate in `evaluate`.
 */
export abstract class StepEngine implements PromQLEngine {
  protected abstract readonly options: EngineOptions;
  protected abstract readonly deps: QueryDeps;

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
    const err = badStep(step);
    if (err !== undefined) return Promise.reject(err);
    return this.exec(queryable, query, start, end, step, options);
  }

  private async exec(
    queryable: Queryable,
    query: string | Expr,
    start: number,
    end: number,
    interval: number,
    options: QueryOptions | undefined,
  ): Promise<QueryResult> {
    const q = await prepareQuery(
      this.options,
      this.deps,
      queryable,
      query,
      start,
      end,
      interval,
      options,
    );
    return this.evaluate(q, start, end, interval);
  }

  /** Evaluates a prepared query at start, start+interval, … ≤ end (interval 0: one step). */
  protected abstract evaluate(
    q: PreparedQuery,
    start: number,
    end: number,
    interval: number,
  ): Promise<QueryResult>;
}
