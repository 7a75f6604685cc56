// Aggregations over step columns (sum, avg, count, min, max, group, stddev, stdvar,
// quantile): every input series is mapped to its group once per query (labels do not change
// between steps), then each step folds the present values series by series in input order
// with exactly the default engine's arithmetic (Kahan–Neumaier sums, avg's switch to an
// incremental mean on overflow, Welford's stddev), so results are bit-identical.
import { compareGoStrings } from '../../model/index.js';
import { formatFloatG, groupingKey, groupingLabels, quantile } from '../engine/index.js';
import { kahanInc, positionRange } from '../functions/index.js';
import type { AggregateExpr } from '../parser/index.js';
import { StepBatch, type SeriesMeta, type VectorOperator } from './batch.js';
import type { PlanContext } from './plan_context.js';

/** Aggregation operators this operator implements (the others fall back). */
export const COLUMN_AGGREGATIONS: ReadonlySet<string> = new Set([
  'sum',
  'avg',
  'count',
  'min',
  'max',
  'group',
  'stddev',
  'stdvar',
  'quantile',
]);

export class AggregateOperator implements VectorOperator {
  private metas: SeriesMeta[] = [];
  private seriesToGroup = new Int32Array(0);
  // Per-group state, reset at every step.
  private seen = new Uint8Array(0);
  private value = new Float64Array(0);
  private mean = new Float64Array(0);
  private comp = new Float64Array(0);
  private count = new Float64Array(0);
  private incremental = new Uint8Array(0);
  private groupDrop = new Uint8Array(0);
  private samples: number[][] = [];
  private everPresent = new Uint8Array(0);
  private groupOrder: number[] = [];
  /** Output batches computed ahead (see `bufferOutput`), served in order. */
  private buffered: StepBatch[] | null = null;

  /**
   * @param bufferOutput compute every batch before handing out the first one. The default
   *   engine orders groups by their first member in its input matrix, which is only known
   *   once the input is exhausted; consumers that visit groups in order (an enclosing
   *   aggregation's sum, a binary operator) need that order from the first step on.
   */
  constructor(
    private readonly e: AggregateExpr,
    private readonly input: VectorOperator,
    /** quantile's parameter (a number literal), NaN otherwise. */
    private readonly param: number,
    private readonly pc: PlanContext,
    private readonly bufferOutput: boolean,
  ) {}

  order(): readonly number[] {
    return this.groupOrder;
  }

  /** Groups ordered by their first member (among series with a value so far) in input order. */
  private updateGroupOrder(): void {
    const listed = new Uint8Array(this.metas.length);
    const order: number[] = [];
    for (const si of this.input.order()) {
      if (this.everPresent[si] !== 1) continue;
      const g = this.seriesToGroup[si] as number;
      if (listed[g] === 1) continue;
      listed[g] = 1;
      order.push(g);
    }
    this.groupOrder = order;
  }

  async prepare(): Promise<void> {
    await this.input.prepare();
    const e = this.e;
    const grouping = [...e.grouping].sort(compareGoStrings);
    const set = new Set(grouping);
    const index = new Map<string, number>();
    const inMetas = this.input.series();
    this.seriesToGroup = new Int32Array(inMetas.length);
    for (let si = 0; si < inMetas.length; si++) {
      const m = (inMetas[si] as SeriesMeta).metric;
      const key = groupingKey(m, e.without, set);
      let g = index.get(key);
      if (g === undefined) {
        g = index.size;
        index.set(key, g);
        this.metas.push({ metric: groupingLabels(m, e.without, grouping), dropName: false });
      }
      this.seriesToGroup[si] = g;
    }
    const n = this.metas.length;
    this.seen = new Uint8Array(n);
    this.value = new Float64Array(n);
    this.mean = new Float64Array(n);
    this.comp = new Float64Array(n);
    this.count = new Float64Array(n);
    this.incremental = new Uint8Array(n);
    this.groupDrop = new Uint8Array(n);
    this.samples = this.metas.map(() => []);
    this.everPresent = new Uint8Array(inMetas.length);
    if (e.op === 'quantile') {
      const q = this.param;
      const pos = positionRange(e.param ?? e.expr);
      const w = (v: number): void =>
        this.pc.ctx.warn(`quantile value should be between 0 and 1, got ${formatFloatG(v)}`, pos);
      if (Number.isNaN(q)) w(NaN);
      if (q > 1) w(q);
      if (q < 0) w(q);
    }
  }

  series(): readonly SeriesMeta[] {
    return this.metas;
  }

  next(): StepBatch | null {
    if (!this.bufferOutput) {
      const b = this.compute();
      this.updateGroupOrder();
      return b;
    }
    if (this.buffered === null) {
      const all: StepBatch[] = [];
      for (let b = this.compute(); b !== null; b = this.compute()) all.push(b);
      this.updateGroupOrder();
      this.buffered = all.reverse();
    }
    return this.buffered.pop() ?? null;
  }

  private compute(): StepBatch | null {
    const inB = this.input.next();
    if (inB === null) return null;
    const { steps, firstStep } = inB;
    const out = new StepBatch(firstStep, steps, this.metas.length);
    const inMetas = this.input.series();
    const inOrder = this.input.order();
    const everPresent = this.everPresent;
    const op = this.e.op;
    const { seen, value, mean, comp, count, incremental, groupDrop, samples } = this;
    const s2g = this.seriesToGroup;
    for (let k = 0; k < steps; k++) {
      seen.fill(0);
      for (const si of inOrder) {
        const idx = si * steps + k;
        if (inB.present[idx] !== 1) continue;
        everPresent[si] = 1;
        const f = inB.values[idx] as number;
        const g = s2g[si] as number;
        const drop = (inMetas[si] as SeriesMeta).dropName;
        if (seen[g] !== 1) {
          seen[g] = 1;
          value[g] = f;
          mean[g] = f;
          comp[g] = 0;
          count[g] = 1;
          incremental[g] = 0;
          groupDrop[g] = drop ? 1 : 0;
          if (op === 'stddev' || op === 'stdvar') value[g] = Number.isFinite(f) ? 0 : NaN;
          else if (op === 'quantile') samples[g] = [f];
          else if (op === 'group') value[g] = 1;
          continue;
        }
        if (drop) groupDrop[g] = 1;
        switch (op) {
          case 'sum': {
            const [v, c] = kahanInc(f, value[g] as number, comp[g] as number);
            value[g] = v;
            comp[g] = c;
            break;
          }
          case 'avg': {
            const n = (count[g] as number) + 1;
            count[g] = n;
            if (incremental[g] !== 1) {
              const [nv, nc] = kahanInc(f, value[g] as number, comp[g] as number);
              if (Number.isFinite(nv) || Number.isNaN(nv)) {
                value[g] = nv;
                comp[g] = nc;
                break;
              }
              // The direct sum would overflow: continue with an incremental mean.
              incremental[g] = 1;
              mean[g] = (value[g] as number) / (n - 1);
              comp[g] = (comp[g] as number) / (n - 1);
            }
            const r = (n - 1) / n;
            const [m, c] = kahanInc(f / n, r * (mean[g] as number), r * (comp[g] as number));
            mean[g] = m;
            comp[g] = c;
            break;
          }
          case 'group':
            break;
          case 'max':
            if ((value[g] as number) < f || Number.isNaN(value[g])) value[g] = f;
            break;
          case 'min':
            if ((value[g] as number) > f || Number.isNaN(value[g])) value[g] = f;
            break;
          case 'count':
            count[g] = (count[g] as number) + 1;
            break;
          case 'stddev':
          case 'stdvar': {
            const n = (count[g] as number) + 1;
            count[g] = n;
            const delta = f - (mean[g] as number);
            mean[g] = (mean[g] as number) + delta / n;
            value[g] = (value[g] as number) + delta * (f - mean[g]);
            break;
          }
          case 'quantile':
            (samples[g] as number[]).push(f);
            break;
          default:
            break;
        }
      }
      for (let g = 0; g < this.metas.length; g++) {
        if (seen[g] !== 1) continue;
        let v = value[g] as number;
        const n = count[g] as number;
        switch (op) {
          case 'avg':
            v =
              incremental[g] === 1
                ? (mean[g] as number) + (comp[g] as number)
                : v / n + (comp[g] as number) / n;
            break;
          case 'count':
            v = n;
            break;
          case 'stdvar':
            v = v / n;
            break;
          case 'stddev':
            v = Math.sqrt(v / n);
            break;
          case 'quantile':
            v = quantile(this.param, samples[g] as number[]);
            break;
          case 'sum':
            v = v + (comp[g] as number);
            break;
          default:
            break;
        }
        const i = g * steps + k;
        out.values[i] = v;
        out.present[i] = 1;
        (this.metas[g] as SeriesMeta).dropName = groupDrop[g] === 1;
      }
    }
    return out;
  }
}
