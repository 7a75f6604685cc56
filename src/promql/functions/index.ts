/**
 * The PromQL function library: every function of Prometheus 3.14's promql/functions.go that
 * works on float samples, behind the FunctionCall contract (function_call.ts), with
 * Prometheus's numerics (Kahan sums, rate extrapolation, bucket interpolation) and its
 * annotation texts. The engine looks functions up in FUNCTIONS by name.
 *
 * It must never evaluate expressions, touch storage or read the clock: a function sees one
 * step's argument values, the argument expressions (for string literals, ranges and
 * positions) and the node helper, and nothing else.
 *
 * Conventions the engine relies on:
 * - vectorVals has one entry per argument, in argument order (so predict_linear's `t` is
 *   vectorVals[1]; the range-vector argument's own entry is empty);
 * - range-vector functions return at most one sample, labelled with the series' metric and
 *   `dropName: true` (first_over_time/last_over_time keep the series' own flag);
 * - annotations go to enh.annotations; their position suffix comes from an optional
 *   formatter in enh.cache under POSITION_FORMATTER_KEY (see position.ts);
 * - evaluation errors (label_replace/label_join validation, double_exponential_smoothing
 *   factors) are thrown as QueryExecutionError.
 */
import type { FunctionCall } from '../function_call.js';
import * as date from './date.js';
import * as hist from './histogram.js';
import * as labels from './labels.js';
import * as math from './math.js';
import * as over from './over_time.js';
import * as rate from './rate.js';
import * as regression from './regression.js';
import * as sort from './sort.js';

export { createLabelsForAbsentFunction } from './math.js';
export {
  compileLabelJoin,
  compileLabelReplace,
  type LabelJoiner,
  type LabelReplacer,
} from './labels.js';
export { POSITION_FORMATTER_KEY, positionRange, type PositionFormatter } from './position.js';
export { almostEqual, bucketQuantile, bucketFraction, quantile, type Bucket } from './quantile.js';
export { kahanInc } from './common.js';
export { kahanMean } from './over_time.js';
export { PointWindow } from './point_window.js';
export { COLUMN_KERNELS, type ColumnKernel } from './window_kernels.js';
export { linearRegression } from './regression.js';

/** Function name → implementation (Prometheus's FunctionCalls, float samples). */
export const FUNCTIONS: ReadonlyMap<string, FunctionCall> = new Map<string, FunctionCall>([
  ['abs', math.funcAbs],
  ['absent', math.funcAbsent],
  ['absent_over_time', over.funcAbsentOverTime],
  ['acos', math.funcAcos],
  ['acosh', math.funcAcosh],
  ['asin', math.funcAsin],
  ['asinh', math.funcAsinh],
  ['atan', math.funcAtan],
  ['atanh', math.funcAtanh],
  ['avg_over_time', over.funcAvgOverTime],
  ['ceil', math.funcCeil],
  ['changes', over.funcChanges],
  ['clamp', math.funcClamp],
  ['clamp_max', math.funcClampMax],
  ['clamp_min', math.funcClampMin],
  ['cos', math.funcCos],
  ['cosh', math.funcCosh],
  ['count_over_time', over.funcCountOverTime],
  ['days_in_month', date.funcDaysInMonth],
  ['day_of_month', date.funcDayOfMonth],
  ['day_of_week', date.funcDayOfWeek],
  ['day_of_year', date.funcDayOfYear],
  ['deg', math.funcDeg],
  ['delta', rate.funcDelta],
  ['deriv', regression.funcDeriv],
  ['double_exponential_smoothing', regression.funcDoubleExponentialSmoothing],
  ['exp', math.funcExp],
  ['first_over_time', over.funcFirstOverTime],
  ['floor', math.funcFloor],
  ['histogram_avg', hist.funcNativeHistogramOnly],
  ['histogram_count', hist.funcNativeHistogramOnly],
  ['histogram_fraction', hist.funcHistogramFraction],
  ['histogram_quantile', hist.funcHistogramQuantile],
  ['histogram_quantiles', hist.funcHistogramQuantiles],
  ['histogram_stddev', hist.funcNativeHistogramOnly],
  ['histogram_stdvar', hist.funcNativeHistogramOnly],
  ['histogram_sum', hist.funcNativeHistogramOnly],
  ['hour', date.funcHour],
  ['idelta', rate.funcIdelta],
  ['increase', rate.funcIncrease],
  ['irate', rate.funcIrate],
  ['label_join', labels.funcLabelJoin],
  ['label_replace', labels.funcLabelReplace],
  ['last_over_time', over.funcLastOverTime],
  ['ln', math.funcLn],
  ['log10', math.funcLog10],
  ['log2', math.funcLog2],
  ['mad_over_time', over.funcMadOverTime],
  ['max_over_time', over.funcMaxOverTime],
  ['min_over_time', over.funcMinOverTime],
  ['minute', date.funcMinute],
  ['month', date.funcMonth],
  ['pi', math.funcPi],
  ['predict_linear', regression.funcPredictLinear],
  ['present_over_time', over.funcPresentOverTime],
  ['quantile_over_time', over.funcQuantileOverTime],
  ['rad', math.funcRad],
  ['rate', rate.funcRate],
  ['resets', over.funcResets],
  ['round', math.funcRound],
  ['scalar', math.funcScalar],
  ['sgn', math.funcSgn],
  ['sin', math.funcSin],
  ['sinh', math.funcSinh],
  ['sort', sort.funcSort],
  ['sort_by_label', sort.funcSortByLabel],
  ['sort_by_label_desc', sort.funcSortByLabelDesc],
  ['sort_desc', sort.funcSortDesc],
  ['sqrt', math.funcSqrt],
  ['stddev_over_time', over.funcStddevOverTime],
  ['stdvar_over_time', over.funcStdvarOverTime],
  ['sum_over_time', over.funcSumOverTime],
  ['tan', math.funcTan],
  ['tanh', math.funcTanh],
  ['time', math.funcTime],
  ['timestamp', math.funcTimestamp],
  ['ts_of_first_over_time', over.funcTsOfFirstOverTime],
  ['ts_of_last_over_time', over.funcTsOfLastOverTime],
  ['ts_of_max_over_time', over.funcTsOfMaxOverTime],
  ['ts_of_min_over_time', over.funcTsOfMinOverTime],
  ['vector', math.funcVector],
  ['year', date.funcYear],
]);

/**
 * Names in the parser's function table that this library deliberately leaves to others:
 * `info` is evaluated by Prometheus's engine itself (and is feature-gated); `start`, `end`,
 * `range`, `step`, `min_of` and `max_of` belong to duration expressions (feature
 * `promql-duration-expr`), which the engine resolves; `integral` is newer than Prometheus
 * 3.14's functions.go.
 */
export const NOT_IN_FUNCTION_LIBRARY: ReadonlyMap<string, string> = new Map([
  ['info', 'evaluated by the engine (Prometheus engine.go evalInfo), feature-gated'],
  ['start', 'duration-expression function (promql-duration-expr), resolved before evaluation'],
  ['end', 'duration-expression function (promql-duration-expr), resolved before evaluation'],
  ['range', 'duration-expression function (promql-duration-expr), resolved before evaluation'],
  ['step', 'duration-expression function (promql-duration-expr), resolved before evaluation'],
  ['min_of', 'duration-expression function (promql-duration-expr), evaluated by the engine'],
  ['max_of', 'duration-expression function (promql-duration-expr), evaluated by the engine'],
  ['integral', 'not part of Prometheus 3.14 promql/functions.go'],
]);

/** Functions taking a range-vector argument (the engine iterates series × steps for them). */
const RANGE_FUNCTIONS = new Set([
  'absent_over_time',
  'avg_over_time',
  'changes',
  'count_over_time',
  'delta',
  'deriv',
  'double_exponential_smoothing',
  'first_over_time',
  'idelta',
  'increase',
  'irate',
  'last_over_time',
  'mad_over_time',
  'max_over_time',
  'min_over_time',
  'predict_linear',
  'present_over_time',
  'quantile_over_time',
  'rate',
  'resets',
  'stddev_over_time',
  'stdvar_over_time',
  'sum_over_time',
  'ts_of_first_over_time',
  'ts_of_last_over_time',
  'ts_of_max_over_time',
  'ts_of_min_over_time',
]);

export function isRangeFunction(name: string): boolean {
  return RANGE_FUNCTIONS.has(name);
}

/**
 * Prometheus's AtModifierUnsafeFunctions: results depend on the evaluation time even for
 * step-invariant arguments, so preprocessing must not wrap such calls as step-invariant.
 */
export const AT_MODIFIER_UNSAFE_FUNCTIONS: ReadonlySet<string> = new Set([
  'days_in_month',
  'day_of_month',
  'day_of_week',
  'day_of_year',
  'hour',
  'minute',
  'month',
  'year',
  'predict_linear',
  'time',
  'timestamp',
]);

/** first_over_time/last_over_time act like an offset and keep the metric name. */
export function keepsMetricName(name: string): boolean {
  return name === 'first_over_time' || name === 'last_over_time';
}
