// The default PromQL engine (Prometheus promql.Engine): prepares a query (parse, preprocess,
// one querier for the whole time range, one Select per selector), evaluates it as a range
// evaluation (an instant query is one step), removes names marked for dropping (with
// delayed name removal), and shapes the result as vector, scalar, string or matrix. Limits: the sample limit, a deadline read
// from the injected clock between steps and storage calls, and the caller's AbortSignal.
import { PromQLError } from '../errors.js';
import { unwrapParens, type Expr, type exprType } from '../parser/index.js';
import { DEFAULT_ENGINE_OPTIONS, type EngineOptions, type QueryResult } from '../query.js';
import type { QueryValue, Series, Vector } from '../value.js';
import { Labels } from '../../model/index.js';
import type { QueryContext } from './context.js';
import { Evaluator } from './evaluator.js';
import { cleanupMetricLabels } from './merge.js';
import { normalizeOptions, StepEngine, type PreparedQuery, type QueryDeps } from './prepare.js';
import { populateSeries } from './selectors.js';
import type { EMatrix } from './types.js';

export type EngineDeps = QueryDeps;

export class Engine extends StepEngine {
  protected readonly options: EngineOptions;

  constructor(
    options: Partial<EngineOptions>,
    protected readonly deps: EngineDeps,
  ) {
    super();
    this.options = normalizeOptions(
      { ...DEFAULT_ENGINE_OPTIONS, ...options },
      DEFAULT_ENGINE_OPTIONS,
    );
  }

  protected async evaluate(
    q: PreparedQuery,
    start: number,
    end: number,
    interval: number,
  ): Promise<QueryResult> {
    const { expr, type, ctx, querier } = q;
    let mat: EMatrix;
    try {
      await populateSeries(ctx, querier, q.plans);
      const ev = new Evaluator(ctx, start, end, interval === 0 ? 1 : interval);
      mat = type === 'string' ? [] : guard(() => finishNames(ctx, ev.eval(expr)));
    } finally {
      await querier.close();
    }
    if (interval !== 0) ctx.checkDone('expression evaluation');
    const stats = {
      totalQueryableSamples: ctx.totalSamples,
      peakSamples: ctx.peakSamples,
      engine: 'prometheus' as const,
    };
    return {
      value: shapeResult(expr, type, mat, start, interval === 0),
      annotations: ctx.config.annotations,
      stats,
    };
  }
}

/**
 * With delayed name removal, drops the names marked for dropping and merges series that now
 * share a label set (Prometheus evaluator.Eval); without it they were dropped already.
 */
export function finishNames(ctx: QueryContext, mat: EMatrix): EMatrix {
  return ctx.config.delayedNameRemoval ? cleanupMetricLabels(mat) : mat;
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
  const sorted = [...mat];
  Labels.sortBy(sorted, (s) => s.metric);
  return { type: 'matrix', matrix: toSeries(sorted) };
}
