// Small helpers shared by the function families: Prometheus's Kahan–Neumaier increment,
// reading the range and offset of a range-vector argument, the metric name, and the output
// sample a range function produces for its series.
import { Labels, METRIC_NAME_LABEL } from '../../model/index.js';
import type { EvalNodeHelper } from '../function_call.js';
import type { Expr } from '../parser/ast.js';
import type { Series, Vector } from '../value.js';

/**
 * util/kahansum.Inc: adds `inc` to `sum` with compensation `c` (Neumaier's variant); an
 * infinite sum resets the compensation so that Inf - Inf never appears in it.
 */
export function kahanInc(inc: number, sum: number, c: number): [number, number] {
  const t = sum + inc;
  let comp = c;
  if (t === Infinity || t === -Infinity) comp = 0;
  else if (Math.abs(sum) >= Math.abs(inc)) comp += sum - t + inc;
  else comp += inc - t + sum;
  return [t, comp];
}

/** Strips the wrappers the engine or the parser may leave around a range-vector argument. */
function unwrap(expr: Expr): Expr {
  let e = expr;
  while (e.type === 'ParenExpr' || e.type === 'StepInvariantExpr') e = e.expr;
  return e;
}

/** The range and effective offset (ms) of a range-vector argument (selector or subquery). */
export function matrixWindow(expr: Expr | undefined): { range: number; offset: number } {
  if (expr === undefined) return { range: 0, offset: 0 };
  const e = unwrap(expr);
  if (e.type === 'MatrixSelector') return { range: e.range, offset: e.vectorSelector.offset };
  if (e.type === 'SubqueryExpr') return { range: e.range, offset: e.offset };
  return { range: 0, offset: 0 };
}

/** Go's time.Duration.Seconds() for a whole number of milliseconds. */
export function durationSeconds(ms: number): number {
  const whole = Math.trunc(ms / 1000);
  return whole + ((ms - whole * 1000) * 1e6) / 1e9;
}

export function metricName(metric: Labels): string {
  return metric.get(METRIC_NAME_LABEL);
}

/**
 * Appends the one sample a range-vector function yields for its series at this step. The
 * metric is the input series' (Prometheus's engine sets it the same way) and the name is to
 * be dropped, except for first_over_time/last_over_time, which act like an offset.
 */
export function pushRangeResult(
  enh: EvalNodeHelper,
  series: Series,
  f: number,
  keepName = false,
): Vector {
  enh.out.push({
    metric: series.metric,
    t: enh.ts,
    f,
    dropName: keepName ? series.dropName === true : true,
  });
  return enh.out;
}

/** The value of a scalar argument (a one-sample vector), or undefined when it is missing. */
export function scalarArg(vectorVals: readonly Vector[], index: number): number | undefined {
  return vectorVals[index]?.[0]?.f;
}

/** Builder.Set semantics: an empty value deletes the label. */
export function withLabel(metric: Labels, name: string, value: string): Labels {
  // Pairs rather than an object: a label may be called `__proto__`.
  const pairs: [string, string][] = [];
  metric.forEach((n, v) => {
    if (n !== name) pairs.push([n, v]);
  });
  if (value !== '') pairs.push([name, value]);
  return Labels.fromPairs(pairs);
}
