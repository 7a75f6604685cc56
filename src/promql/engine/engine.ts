// The default PromQL engine (Prometheus promql.Engine): prepares a query (parse, preprocess,
// one querier for the whole time range, one Select per selector), evaluates it as a range
// evaluation (an instant query is one step), removes names marked for dropping, and shapes
// the result as vector, scalar, string or matrix. Limits: the sample limit, a deadline read
// from the injected clock between steps and storage calls, and the caller's AbortSignal.
import type { Clock } from '../../runtime/index.js';
import { Annotations } from '../annotations.js';
import { PromQLError, StorageError } from '../errors.js';
import type { FunctionCall } from '../function_call.js';
import { FUNCTIONS } from '../functions/index.js';
import { documentedType, exprType, parseExpr, unwrapParens, type Expr } from '../parser/index.js';
import {
  DEFAULT_ENGINE_OPTIONS,
  type EngineOptions,
  type PromQLEngine,
  type QueryOptions,
  type QueryResult,
} from '../query.js';
import type { Querier, Queryable } from '../storage.js';
import type { QueryValue, Series, Vector } from '../value.js';
import { Labels } from '../../model/index.js';
import { QueryContext } from './context.js';
import { Evaluator } from './evaluator.js';
import { preprocessExpr } from './preprocess.js';
import { findMinMaxTime, planSelectors, populateSeries } from './selectors.js';
import type { EMatrix } from './types.js';
import { cleanupMetricLabels } from './merge.js';

export interface EngineDeps {
  /** Source of time for the query timeout; without one the timeout is not enforced. */
  readonly clock?: Clock;
  /** Parses a query string (defaults to the parser's parseExpr). */
  readonly parse?: (query: string) => Expr;
  /** The function library (defaults to the functions module's FUNCTIONS). */
  readonly functions?: ReadonlyMap<string, FunctionCall>;
}

export class Engine implements PromQLEngine {
  private readonly options: EngineOptions;

  constructor(
    options: Partial<EngineOptions>,
    private readonly deps: EngineDeps,
  ) {
    this.options = { ...DEFAULT_ENGINE_OPTIONS, ...options };
    if (this.options.lookbackDelta <= 0) {
      this.options = { ...this.options, lookbackDelta: DEFAULT_ENGINE_OPTIONS.lookbackDelta };
    }
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
    if (!(step > 0)) {
      return Promise.reject(
        new PromQLError(
          'bad_data',
          'zero or negative query resolution step widths are not accepted. Try a positive integer',
        ),
      );
    }
    return this.exec(queryable, query, start, end, step, options);
  }

  private parse(query: string | Expr): { expr: Expr; text: string } {
    if (typeof query !== 'string') return { expr: query, text: '' };
    const expr =
      this.deps.parse !== undefined
        ? this.deps.parse(query)
        : parseExpr(query, {
            enableExperimentalFunctions: this.options.enableExperimentalFunctions,
          });
    return { expr, text: query };
  }

  private async exec(
    queryable: Queryable,
    query: string | Expr,
    start: number,
    end: number,
    interval: number,
    options: QueryOptions | undefined,
  ): Promise<QueryResult> {
    const { expr: parsed, text } = this.parse(query);
    const type = exprType(parsed);
    if (interval !== 0 && type !== 'vector' && type !== 'scalar') {
      throw new PromQLError(
        'bad_data',
        `invalid expression type "${documentedType(type)}" for range query, must be Scalar or instant Vector`,
      );
    }
    const expr = preprocessExpr(parsed, start, end, interval);
    const lookbackDelta =
      options?.lookbackDelta !== undefined && options.lookbackDelta > 0
        ? options.lookbackDelta
        : this.options.lookbackDelta;
    const clock = this.deps.clock;
    const now = clock === undefined ? () => 0 : () => clock.now();
    const timeouts = [this.options.timeout, options?.timeout ?? 0].filter((t) => t > 0);
    const deadline =
      clock !== undefined && timeouts.length > 0 ? clock.now() + Math.min(...timeouts) : undefined;
    const annotations = new Annotations();
    const ctx = new QueryContext({
      maxSamples: this.options.maxSamples,
      lookbackDelta,
      noStepSubqueryIntervalFn: this.options.noStepSubqueryIntervalFn,
      functions: this.deps.functions ?? FUNCTIONS,
      annotations,
      query: text,
      now,
      deadline,
      signal: options?.signal,
      rangeQuery: interval !== 0,
    });
    ctx.checkDone('query execution');

    const stmt = { expr, start, end, interval, lookbackDelta };
    const plans = planSelectors(stmt, this.options.noStepSubqueryIntervalFn);
    const [mint, maxt] = findMinMaxTime(plans);
    let querier: Querier;
    try {
      querier = await queryable.querier(mint, maxt);
    } catch (err) {
      throw asStorageError(err);
    }
    let mat: EMatrix;
    try {
      await populateSeries(ctx, querier, plans);
      const ev = new Evaluator(ctx, start, end, interval === 0 ? 1 : interval);
      mat = type === 'string' ? [] : guard(() => cleanupMetricLabels(ev.eval(expr)));
    } finally {
      await querier.close();
    }
    if (interval !== 0) ctx.checkDone('expression evaluation');
    const stats = {
      totalQueryableSamples: ctx.totalSamples,
      peakSamples: ctx.peakSamples,
      engine: 'prometheus' as const,
    };
    return { value: shapeResult(expr, type, mat, start, interval === 0), annotations, stats };
  }
}

/** Runs the synchronous evaluation, turning stray exceptions into Prometheus's error kinds. */
function guard<T>(fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (err instanceof PromQLError) throw err;
    const msg = err instanceof Error ? err.message : String(err);
    throw new PromQLError('internal', `unexpected error: ${msg}`);
  }
}

function asStorageError(err: unknown): PromQLError {
  if (err instanceof PromQLError) return err;
  const msg = err instanceof Error ? err.message : String(err);
  return new StorageError(msg, err);
}

function toSeries(mat: EMatrix): Series[] {
  return mat.map((s) => ({
    metric: s.metric,
    floats: s.ts.map((t, i) => ({ t, f: s.fs[i] as number })),
  }));
}

/**
 * The query's value as the API returns it: a string literal, an instant vector or scalar at
 * `start` for instant queries, otherwise a matrix sorted by labels.
 */
export function shapeResult(
  expr: Expr,
  type: ReturnType<typeof exprType>,
  mat: EMatrix,
  start: number,
  instant: boolean,
): QueryValue {
  if (type === 'string') {
    const lit = unwrapParens(expr.type === 'StepInvariantExpr' ? expr.expr : expr);
    return { type: 'string', string: { t: start, v: lit.type === 'StringLiteral' ? lit.val : '' } };
  }
  if (instant && type === 'vector') {
    const vector: Vector = mat.map((s) => ({ metric: s.metric, t: start, f: s.fs[0] as number }));
    return { type: 'vector', vector };
  }
  if (instant && type === 'scalar') {
    return { type: 'scalar', scalar: { t: start, v: mat[0]?.fs[0] ?? NaN } };
  }
  const sorted = [...mat].sort((a, b) => Labels.compare(a.metric, b.metric));
  return { type: 'matrix', matrix: toSeries(sorted) };
}
