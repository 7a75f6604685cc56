// Small operators: number literals, unary minus, step-invariant subtrees (evaluated on one
// step, then repeated), element-wise functions (abs, ceil, clamp, round, trig, date parts, …)
// and functions with one label-less output (time, scalar, vector, pi). Function values come
// from the shared kernels, called exactly as the default engine calls them.
import { Labels } from '../../model/index.js';
import { NodeHelper } from '../engine/index.js';
import type { FunctionCall } from '../function_call.js';
import type { Call } from '../parser/index.js';
import type { Sample } from '../value.js';
import {
  AppearanceOrder,
  BatchCursor,
  firstError,
  pullAll,
  scalarAt,
  StepBatch,
  stepTime,
  type SeriesMeta,
  type StepGrid,
  type VectorOperator,
} from './batch.js';
import { dropsNamesNow, withNamesDropped, type PlanContext } from './plan_context.js';

const SINGLE: readonly number[] = [0];

/** A number literal: one label-less series, present at every step. */
export class ConstantOperator implements VectorOperator {
  private readonly metas: SeriesMeta[] = [{ metric: Labels.EMPTY, dropName: false }];
  private readonly cursor: BatchCursor;

  order(): readonly number[] {
    return SINGLE;
  }

  constructor(
    private readonly value: number,
    grid: StepGrid,
    batchSize: number,
  ) {
    this.cursor = new BatchCursor(grid, batchSize);
  }

  prepare(): Promise<void> {
    return Promise.resolve();
  }

  series(): readonly SeriesMeta[] {
    return this.metas;
  }

  next(): StepBatch | null {
    const r = this.cursor.advance();
    if (r === null) return null;
    const b = new StepBatch(r[0], r[1], 1);
    b.values.fill(this.value);
    b.present.fill(1);
    return b;
  }
}

/**
 * Unary minus: negates every value and drops every series' name (at once, or marked for the
 * end with delayed name removal).
 */
export class NegateOperator implements VectorOperator {
  /** The output series when names are dropped at once; null when the child's are marked. */
  private dropped: SeriesMeta[] | null = null;

  constructor(
    private readonly child: VectorOperator,
    private readonly pc: PlanContext,
  ) {}

  async prepare(): Promise<void> {
    await this.child.prepare();
    if (dropsNamesNow(this.pc)) this.dropped = withNamesDropped(this.child.series());
  }

  order(): readonly number[] {
    return this.child.order();
  }

  series(): readonly SeriesMeta[] {
    if (this.dropped !== null) return this.dropped;
    const metas = this.child.series();
    for (const m of metas) m.dropName = true;
    return metas;
  }

  next(): StepBatch | null {
    const b = this.child.next();
    if (b === null) return null;
    const v = b.values;
    for (let i = 0; i < v.length; i++) v[i] = -(v[i] as number);
    if (this.dropped === null) for (const m of this.child.series()) m.dropName = true;
    return b;
  }
}

/**
 * A subtree whose value does not change between steps: its operator runs on a one-step grid
 * at the query start and the result is repeated at every step (Prometheus StepInvariantExpr).
 */
export class StepInvariantOperator implements VectorOperator {
  private readonly cursor: BatchCursor;
  private once: StepBatch | null = null;
  private evaluated = false;

  constructor(
    private readonly inner: VectorOperator,
    private readonly grid: StepGrid,
    private readonly pc: PlanContext,
  ) {
    this.cursor = new BatchCursor(grid, pc.batchSize);
  }

  prepare(): Promise<void> {
    return this.inner.prepare();
  }

  order(): readonly number[] {
    return this.inner.order();
  }

  series(): readonly SeriesMeta[] {
    return this.inner.series();
  }

  next(): StepBatch | null {
    const r = this.cursor.advance();
    if (r === null) return null;
    if (!this.evaluated) {
      this.evaluated = true;
      const ctx = this.pc.ctx;
      const totalBefore = ctx.totalSamples;
      this.once = this.inner.next();
      // Prometheus counts the subtree's samples once for every step it stands for.
      ctx.totalSamples = totalBefore + (ctx.totalSamples - totalBefore) * this.grid.numSteps;
    }
    const [first, steps] = r;
    const n = this.inner.series().length;
    const b = new StepBatch(first, steps, n);
    const src = this.once;
    if (src === null) return b;
    for (let s = 0; s < n; s++) {
      if (src.present[s] !== 1) continue;
      const base = s * steps;
      b.values.fill(src.values[s] as number, base, base + steps);
      b.present.fill(1, base, base + steps);
    }
    return b;
  }
}

/**
 * An element-wise function: the kernel is called with each present sample alone (plus the
 * scalar arguments at that step), so output column i is input column i transformed.
 */
export class ElementwiseOperator implements VectorOperator {
  private metas: SeriesMeta[] = [];
  private appearance = new AppearanceOrder(0);
  private readonly enh: NodeHelper;

  constructor(
    private readonly call: Call,
    private readonly fn: FunctionCall,
    private readonly input: VectorOperator,
    private readonly scalarArgs: ReadonlyMap<number, VectorOperator>,
    private readonly grid: StepGrid,
    private readonly pc: PlanContext,
  ) {
    this.enh = new NodeHelper(pc.ctx);
  }

  async prepare(): Promise<void> {
    await this.input.prepare();
    for (const op of this.scalarArgs.values()) await op.prepare();
    const inMetas = this.input.series();
    // Every element-wise function drops the name of what it outputs.
    this.metas = dropsNamesNow(this.pc)
      ? withNamesDropped(inMetas)
      : inMetas.map((m) => ({ metric: m.metric, dropName: m.dropName }));
    this.appearance = new AppearanceOrder(this.metas.length);
  }

  order(): readonly number[] {
    return this.appearance.list;
  }

  series(): readonly SeriesMeta[] {
    return this.metas;
  }

  next(): StepBatch | null {
    const children = [this.input, ...this.scalarArgs.values()];
    const pulled = pullAll(children);
    const inB = pulled[0] ?? null;
    const scalars = new Map<number, StepBatch | null>();
    [...this.scalarArgs.keys()].forEach((ai, j) => scalars.set(ai, pulled[j + 1] ?? null));
    if (inB === null) return null;
    try {
      return this.compute(inB, scalars);
    } catch (err) {
      throw firstError(children, err);
    }
  }

  private compute(inB: StepBatch, scalars: ReadonlyMap<number, StepBatch | null>): StepBatch {
    const { steps, firstStep } = inB;
    const out = new StepBatch(firstStep, steps, this.metas.length);
    const vectorVals: Sample[][] = this.call.args.map(() => []);
    const one = vectorVals[0] as Sample[];
    const inMetas = this.input.series();
    const inOrder = this.input.order();
    const enh = this.enh;
    for (let k = 0; k < steps; k++) {
      const ts = stepTime(this.grid, firstStep + k);
      for (const [ai, b] of scalars) {
        const vec = vectorVals[ai] as Sample[];
        vec.length = 0;
        const f = scalarAt(b, k);
        if (f !== undefined) vec.push({ metric: Labels.EMPTY, t: ts, f });
      }
      enh.ts = ts;
      for (const s of inOrder) {
        const i = s * steps + k;
        if (inB.present[i] !== 1) continue;
        const m = inMetas[s] as SeriesMeta;
        one.length = 0;
        one.push({ metric: m.metric, t: ts, f: inB.values[i] as number, dropName: m.dropName });
        enh.out = [];
        const res = this.fn(vectorVals, [], this.call.args, enh)[0];
        if (res === undefined) continue;
        out.values[i] = res.f;
        out.present[i] = 1;
        this.appearance.note(s);
        (this.metas[s] as SeriesMeta).dropName = res.dropName === true;
      }
    }
    return out;
  }
}

/**
 * A function whose output is one label-less sample per step at most (time, scalar, vector,
 * pi): the kernel sees each argument's whole vector at the step.
 */
export class SingleOutputFunctionOperator implements VectorOperator {
  private readonly metas: SeriesMeta[] = [{ metric: Labels.EMPTY, dropName: false }];
  private readonly cursor: BatchCursor;
  private readonly enh: NodeHelper;

  constructor(
    private readonly call: Call,
    private readonly fn: FunctionCall,
    /** Operators of the non-string arguments by argument index. */
    private readonly argOps: ReadonlyMap<number, VectorOperator>,
    private readonly grid: StepGrid,
    pc: PlanContext,
  ) {
    this.cursor = new BatchCursor(grid, pc.batchSize);
    this.enh = new NodeHelper(pc.ctx);
  }

  async prepare(): Promise<void> {
    for (const op of this.argOps.values()) await op.prepare();
  }

  order(): readonly number[] {
    return SINGLE;
  }

  series(): readonly SeriesMeta[] {
    return this.metas;
  }

  next(): StepBatch | null {
    const r = this.cursor.advance();
    const children = [...this.argOps.values()];
    const pulled = pullAll(children);
    const batches = new Map<number, StepBatch | null>();
    [...this.argOps.keys()].forEach((ai, j) => batches.set(ai, pulled[j] ?? null));
    if (r === null) return null;
    try {
      return this.compute(r, batches);
    } catch (err) {
      throw firstError(children, err);
    }
  }

  private compute(r: [number, number], batches: ReadonlyMap<number, StepBatch | null>): StepBatch {
    const [first, steps] = r;
    const out = new StepBatch(first, steps, 1);
    const vectorVals: Sample[][] = this.call.args.map(() => []);
    const enh = this.enh;
    for (let k = 0; k < steps; k++) {
      const ts = stepTime(this.grid, first + k);
      for (const [ai, b] of batches) {
        const vec = vectorVals[ai] as Sample[];
        vec.length = 0;
        if (b === null) continue;
        const argOp = this.argOps.get(ai) as VectorOperator;
        const metas = argOp.series();
        for (const s of argOp.order()) {
          const i = s * steps + k;
          if (b.present[i] !== 1) continue;
          const m = metas[s] as SeriesMeta;
          vec.push({ metric: m.metric, t: ts, f: b.values[i] as number, dropName: m.dropName });
        }
      }
      enh.ts = ts;
      enh.out = [];
      const res = this.fn(vectorVals, [], this.call.args, enh)[0];
      if (res === undefined) continue;
      out.values[k] = res.f;
      out.present[k] = 1;
      (this.metas[0] as SeriesMeta).dropName = res.dropName === true;
    }
    return out;
  }
}
