// The contract between the engine and the PromQL function implementations, shaped like
// Prometheus 3's FunctionCall (promql/functions.go): the engine evaluates the arguments for
// one output step and calls the function with
//   - `vectorVals`: one instant vector per argument (scalars arrive as a one-sample vector,
//     string and matrix arguments as an empty vector),
//   - `matrixVals`: for a range-vector argument, the one series being evaluated with its
//     points inside the window of this step (the engine iterates series × steps),
//   - `args`: the argument expressions (functions read string literals, matrix ranges and
//     offsets from them; a subquery argument arrives rewritten as a MatrixSelector with the
//     subquery's range and offset, as Prometheus does),
//   - `enh`: the step's timestamp, an output buffer, annotations and per-node caches.
import type { Annotations } from './annotations.js';
import type { Expr } from './parser/ast.js';
import type { Matrix, Vector } from './value.js';

export interface EvalNodeHelper {
  /** Evaluation timestamp of the current step, ms. */
  readonly ts: number;
  /** Output buffer a function may push into and return (the engine reuses it per step). */
  out: Vector;
  /** Where functions record warnings and infos (with Prometheus's text and position). */
  readonly annotations: Annotations;
  /**
   * Scratch space that lives as long as one node's evaluation (all steps), for caches such
   * as label_replace's compiled regex or histogram_quantile's bucket grouping.
   */
  readonly cache: Map<string, unknown>;
}

export type FunctionCall = (
  vectorVals: readonly Vector[],
  matrixVals: Matrix,
  args: readonly Expr[],
  enh: EvalNodeHelper,
) => Vector;
