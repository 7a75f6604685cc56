// The vectorised engine (selected by `X-PromQL-EngineType: thanos`): the query is prepared as
// the default engine prepares it (parse, preprocess, one querier, the same storage hints),
// turned into a physical plan of step-batch operators, and the root's batches are collected
// into the result. Nodes without an operator run on the default engine's evaluator over the
// same steps and query context, so answers, annotations and error texts are the same. When
// dropping names at once (no delayed name removal) makes series of one node collide, the
// whole query runs on the default evaluator.
import { Annotations } from '../annotations.js';
import {
  StepEngine,
  Evaluator,
  finishNames,
  inspect,
  normalizeOptions,
  populateSeries,
  type PreparedQuery,
  QueryContext,
  shapeResult,
  type EMatrix,
  type QueryDeps,
} from '../engine/index.js';
import { PromQLError } from '../errors.js';
import { exprToString } from '../format/index.js';
import type { VectorSelector } from '../parser/index.js';
import {
  DEFAULT_ENGINE_OPTIONS,
  type EngineOptions,
  type QueryResult,
  type QueryStats,
} from '../query.js';
import type { SelectHints } from '../storage.js';
import {
  makeGrid,
  stepTime,
  type SeriesMeta,
  type StepGrid,
  type VectorOperator,
} from './batch.js';
import { NameCollision, type PlanContext } from './plan_context.js';
import { Planner } from './planner.js';

export interface VectorEngineOptions extends EngineOptions {
  /** Steps per batch flowing between operators. */
  readonly stepsBatch: number;
}

export const DEFAULT_STEPS_BATCH = 64;

export type VectorEngineDeps = QueryDeps;

export class VectorEngine extends StepEngine {
  protected readonly options: VectorEngineOptions;

  constructor(
    options: Partial<VectorEngineOptions>,
    protected readonly deps: VectorEngineDeps,
  ) {
    super();
    const merged = { ...DEFAULT_ENGINE_OPTIONS, stepsBatch: DEFAULT_STEPS_BATCH, ...options };
    if (!(merged.stepsBatch >= 1)) merged.stepsBatch = DEFAULT_STEPS_BATCH;
    this.options = normalizeOptions(merged, DEFAULT_ENGINE_OPTIONS);
  }

  protected async evaluate(
    q: PreparedQuery,
    start: number,
    end: number,
    interval: number,
  ): Promise<QueryResult> {
    const { expr, type, ctx, plans, querier } = q;
    let annotations = ctx.config.annotations;
    const stats: QueryStats = { totalQueryableSamples: 0, peakSamples: 0, engine: 'thanos' };
    /** The context whose counters the stats report. */
    let counters = ctx;
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
        mat = guard(() => finishNames(ctx, ev.eval(expr)));
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
        let collided = false;
        await guardAsync(async () => {
          try {
            await root.prepare();
          } catch (err) {
            if (!(err instanceof NameCollision)) throw err;
            collided = true;
          }
        });
        if (collided) {
          // Dropping names at once made series of one node equal: the default evaluator
          // answers the whole query, in a fresh context (nothing of the plan counts).
          const fresh = new QueryContext({ ...ctx.config, annotations: new Annotations() });
          annotations = fresh.config.annotations;
          stats.fallbackNodes = [
            exprToString(expr.type === 'StepInvariantExpr' ? expr.expr : expr),
          ];
          await populateSeries(fresh, querier, plans);
          const ev = new Evaluator(fresh, start, end, interval === 0 ? 1 : interval);
          mat = guard(() => finishNames(fresh, ev.eval(expr)));
          counters = fresh;
        } else {
          mat = guard(() => finishNames(ctx, collect(root, ctx, grid)));
        }
      }
    } finally {
      await querier.close();
    }
    if (interval !== 0) ctx.checkDone('expression evaluation');
    stats.totalQueryableSamples = counters.totalSamples;
    stats.peakSamples = counters.peakSamples;
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
