// The vectorised engine (selected by `X-PromQL-EngineType: thanos`): the query is prepared as
// the default engine prepares it (parse, preprocess, one querier, the same storage hints),
// turned into a physical plan of step-batch operators, and the root's batches are collected
// into the result. Nodes without an operator run on the default engine's evaluator over the
// same steps and query context, so answers, annotations and error texts are the same.
import type { Clock } from '../../runtime/index.js';
import { Annotations } from '../annotations.js';
import {
  cleanupMetricLabels,
  Evaluator,
  exprType,
  findMinMaxTime,
  inspect,
  planSelectors,
  populateSeries,
  preprocessExpr,
  QueryContext,
  shapeResult,
  type EMatrix,
} from '../engine/index.js';
import { PromQLError, StorageError } from '../errors.js';
import type { FunctionCall } from '../function_call.js';
import { exprToString } from '../format/index.js';
import { FUNCTIONS } from '../functions/index.js';
import { documentedType, parseExpr, type Expr, type VectorSelector } from '../parser/index.js';
import {
  DEFAULT_ENGINE_OPTIONS,
  type EngineOptions,
  type PromQLEngine,
  type QueryOptions,
  type QueryResult,
  type QueryStats,
} from '../query.js';
import type { Querier, Queryable, SelectHints } from '../storage.js';
import {
  makeGrid,
  stepTime,
  type SeriesMeta,
  type StepGrid,
  type VectorOperator,
} from './batch.js';
import type { PlanContext } from './plan_context.js';
import { Planner } from './planner.js';

export interface VectorEngineOptions extends EngineOptions {
  /** Steps per batch flowing between operators. */
  readonly stepsBatch: number;
}

export const DEFAULT_STEPS_BATCH = 64;

export interface VectorEngineDeps {
  /** Source of time for the query timeout; without one the timeout is not enforced. */
  readonly clock?: Clock;
  /** Parses a query string (defaults to the parser's parseExpr). */
  readonly parse?: (query: string) => Expr;
  /** The function library (defaults to the functions module's FUNCTIONS). */
  readonly functions?: ReadonlyMap<string, FunctionCall>;
}

export class VectorEngine implements PromQLEngine {
  private readonly options: VectorEngineOptions;

  constructor(
    options: Partial<VectorEngineOptions>,
    private readonly deps: VectorEngineDeps,
  ) {
    const merged = { ...DEFAULT_ENGINE_OPTIONS, stepsBatch: DEFAULT_STEPS_BATCH, ...options };
    if (merged.lookbackDelta <= 0) merged.lookbackDelta = DEFAULT_ENGINE_OPTIONS.lookbackDelta;
    if (!(merged.stepsBatch >= 1)) merged.stepsBatch = DEFAULT_STEPS_BATCH;
    this.options = merged;
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
    const annotations = new Annotations();
    const ctx = new QueryContext({
      maxSamples: this.options.maxSamples,
      lookbackDelta,
      noStepSubqueryIntervalFn: this.options.noStepSubqueryIntervalFn,
      functions: this.deps.functions ?? FUNCTIONS,
      annotations,
      query: text,
      now: clock === undefined ? () => 0 : () => clock.now(),
      deadline:
        clock !== undefined && this.options.timeout > 0
          ? clock.now() + this.options.timeout
          : undefined,
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
    const stats: QueryStats = { totalQueryableSamples: 0, peakSamples: 0, engine: 'thanos' };
    let mat: EMatrix = [];
    try {
      const hints = new Map<VectorSelector, SelectHints>();
      for (const p of plans) hints.set(p.selector, p.hints);
      const pc: PlanContext = { ctx, querier, hints, batchSize: this.options.stepsBatch };
      if (type === 'matrix') {
        // A range vector result (an instant query of `x[5m]` or a subquery) keeps every point
        // of the window, which step columns cannot hold: the default evaluator answers it.
        stats.fallbackNodes = [exprToString(expr.type === 'StepInvariantExpr' ? expr.expr : expr)];
        await populateSeries(ctx, querier, plans);
        const ev = new Evaluator(ctx, start, end, 1);
        mat = guard(() => cleanupMetricLabels(ev.eval(expr)));
      } else if (type !== 'string' && end >= start) {
        const planner = new Planner(pc, ctx.config.functions);
        const grid = makeGrid(start, end, interval === 0 ? 1 : interval);
        const root = planner.planRoot(expr, grid);
        stats.fallbackNodes = planner.fallbackNames();
        // The default evaluator reads the series of fallback subtrees from the query context.
        const fallbackSelectors = new Set<VectorSelector>();
        for (const f of planner.fallbacks) {
          inspect(f, (n) => {
            if (n.type === 'VectorSelector') fallbackSelectors.add(n);
          });
        }
        await populateSeries(
          ctx,
          querier,
          plans.filter((p) => fallbackSelectors.has(p.selector)),
        );
        await guardAsync(() => root.prepare());
        mat = guard(() => cleanupMetricLabels(collect(root, ctx, grid)));
      }
    } finally {
      await querier.close();
    }
    if (interval !== 0) ctx.checkDone('expression evaluation');
    stats.totalQueryableSamples = ctx.totalSamples;
    stats.peakSamples = ctx.peakSamples;
    return { value: shapeResult(expr, type, mat, start, interval === 0), annotations, stats };
  }
}

/** Drains the root operator into a matrix (series without points are left out). */
function collect(root: VectorOperator, ctx: QueryContext, grid: StepGrid): EMatrix {
  const ts: number[][] = [];
  const fs: number[][] = [];
  for (let b = root.next(); b !== null; b = root.next()) {
    ctx.checkDone();
    const n = b.numSeries;
    while (ts.length < n) {
      ts.push([]);
      fs.push([]);
    }
    let points = 0;
    for (let s = 0; s < n; s++) {
      const base = s * b.steps;
      const sts = ts[s] as number[];
      const sfs = fs[s] as number[];
      const t0 = stepTime(grid, b.firstStep);
      for (let k = 0; k < b.steps; k++) {
        if (b.present[base + k] !== 1) continue;
        sts.push(t0 + k * grid.interval);
        sfs.push(b.values[base + k] as number);
        points++;
      }
    }
    ctx.currentSamples += points;
    ctx.updatePeak();
    ctx.checkSamples();
  }
  const metas = root.series();
  const out: EMatrix = [];
  // In the default engine's series order (it decides an instant vector's order).
  for (const s of root.order()) {
    const steps = ts[s];
    if (steps === undefined || steps.length === 0) continue;
    const m = metas[s] as SeriesMeta;
    out.push({ metric: m.metric, ts: steps, fs: fs[s] as number[], dropName: m.dropName });
  }
  return out;
}

/** Runs synchronous evaluation, turning stray exceptions into Prometheus's error kinds. */
function guard<T>(fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    throw asEvalError(err);
  }
}

async function guardAsync(fn: () => Promise<void>): Promise<void> {
  try {
    await fn();
  } catch (err) {
    throw asEvalError(err);
  }
}

function asEvalError(err: unknown): PromQLError {
  if (err instanceof PromQLError) return err;
  const msg = err instanceof Error ? err.message : String(err);
  return new PromQLError('internal', `unexpected error: ${msg}`);
}

function asStorageError(err: unknown): PromQLError {
  if (err instanceof PromQLError) return err;
  const msg = err instanceof Error ? err.message : String(err);
  return new StorageError(msg, err);
}
