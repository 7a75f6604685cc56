// Range functions over a matrix selector (rate, increase, delta, irate, deriv, *_over_time,
// resets, changes, predict_linear, …): each series' points (stale markers left out, as range
// selectors see them) are read once into arrays, and a window of indices slides forward
// across the batch's steps over (t − offset − range, t − offset]; every non-empty window is
// handed to the shared function kernel, so the numerics are the function library's own.
import { Labels } from '../../model/index.js';
import { NodeHelper } from '../engine/index.js';
import type { FunctionCall } from '../function_call.js';
import {
  COLUMN_KERNELS,
  PointWindow,
  positionRange,
  type ColumnKernel,
} from '../functions/index.js';
import type {
  Call,
  MatrixSelector,
  PositionRange,
  SubqueryExpr,
  VectorSelector,
} from '../parser/index.js';
import type { FPoint, Sample, Series } from '../value.js';
import {
  BatchCursor,
  firstError,
  pullAll,
  identityOrder,
  scalarAt,
  StepBatch,
  stepTime,
  type SeriesMeta,
  type StepGrid,
  type VectorOperator,
} from './batch.js';
import {
  dropsNamesNow,
  effectiveOffset,
  readSamples,
  selectSeries,
  withoutStale,
  withNamesDropped,
  type PlanContext,
} from './plan_context.js';

/** The range argument: a matrix selector, or a subquery with the operator of its inside. */
export type RangeInput =
  | { readonly kind: 'selector'; readonly arg: MatrixSelector }
  | {
      readonly kind: 'subquery';
      readonly arg: SubqueryExpr;
      readonly inner: VectorOperator;
      readonly innerGrid: StepGrid;
    };

interface WindowState {
  /** The series' points in time order, stale markers left out. */
  readonly ts: ArrayLike<number>;
  readonly fs: ArrayLike<number>;
  /** The current window: points [lo, hi). */
  lo: number;
  hi: number;
  /** The "metric might not be a counter" info was already considered for this series. */
  counterChecked: boolean;
}

interface MPoint {
  t: number;
  f: number;
}

export class RangeFunctionOperator implements VectorOperator {
  /** The input series (labels as the functions see them). */
  private metas: SeriesMeta[] = [];
  /** The output series: `metas`, or copies with names dropped at once. */
  private outMetas: SeriesMeta[] = [];
  private states: WindowState[] = [];
  private ord: number[] = [];
  private readonly cursor: BatchCursor;
  private readonly offset: number;
  private readonly hasAt: boolean;
  private readonly args: Call['args'];
  private readonly enh: NodeHelper;
  /** The window the column kernels read, pointed at each series' points in turn. */
  private readonly window = new PointWindow();
  private readonly dropName: boolean;
  private readonly range: number;
  private readonly argPos: PositionRange;
  /** A subquery's points are read once, at the first batch. */
  private pendingSubquery: boolean;
  /** A column version of the function, when there is one and no scalar argument. */
  private readonly column: ColumnKernel | undefined;

  /**
   * @param matrixIndex which argument is the matrix selector
   * @param scalarArgs operators of the other (scalar) arguments by argument index
   */
  constructor(
    private readonly call: Call,
    private readonly fn: FunctionCall,
    matrixIndex: number,
    private readonly input: RangeInput,
    private readonly scalarArgs: ReadonlyMap<number, VectorOperator>,
    private readonly grid: StepGrid,
    private readonly pc: PlanContext,
  ) {
    this.cursor = new BatchCursor(grid, pc.batchSize);
    let rewritten: MatrixSelector;
    if (input.kind === 'selector') {
      const vs = input.arg.vectorSelector;
      this.offset = effectiveOffset(vs, grid.start);
      this.hasAt = vs.timestamp !== undefined;
      rewritten = { ...input.arg, vectorSelector: { ...vs, offset: this.offset } };
      this.argPos = positionRange(input.arg);
    } else {
      const sq = input.arg;
      this.offset = effectiveOffset(sq, grid.start);
      this.hasAt = sq.timestamp !== undefined;
      // Prometheus hands functions a subquery as a nameless matrix selector at position 0.
      const vs: VectorSelector = {
        type: 'VectorSelector',
        name: '',
        labelMatchers: [],
        posRange: { start: 0, end: 0 },
        offset: this.offset,
        originalOffset: sq.originalOffset,
        timestamp: sq.timestamp,
      };
      rewritten = { type: 'MatrixSelector', vectorSelector: vs, range: sq.range, endPos: 0 };
      this.argPos = { start: 0, end: 0 };
    }
    this.range = input.arg.range;
    this.args = call.args.map((a, i) => (i === matrixIndex ? rewritten : a));
    this.enh = new NodeHelper(pc.ctx);
    this.dropName = call.func !== 'last_over_time' && call.func !== 'first_over_time';
    this.column = scalarArgs.size === 0 ? COLUMN_KERNELS.get(call.func) : undefined;
    this.pendingSubquery = input.kind === 'subquery';
  }

  async prepare(): Promise<void> {
    await this.prepareInput();
    // The functions see the input's labels; without delayed name removal the output series
    // have the name dropped already (all range functions but last/first_over_time drop it).
    this.outMetas =
      this.dropName && dropsNamesNow(this.pc) ? withNamesDropped(this.metas) : this.metas;
  }

  private async prepareInput(): Promise<void> {
    for (const op of this.scalarArgs.values()) await op.prepare();
    if (this.input.kind === 'subquery') {
      await this.input.inner.prepare();
      this.metas = this.input.inner
        .series()
        .map((m) => ({ metric: m.metric, dropName: this.dropName || m.dropName }));
      return;
    }
    const selected = await selectSeries(this.pc, this.input.arg.vectorSelector);
    this.metas = selected.map((s) => ({ metric: s.labels, dropName: this.dropName }));
    const stale = this.pc.ctx.stale;
    this.states = selected.map((s) => {
      const { ts, fs } = withoutStale(readSamples(s), stale);
      return { ts, fs, lo: 0, hi: 0, counterChecked: false };
    });
    this.ord = identityOrder(selected.length);
  }

  order(): readonly number[] {
    return this.ord;
  }

  series(): readonly SeriesMeta[] {
    return this.outMetas;
  }

  /**
   * Evaluates the subquery's inside over its own steps (all of them: the default engine does
   * the same before the function's first step) and makes its series the window sources.
   */
  private readSubquery(input: Extract<RangeInput, { kind: 'subquery' }>): void {
    this.pendingSubquery = false;
    const { inner, innerGrid } = input;
    const ts: number[][] = inner.series().map(() => []);
    const fs: number[][] = inner.series().map(() => []);
    // Like Prometheus, samples the subquery reads are not counted: its points are, per window.
    const ctx = this.pc.ctx;
    const totalBefore = ctx.totalSamples;
    for (let b = inner.next(); b !== null; b = inner.next()) {
      for (let s = 0; s < b.numSeries; s++) {
        for (let k = 0; k < b.steps; k++) {
          const i = s * b.steps + k;
          if (b.present[i] !== 1) continue;
          (ts[s] as number[]).push(stepTime(innerGrid, b.firstStep + k));
          (fs[s] as number[]).push(b.values[i] as number);
        }
      }
    }
    ctx.totalSamples = totalBefore;
    const innerMetas = inner.series();
    for (const metas of [this.metas, this.outMetas]) {
      metas.forEach((m, s) => {
        m.dropName = this.dropName || (innerMetas[s] as SeriesMeta).dropName;
      });
    }
    this.states = ts.map((t, s) => ({
      ts: t,
      fs: fs[s] as number[],
      lo: 0,
      hi: 0,
      counterChecked: false,
    }));
    this.ord = [...inner.order()];
  }

  next(): StepBatch | null {
    if (this.pendingSubquery && this.input.kind === 'subquery') this.readSubquery(this.input);
    const r = this.cursor.advance();
    if (r === null) return null;
    const [first, steps] = r;
    const scalarOps = [...this.scalarArgs.values()];
    const pulled = pullAll(scalarOps);
    const scalarBatches = new Map<number, StepBatch | null>();
    [...this.scalarArgs.keys()].forEach((ai, j) => scalarBatches.set(ai, pulled[j] ?? null));
    try {
      return this.compute(first, steps, scalarBatches);
    } catch (err) {
      throw firstError(scalarOps, err);
    }
  }

  private compute(
    first: number,
    steps: number,
    scalarBatches: ReadonlyMap<number, StepBatch | null>,
  ): StepBatch {
    const ctx = this.pc.ctx;
    const batch = new StepBatch(first, steps, this.states.length);
    const { values, present } = batch;

    // The function-call contract: one vector per argument, the matrix argument's stays empty.
    const vectorVals: Sample[][] = this.call.args.map(() => []);
    const window: MPoint[] = [];
    const pool: MPoint[] = [];
    const inSeries: { metric: Labels; floats: FPoint[]; dropName: boolean } = {
      metric: Labels.EMPTY,
      floats: window,
      dropName: false,
    };
    const inMatrix: Series[] = [inSeries];
    const enh = this.enh;
    const range = this.range;
    const column = this.column;
    const w = this.window;
    let windowPoints = 0;

    for (let si = 0; si < this.states.length; si++) {
      ctx.checkDone();
      const st = this.states[si] as WindowState;
      const meta = this.metas[si] as SeriesMeta;
      inSeries.metric = meta.metric;
      const { ts: pts, fs: pfs } = st;
      const base = si * steps;
      let produced = false;
      for (let k = 0; k < steps; k++) {
        const step = first + k;
        const ts = stepTime(this.grid, step);
        if (step === 0 || !this.hasAt) {
          const maxt = ts - this.offset;
          const mint = maxt - range;
          let hi = st.hi;
          while (hi < pts.length && (pts[hi] as number) <= maxt) hi++;
          let lo = st.lo;
          while (lo < hi && (pts[lo] as number) <= mint) lo++;
          st.lo = lo;
          st.hi = hi;
        }
        const n = st.hi - st.lo;
        if (n === 0) continue;
        if (column !== undefined) {
          windowPoints += n;
          w.set(pts, pfs, st.lo, st.hi);
          const v = column(w, ts, range, this.offset);
          if (v === undefined) continue;
          values[base + k] = v;
          present[base + k] = 1;
          produced = true;
          continue;
        }
        window.length = n;
        for (let i = 0; i < n; i++) {
          let p = pool[i];
          if (p === undefined) {
            p = { t: 0, f: 0 };
            pool[i] = p;
          }
          p.t = pts[st.lo + i] as number;
          p.f = pfs[st.lo + i] as number;
          window[i] = p;
        }
        for (const [ai, b] of scalarBatches) {
          const vec = vectorVals[ai] as Sample[];
          vec.length = 0;
          const f = scalarAt(b, k);
          if (f !== undefined) vec.push({ metric: Labels.EMPTY, t: ts, f });
        }
        enh.ts = ts;
        enh.out = [];
        const out = this.fn(vectorVals, inMatrix, this.args, enh);
        windowPoints += n;
        const s = out[0];
        if (s === undefined) continue;
        values[base + k] = s.f;
        present[base + k] = 1;
        produced = true;
      }
      if (produced && !st.counterChecked) {
        st.counterChecked = true;
        this.counterInfo(meta.metric);
      }
    }
    ctx.totalSamples += windowPoints;
    return batch;
  }

  /** Prometheus's "metric might not be a counter" info for rate/increase, once per series. */
  private counterInfo(metric: Labels): void {
    const f = this.call.func;
    if (f !== 'rate' && f !== 'increase') return;
    const name = metric.get('__name__');
    if (
      name !== '' &&
      !name.endsWith('_total') &&
      !name.endsWith('_sum') &&
      !name.endsWith('_count') &&
      !name.endsWith('_bucket')
    ) {
      this.pc.ctx.info(
        `metric might not be a counter, name does not end in _total/_sum/_count/_bucket: ${JSON.stringify(name)}`,
        this.argPos,
      );
    }
  }
}
