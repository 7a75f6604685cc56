// The unit of data flowing between the vectorised engine's operators: a batch of consecutive
// evaluation steps, one column per output series (values plus a presence mask), with the
// series' labels given once per operator rather than once per sample. Every operator of one
// plan shares the step grid and the batch size, so the k-th batch of a child covers exactly
// the steps of the k-th batch of its parent.
import type { Labels } from '../../model/index.js';

/** One output series of an operator: labels once, plus Prometheus 3's delayed name drop. */
export interface SeriesMeta {
  metric: Labels;
  /** The name is to be dropped when the result leaves the engine (may change between batches). */
  dropName: boolean;
}

/** The evaluation steps start, start+interval, … ≤ end (ms). */
export interface StepGrid {
  readonly start: number;
  readonly end: number;
  readonly interval: number;
  readonly numSteps: number;
}

export function makeGrid(start: number, end: number, interval: number): StepGrid {
  const numSteps = end < start ? 0 : Math.floor((end - start) / interval) + 1;
  return { start, end, interval, numSteps };
}

/** Step `i` of the grid as a timestamp. */
export function stepTime(grid: StepGrid, i: number): number {
  return grid.start + i * grid.interval;
}

/**
 * Steps [firstStep, firstStep + steps) for `numSeries` series, column-major: series `s` at
 * batch step `k` lives at index `s * steps + k` of `values` and `present`.
 */
export class StepBatch {
  readonly values: Float64Array;
  readonly present: Uint8Array;

  constructor(
    readonly firstStep: number,
    readonly steps: number,
    readonly numSeries: number,
  ) {
    this.values = new Float64Array(numSeries * steps);
    this.present = new Uint8Array(numSeries * steps);
  }
}

/** A node of the physical plan. */
export interface VectorOperator {
  /** Selects series and prepares children; called once before the first `next()`. */
  prepare(): Promise<void>;
  /** The output series, fixed after `prepare()` (their `dropName` may still change). */
  series(): readonly SeriesMeta[];
  /** The next batch of steps, or null after the last one. A batch is valid until the next call. */
  next(): StepBatch | null;
  /**
   * Series indices in the order the default engine holds them (its matrix order), as far as
   * known after the batches produced so far. Consumers visit the series present at a step in
   * this order, which keeps sums, error messages and output order identical to the default
   * engine's. Operators that evaluate step by step in Prometheus (binary operators,
   * functions of instant vectors) list series in order of first appearance, append-only;
   * the others list all their series in a fixed order.
   */
  order(): readonly number[];
}

/** 0 … n−1. */
export function identityOrder(n: number): number[] {
  const o = new Array<number>(n);
  for (let i = 0; i < n; i++) o[i] = i;
  return o;
}

/** Series in order of their first sample (Prometheus rangeEval's output order). */
export class AppearanceOrder {
  readonly list: number[] = [];
  private seen: Uint8Array;

  constructor(n: number) {
    this.seen = new Uint8Array(n);
  }

  has(i: number): boolean {
    return this.seen[i] === 1;
  }

  note(i: number): void {
    if (this.seen[i] === 1) return;
    this.seen[i] = 1;
    this.list.push(i);
  }
}

/** Hands out the step ranges of successive batches. */
export class BatchCursor {
  private nextStep = 0;

  constructor(
    readonly grid: StepGrid,
    readonly batchSize: number,
  ) {}

  /** [firstStep, steps] of the next batch, or null when the grid is exhausted. */
  advance(): [number, number] | null {
    if (this.nextStep >= this.grid.numSteps) return null;
    const first = this.nextStep;
    const steps = Math.min(this.batchSize, this.grid.numSteps - first);
    this.nextStep += steps;
    return [first, steps];
  }
}

/** Reads the only series of a scalar operator's batch at batch step `k`, or undefined. */
export function scalarAt(b: StepBatch | null, k: number): number | undefined {
  if (b === null || b.numSeries === 0) return undefined;
  // A scalar node has exactly one series; a fallback scalar may have none.
  return b.present[k] === 1 ? b.values[k] : undefined;
}

/**
 * The error the default engine would report: it evaluates children one after the other over
 * all steps before the parent's steps, so an error that a child evaluated earlier would
 * raise at any later step takes precedence over `err`. Drains those children to find out.
 */
export function firstError(earlier: readonly VectorOperator[], err: unknown): unknown {
  for (const c of earlier) {
    try {
      while (c.next() !== null) {
        // Only looking for an error.
      }
    } catch (e) {
      return e;
    }
  }
  return err;
}

/** The next batch of every child, in evaluation order, with the default engine's error precedence. */
export function pullAll(children: readonly VectorOperator[]): (StepBatch | null)[] {
  const out: (StepBatch | null)[] = [];
  for (let i = 0; i < children.length; i++) {
    try {
      out.push((children[i] as VectorOperator).next());
    } catch (err) {
      throw firstError(children.slice(0, i), err);
    }
  }
  return out;
}
