// The evaluator's internal value: a matrix of series whose points live in two parallel number
// arrays (times and values) rather than one object per point, converted to the public
// `Matrix`/`Vector` shapes only at the edges (function calls over ranges, the final result).
import type { Labels } from '../../model/index.js';

export interface ESeries {
  metric: Labels;
  ts: number[];
  fs: number[];
  /** The metric name is to be dropped when the result leaves the engine (Prometheus 3 DropName). */
  dropName: boolean;
}

export type EMatrix = ESeries[];

/** A mutable instant-vector element the evaluator reuses across steps. */
export interface MSample {
  metric: Labels;
  t: number;
  f: number;
  dropName: boolean;
}
