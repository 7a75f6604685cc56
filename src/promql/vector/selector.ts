// The instant-vector selector operator: each series' samples are read (in bulk) and walked
// in one forward pass across all batches; at step t the column holds the
// newest sample in (t − offset − lookback, t − offset] unless that sample is a stale marker
// (Prometheus evalSeries / the default engine's evalInstantSelector).
import type { VectorSelector } from '../parser/index.js';
import {
  BatchCursor,
  identityOrder,
  StepBatch,
  stepTime,
  type SeriesMeta,
  type StepGrid,
  type VectorOperator,
} from './batch.js';
import { effectiveOffset, readSamples, selectSeries, type PlanContext } from './plan_context.js';

interface SelectorState {
  readonly ts: ArrayLike<number>;
  readonly fs: ArrayLike<number>;
  /** Samples before this index are at or before the last step's reference time. */
  next: number;
}

export class VectorSelectorOperator implements VectorOperator {
  private metas: SeriesMeta[] = [];
  private states: SelectorState[] = [];
  private ord: number[] = [];
  private readonly cursor: BatchCursor;
  private readonly offset: number;

  constructor(
    private readonly selector: VectorSelector,
    private readonly grid: StepGrid,
    private readonly pc: PlanContext,
  ) {
    this.cursor = new BatchCursor(grid, pc.batchSize);
    this.offset = effectiveOffset(selector, grid.start);
  }

  async prepare(): Promise<void> {
    const selected = await selectSeries(this.pc, this.selector);
    this.metas = selected.map((s) => ({ metric: s.labels, dropName: false }));
    // Read at one time only (an instant query), a series needs nothing but its newest sample
    // in the lookback window.
    const ref = this.grid.start - this.offset;
    const newestIn =
      this.grid.numSteps === 1
        ? { start: ref - this.pc.ctx.config.lookbackDelta + 1, end: ref }
        : undefined;
    this.states = selected.map((s) => {
      const { ts, fs } = readSamples(s, newestIn);
      return { ts, fs, next: 0 };
    });
    this.ord = identityOrder(selected.length);
  }

  order(): readonly number[] {
    return this.ord;
  }

  series(): readonly SeriesMeta[] {
    return this.metas;
  }

  next(): StepBatch | null {
    const r = this.cursor.advance();
    if (r === null) return null;
    const [first, steps] = r;
    const ctx = this.pc.ctx;
    const lookback = ctx.config.lookbackDelta;
    const stale = ctx.stale;
    const batch = new StepBatch(first, steps, this.states.length);
    const { values, present } = batch;
    let points = 0;
    const interval = this.grid.interval;
    const ref0 = stepTime(this.grid, first) - this.offset;
    for (let si = 0; si < this.states.length; si++) {
      const st = this.states[si] as SelectorState;
      const { ts, fs } = st;
      const n = ts.length;
      const base = si * steps;
      let i = st.next;
      for (let k = 0; k < steps; k++) {
        const ref = ref0 + k * interval;
        while (i < n && (ts[i] as number) <= ref) i++;
        // The newest sample at or before ref, if it is inside the lookback window.
        if (i === 0 || (ts[i - 1] as number) <= ref - lookback) continue;
        const f = fs[i - 1] as number;
        if (f !== f && stale.isStale(f)) continue;
        values[base + k] = f;
        present[base + k] = 1;
        points++;
      }
      st.next = i;
    }
    ctx.totalSamples += points;
    return batch;
  }
}
