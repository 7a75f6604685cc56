// topk and bottomk over step columns: per step and group, a binary heap ordered exactly like
// the default engine's (Go container/heap with Prometheus's NaN-first orderings, so ties
// resolve the same way), then each group's heap sorted and emitted in group order. The
// outputs are input series; a column appears in the output order at its first selection.
import { compareGoStrings } from '../../model/index.js';
import { QueryExecutionError } from '../errors.js';
import {
  byReverseValue,
  byValue,
  formatFloatG,
  groupingKey,
  heapFix,
  heapPush,
} from '../engine/index.js';
import type { AggregateExpr } from '../parser/index.js';
import {
  AppearanceOrder,
  firstError,
  StepBatch,
  type SeriesMeta,
  type VectorOperator,
} from './batch.js';

/** The largest float64 that converts to int64 without overflow, and the smallest. */
const MAX_INT64 = 9223372036854774784;
const MIN_INT64 = -9223372036854775808;

interface Item {
  readonly si: number;
  readonly f: number;
}

/** One step's selection: per group, the chosen series in output order. */
type StepSelection = Map<number, Item[]>;

export class TopKOperator implements VectorOperator {
  private metas: SeriesMeta[] = [];
  private seriesToGroup = new Int32Array(0);
  private numGroups = 0;
  private everPresent = new Uint8Array(0);
  private groupOrder: number[] = [];
  private appearance = new AppearanceOrder(0);
  /** Output slot of each input series (equal label sets share one in a range evaluation). */
  private slotOf = new Int32Array(0);
  private k = 0;
  private empty = false;
  /** The parameter's error, raised after the input is evaluated (as the default engine does). */
  private paramError: Error | undefined;
  private buffered: [StepBatch, StepSelection[]][] | null = null;

  /**
   * @param param the constant k
   * @param bufferOutput see AggregateOperator: group order is final only at the end
   * @param merge outputs with equal labels share a column (a range evaluation)
   */
  constructor(
    private readonly e: AggregateExpr,
    private readonly input: VectorOperator,
    private readonly param: number,
    private readonly bufferOutput: boolean,
    private readonly merge: boolean,
  ) {}

  async prepare(): Promise<void> {
    await this.input.prepare();
    const e = this.e;
    const grouping = new Set([...e.grouping].sort(compareGoStrings));
    const index = new Map<string, number>();
    const inMetas = this.input.series();
    this.seriesToGroup = new Int32Array(inMetas.length);
    this.slotOf = new Int32Array(inMetas.length);
    const slots = new Map<string, number>();
    inMetas.forEach((m, si) => {
      const key = groupingKey(m.metric, e.without, grouping);
      let g = index.get(key);
      if (g === undefined) {
        g = index.size;
        index.set(key, g);
      }
      this.seriesToGroup[si] = g;
      let slot = this.merge ? slots.get(m.metric.key()) : undefined;
      if (slot === undefined) {
        slot = this.metas.length;
        if (this.merge) slots.set(m.metric.key(), slot);
        this.metas.push({ metric: m.metric, dropName: m.dropName });
      }
      this.slotOf[si] = slot;
    });
    this.numGroups = index.size;
    this.everPresent = new Uint8Array(inMetas.length);
    this.appearance = new AppearanceOrder(this.metas.length);
    // Prometheus's fParams checks on the (constant) parameter.
    const p = this.param;
    const min = Math.min(Number.MAX_VALUE, p);
    const max = Math.max(-Number.MAX_VALUE, p);
    if (max < 1) {
      this.empty = true;
      return;
    }
    if (Number.isNaN(p)) this.paramError = new QueryExecutionError('Parameter value is NaN');
    else if (min <= MIN_INT64) {
      this.paramError = new QueryExecutionError(
        `Scalar value ${formatFloatG(min)} underflows int64`,
      );
    } else if (max >= MAX_INT64) {
      this.paramError = new QueryExecutionError(
        `Scalar value ${formatFloatG(max)} overflows int64`,
      );
    }
    this.k = Math.min(Math.trunc(p), inMetas.length);
  }

  series(): readonly SeriesMeta[] {
    return this.metas;
  }

  order(): readonly number[] {
    return this.appearance.list;
  }

  next(): StepBatch | null {
    if (!this.bufferOutput) {
      const r = this.select();
      if (r === null) return null;
      this.updateGroupOrder();
      return this.emit(r[0], r[1]);
    }
    if (this.buffered === null) {
      const all: [StepBatch, StepSelection[]][] = [];
      for (let r = this.select(); r !== null; r = this.select()) all.push(r);
      this.updateGroupOrder();
      this.buffered = all.reverse();
    }
    const r = this.buffered.pop();
    return r === undefined ? null : this.emit(r[0], r[1]);
  }

  private updateGroupOrder(): void {
    const listed = new Uint8Array(this.numGroups);
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

  /** Chooses each step's series; the output batch is filled by emit(). */
  private select(): [StepBatch, StepSelection[]] | null {
    const inB = this.input.next();
    if (inB === null) return null;
    if (this.paramError !== undefined) throw firstError([this.input], this.paramError);
    const { steps, firstStep } = inB;
    const out = new StepBatch(firstStep, steps, this.metas.length);
    const selections: StepSelection[] = [];
    if (this.empty) return [out, selections];
    const bottom = this.e.op === 'bottomk';
    const less = bottom ? byReverseValue : byValue;
    const k = this.k;
    const inOrder = this.input.order();
    for (let step = 0; step < steps; step++) {
      const heaps: StepSelection = new Map();
      for (const si of inOrder) {
        const i = si * steps + step;
        if (inB.present[i] !== 1) continue;
        this.everPresent[si] = 1;
        const s: Item = { si, f: inB.values[i] as number };
        const g = this.seriesToGroup[si] as number;
        const h = heaps.get(g);
        if (h === undefined) {
          heaps.set(g, [s]);
          continue;
        }
        if (h.length < k) {
          heapPush(h, s, less);
          continue;
        }
        const top = h[0] as Item;
        const better = bottom ? top.f > s.f : top.f < s.f;
        if (better || (Number.isNaN(top.f) && !Number.isNaN(s.f))) {
          h[0] = s;
          if (k > 1) heapFix(h, 0, less);
        }
      }
      for (const [g, h] of heaps) {
        // Sorted best first, NaN last: Go's sort.Reverse of the NaN-first order.
        heaps.set(
          g,
          [...h].sort((a, b) => (less(b, a) ? -1 : less(a, b) ? 1 : 0)),
        );
      }
      selections.push(heaps);
    }
    return [out, selections];
  }

  private emit(out: StepBatch, selections: readonly StepSelection[]): StepBatch {
    const inMetas = this.input.series();
    selections.forEach((heaps, step) => {
      for (const g of this.groupOrder) {
        for (const s of heaps.get(g) ?? []) {
          const slot = this.slotOf[s.si] as number;
          const i = slot * out.steps + step;
          out.values[i] = s.f;
          out.present[i] = 1;
          if (!this.appearance.has(slot)) {
            (this.metas[slot] as SeriesMeta).dropName = (inMetas[s.si] as SeriesMeta).dropName;
          }
          this.appearance.note(slot);
        }
      }
    });
    return out;
  }
}
