// Functions of an instant vector whose outputs are groups of input series, such as
// histogram_quantile and histogram_fraction over classic buckets (one output per label set
// without `le`). Each step hands the kernel the whole vector at that step, exactly as the
// default engine does, so values and annotations are the kernel's own. The output series
// are found once per query by asking the kernel which group each input series falls into.
import { Labels } from '../../model/index.js';
import { Annotations } from '../annotations.js';
import { PromQLError } from '../errors.js';
import { NodeHelper } from '../engine/index.js';
import type { EvalNodeHelper, FunctionCall } from '../function_call.js';
import type { Call } from '../parser/index.js';
import type { Sample } from '../value.js';
import {
  AppearanceOrder,
  firstError,
  pullAll,
  StepBatch,
  stepTime,
  type SeriesMeta,
  type StepGrid,
  type VectorOperator,
} from './batch.js';
import { dropsNamesNow, withNamesDropped, type PlanContext } from './plan_context.js';

/** Functions this operator handles, with scalar values that make the kernel yield a sample. */
export const GROUPING_FUNCTIONS: ReadonlyMap<string, readonly number[]> = new Map([
  ['histogram_quantile', [0.5]],
  ['histogram_fraction', [0, 1]],
]);

export class GroupingFunctionOperator implements VectorOperator {
  private metas: SeriesMeta[] = [];
  private slotByKey = new Map<string, number>();
  private appearance = new AppearanceOrder(0);
  private readonly enh: NodeHelper;

  /**
   * @param vectorIndex the argument holding the instant vector
   * @param scalarArgs operators of the scalar arguments by argument index
   */
  constructor(
    private readonly call: Call,
    private readonly fn: FunctionCall,
    private readonly vectorIndex: number,
    private readonly input: VectorOperator,
    private readonly scalarArgs: ReadonlyMap<number, VectorOperator>,
    private readonly grid: StepGrid,
    private readonly pc: PlanContext,
  ) {
    this.enh = new NodeHelper(pc.ctx);
  }

  async prepare(): Promise<void> {
    // Arguments in argument order (the order the default engine evaluates them in).
    for (let i = 0; i < this.call.args.length; i++) {
      if (i === this.vectorIndex) await this.input.prepare();
      else await this.scalarArgs.get(i)?.prepare();
    }
    // Which group each input series belongs to: the kernel's answer for that series alone,
    // with scratch annotations (the real ones come from the real evaluation).
    const probeValues = GROUPING_FUNCTIONS.get(this.call.func) ?? [];
    const vectors: Sample[][] = this.call.args.map(() => []);
    let p = 0;
    for (let i = 0; i < this.call.args.length; i++) {
      if (i === this.vectorIndex) continue;
      (vectors[i] as Sample[]).push({ metric: Labels.EMPTY, t: 0, f: probeValues[p++] ?? 0 });
    }
    const probe: EvalNodeHelper = {
      ts: this.grid.start,
      out: [],
      annotations: new Annotations(),
      cache: new Map(),
    };
    for (const m of this.input.series()) {
      vectors[this.vectorIndex] = [{ metric: m.metric, t: 0, f: 1 }];
      probe.out = [];
      for (const s of this.fn(vectors, [], this.call.args, probe)) {
        const key = s.metric.key();
        if (this.slotByKey.has(key)) continue;
        this.slotByKey.set(key, this.metas.length);
        this.metas.push({ metric: s.metric, dropName: s.dropName === true });
      }
    }
    // Both functions drop the name of what they output: now, without delayed name removal
    // (the columns stay keyed by the kernel's labels).
    if (dropsNamesNow(this.pc)) this.metas = withNamesDropped(this.metas);
    this.appearance = new AppearanceOrder(this.metas.length);
  }

  series(): readonly SeriesMeta[] {
    return this.metas;
  }

  order(): readonly number[] {
    return this.appearance.list;
  }

  next(): StepBatch | null {
    const indices = [...this.scalarArgs.keys(), this.vectorIndex].sort((a, b) => a - b);
    const children = indices.map((i) =>
      i === this.vectorIndex ? this.input : (this.scalarArgs.get(i) as VectorOperator),
    );
    const pulled = pullAll(children);
    const batches = new Map<number, StepBatch | null>();
    indices.forEach((ai, j) => batches.set(ai, pulled[j] ?? null));
    const inB = batches.get(this.vectorIndex) ?? null;
    if (inB === null) return null;
    try {
      return this.compute(inB, batches);
    } catch (err) {
      throw firstError(children, err);
    }
  }

  private compute(inB: StepBatch, batches: ReadonlyMap<number, StepBatch | null>): StepBatch {
    const { steps, firstStep } = inB;
    const out = new StepBatch(firstStep, steps, this.metas.length);
    const vectors: Sample[][] = this.call.args.map(() => []);
    const inMetas = this.input.series();
    const inOrder = this.input.order();
    const slotOf = new Map<Labels, number>();
    const enh = this.enh;
    for (let k = 0; k < steps; k++) {
      const ts = stepTime(this.grid, firstStep + k);
      for (const [ai, b] of batches) {
        const vec = vectors[ai] as Sample[];
        vec.length = 0;
        if (b === null) continue;
        if (ai === this.vectorIndex) {
          for (const s of inOrder) {
            const i = s * steps + k;
            if (b.present[i] !== 1) continue;
            const m = inMetas[s] as SeriesMeta;
            vec.push({ metric: m.metric, t: ts, f: b.values[i] as number, dropName: m.dropName });
          }
        } else if (b.numSeries > 0 && b.present[k] === 1) {
          vec.push({ metric: Labels.EMPTY, t: ts, f: b.values[k] as number });
        }
      }
      enh.ts = ts;
      enh.out = [];
      for (const s of this.fn(vectors, [], this.call.args, enh)) {
        let slot = slotOf.get(s.metric);
        if (slot === undefined) {
          slot = this.slotByKey.get(s.metric.key());
          if (slot === undefined) {
            throw new PromQLError('internal', `${this.call.func}: unexpected output series`);
          }
          slotOf.set(s.metric, slot);
        }
        const i = slot * steps + k;
        if (out.present[i] === 1 && this.grid.numSteps > 1) {
          throw new PromQLError(
            'execution',
            'vector cannot contain metrics with the same labelset',
          );
        }
        out.values[i] = s.f;
        out.present[i] = 1;
        this.appearance.note(slot);
        (this.metas[slot] as SeriesMeta).dropName = s.dropName === true;
      }
    }
    return out;
  }
}
