// The fallback: a subtree the vectorised operators do not handle (subqueries, label_replace,
// sort, absent, topk, …) is evaluated by the default engine's evaluator over the same steps
// and the same query context (loaded series, limits, annotations), and its matrix is then
// cut into step batches like any other operator's output.
import { Evaluator, type EMatrix } from '../engine/index.js';
import type { Expr } from '../parser/index.js';
import {
  BatchCursor,
  identityOrder,
  StepBatch,
  type SeriesMeta,
  type StepGrid,
  type VectorOperator,
} from './batch.js';
import type { PlanContext } from './plan_context.js';

export class FallbackOperator implements VectorOperator {
  private mat: EMatrix | null = null;
  /** The subtree's evaluation error, raised when its first batch is asked for. */
  private error: Error | undefined;
  /**
   * Samples the evaluation counted in the query stats. Parents may ask for the series while
   * they prepare, so the count is handed back only with the first batch, where the default
   * engine's evaluation order would have counted it (a step-invariant parent multiplies it).
   */
  private deferredSamples = 0;
  private metas: SeriesMeta[] = [];
  private ord: number[] = [];
  private cursors = new Int32Array(0);
  private readonly cursor: BatchCursor;

  constructor(
    private readonly expr: Expr,
    private readonly grid: StepGrid,
    private readonly pc: PlanContext,
  ) {
    this.cursor = new BatchCursor(grid, pc.batchSize);
  }

  prepare(): Promise<void> {
    // The selectors below this node were loaded into the query context by the engine.
    return Promise.resolve();
  }

  /** Evaluates the subtree; the default evaluator decides the output series. */
  private evaluate(): EMatrix {
    if (this.mat === null) {
      const g = this.grid;
      const ev = new Evaluator(this.pc.ctx, g.start, g.end, g.interval);
      const totalBefore = this.pc.ctx.totalSamples;
      try {
        this.mat = ev.eval(this.expr);
      } catch (err) {
        // Raised from next(), where the default engine's evaluation order decides whether
        // this error or one from an earlier sibling is the query's error.
        this.error = err instanceof Error ? err : new Error(String(err));
        this.mat = [];
      }
      this.deferredSamples = this.pc.ctx.totalSamples - totalBefore;
      this.pc.ctx.totalSamples = totalBefore;
      this.metas = this.mat.map((s) => ({ metric: s.metric, dropName: s.dropName }));
      this.cursors = new Int32Array(this.mat.length);
      this.ord = identityOrder(this.mat.length);
    }
    return this.mat;
  }

  series(): readonly SeriesMeta[] {
    this.evaluate();
    return this.metas;
  }

  order(): readonly number[] {
    this.evaluate();
    return this.ord;
  }

  next(): StepBatch | null {
    const mat = this.evaluate();
    this.pc.ctx.totalSamples += this.deferredSamples;
    this.deferredSamples = 0;
    if (this.error !== undefined) throw this.error;
    const r = this.cursor.advance();
    if (r === null) return null;
    const [first, steps] = r;
    const b = new StepBatch(first, steps, mat.length);
    const { start, interval } = this.grid;
    const last = first + steps;
    for (let s = 0; s < mat.length; s++) {
      const series = mat[s] as EMatrix[number];
      let c = this.cursors[s] as number;
      while (c < series.ts.length) {
        const step = Math.round(((series.ts[c] as number) - start) / interval);
        if (step >= last) break;
        if (step >= first) {
          const i = s * steps + (step - first);
          b.values[i] = series.fs[c] as number;
          b.present[i] = 1;
        }
        c++;
      }
      this.cursors[s] = c;
    }
    return b;
  }
}
