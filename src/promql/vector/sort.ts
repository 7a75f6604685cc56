// sort and sort_desc: the values pass through unchanged; what the functions decide is the
// order of an instant query's result. The default engine evaluates them step by step
// (rangeEval), so its output lists series in order of first appearance, each step's series
// sorted by value (NaN last both ways, ties in input order). This operator keeps exactly that
// order; a range query's result is ordered by labels anyway (and warned about, as there).
import type { Call } from '../parser/index.js';
import { posRangeOf } from '../parser/index.js';
import { AppearanceOrder, type SeriesMeta, type StepBatch, type VectorOperator } from './batch.js';
import type { PlanContext } from './plan_context.js';

export const SORT_BY_VALUE: ReadonlySet<string> = new Set(['sort', 'sort_desc']);

export class SortOperator implements VectorOperator {
  private appearance = new AppearanceOrder(0);
  private readonly desc: boolean;
  private readonly present: number[] = [];

  constructor(
    private readonly call: Call,
    private readonly input: VectorOperator,
    private readonly pc: PlanContext,
  ) {
    this.desc = call.func === 'sort_desc';
  }

  async prepare(): Promise<void> {
    await this.input.prepare();
    this.appearance = new AppearanceOrder(this.input.series().length);
    if (this.pc.ctx.config.rangeQuery)
      this.pc.ctx.warn(
        'sort is ineffective for range queries since results are always ordered by labels',
        posRangeOf(this.call),
      );
  }

  series(): readonly SeriesMeta[] {
    return this.input.series();
  }

  order(): readonly number[] {
    return this.appearance.list;
  }

  next(): StepBatch | null {
    const b = this.input.next();
    if (b === null) return null;
    const inOrder = this.input.order();
    const { values, present: has, steps } = b;
    const desc = this.desc;
    for (let k = 0; k < steps; k++) {
      const present = this.present;
      present.length = 0;
      for (const s of inOrder) if (has[s * steps + k] === 1) present.push(s);
      // Array.prototype.sort is stable: ties keep the input order, as the default engine's.
      present.sort((x, y) => {
        const a = values[x * steps + k] as number;
        const c = values[y * steps + k] as number;
        const aNaN = a !== a;
        const cNaN = c !== c;
        if (aNaN || cNaN) return aNaN === cNaN ? 0 : aNaN ? 1 : -1;
        if (a === c) return 0;
        return a < c !== desc ? -1 : 1;
      });
      for (const s of present) this.appearance.note(s);
    }
    return b;
  }
}
