// The *_over_time family, ts_of_*_over_time, changes and resets of Prometheus 3
// functions.go for float samples: one value per series and step from the points inside the
// window (never called by the engine for an empty window).
import type { FunctionCall } from '../function_call.js';
import type { FPoint } from '../value.js';
import { addInvalidQuantileWarning } from './annotations.js';
import { kahanInc, pushRangeResult, scalarArg } from './common.js';
import { quantile } from './quantile.js';

/** Applies `fn` to the series' points when there is at least one. */
function overTime(fn: (points: readonly FPoint[]) => number, keepName = false): FunctionCall {
  return (_vectorVals, matrixVals, _args, enh) => {
    const series = matrixVals[0];
    if (series === undefined || series.floats.length === 0) return enh.out;
    return pushRangeResult(enh, series, fn(series.floats), keepName);
  };
}

/**
 * Direct mean with Kahan summation while the running sum stays finite, then incremental
 * mean (prometheus#16714): more accurate than incremental mean, yet free of overflow.
 * Reads the `length` (≥ 1) values through `at`, so both engines' window shapes share it.
 */
export function kahanMean(length: number, at: (i: number) => number): number {
  let sum = at(0);
  let count = 1;
  let mean = 0;
  let kahanC = 0;
  let incrementalMean = false;
  for (let i = 1; i < length; i++) {
    const f = at(i);
    count = i + 1;
    if (!incrementalMean) {
      const [newSum, newC] = kahanInc(f, sum, kahanC);
      if (newSum !== Infinity && newSum !== -Infinity) {
        sum = newSum;
        kahanC = newC;
        continue;
      }
      incrementalMean = true;
      mean = sum / (count - 1);
      kahanC /= count - 1;
    }
    const q = (count - 1) / count;
    [mean, kahanC] = kahanInc(f / count, q * mean, q * kahanC);
  }
  if (incrementalMean) return mean + kahanC;
  return sum / count + kahanC / count;
}

export function avgOverTime(points: readonly FPoint[]): number {
  return kahanMean(points.length, (i) => points[i]!.f);
}

export function sumOverTime(points: readonly FPoint[]): number {
  let sum = 0;
  let c = 0;
  for (const p of points) [sum, c] = kahanInc(p.f, sum, c);
  if (sum === Infinity || sum === -Infinity) return sum;
  return sum + c;
}

/** Welford's online variance with Kahan-compensated mean and sum of squares. */
export function varianceOverTime(points: readonly FPoint[]): number {
  let count = 0;
  let mean = 0;
  let cMean = 0;
  let aux = 0;
  let cAux = 0;
  for (const p of points) {
    count++;
    const delta = p.f - (mean + cMean);
    [mean, cMean] = kahanInc(delta / count, mean, cMean);
    [aux, cAux] = kahanInc(delta * (p.f - (mean + cMean)), aux, cAux);
  }
  return (aux + cAux) / count;
}

/**
 * Prometheus's compareOverTime: keeps the first point and replaces it whenever `better`
 * says so (which is also the case while the kept value is NaN).
 */
function extremum(
  points: readonly FPoint[],
  better: (cur: number, kept: number) => boolean,
): FPoint {
  let kept = points[0]!;
  for (const p of points) if (better(p.f, kept.f)) kept = p;
  return kept;
}

const greater = (cur: number, kept: number): boolean => cur > kept || Number.isNaN(kept);
const less = (cur: number, kept: number): boolean => cur < kept || Number.isNaN(kept);
const greaterOrEqual = (cur: number, kept: number): boolean => cur >= kept || Number.isNaN(kept);
const lessOrEqual = (cur: number, kept: number): boolean => cur <= kept || Number.isNaN(kept);

export const funcAvgOverTime: FunctionCall = overTime(avgOverTime);
export const funcSumOverTime: FunctionCall = overTime(sumOverTime);
export const funcCountOverTime: FunctionCall = overTime((points) => points.length);
export const funcMaxOverTime: FunctionCall = overTime((p) => extremum(p, greater).f);
export const funcMinOverTime: FunctionCall = overTime((p) => extremum(p, less).f);
export const funcTsOfMaxOverTime: FunctionCall = overTime(
  (p) => extremum(p, greaterOrEqual).t / 1000,
);
export const funcTsOfMinOverTime: FunctionCall = overTime((p) => extremum(p, lessOrEqual).t / 1000);
export const funcTsOfFirstOverTime: FunctionCall = overTime((p) => p[0]!.t / 1000);
export const funcTsOfLastOverTime: FunctionCall = overTime((p) => p[p.length - 1]!.t / 1000);
export const funcStdvarOverTime: FunctionCall = overTime(varianceOverTime);
export const funcStddevOverTime: FunctionCall = overTime((p) => Math.sqrt(varianceOverTime(p)));
export const funcPresentOverTime: FunctionCall = overTime(() => 1);
/** Like an offset, first_over_time and last_over_time keep the metric name. */
export const funcFirstOverTime: FunctionCall = overTime((p) => p[0]!.f, true);
export const funcLastOverTime: FunctionCall = overTime((p) => p[p.length - 1]!.f, true);

/** Median absolute deviation around the median; any NaN sample makes it NaN. */
export const funcMadOverTime: FunctionCall = overTime((points) => {
  if (points.some((p) => Number.isNaN(p.f))) return NaN;
  const median = quantile(
    0.5,
    points.map((p) => p.f),
  );
  return quantile(
    0.5,
    points.map((p) => Math.abs(p.f - median)),
  );
});

/** quantile_over_time(φ scalar, v range-vector). */
export const funcQuantileOverTime: FunctionCall = (vectorVals, matrixVals, args, enh) => {
  const q = scalarArg(vectorVals, 0);
  const series = matrixVals[0];
  if (q === undefined || series === undefined || series.floats.length === 0) return enh.out;
  if (Number.isNaN(q) || q < 0 || q > 1) addInvalidQuantileWarning(enh, q, args[0]);
  return pushRangeResult(
    enh,
    series,
    quantile(
      q,
      series.floats.map((p) => p.f),
    ),
  );
};

/**
 * absent_over_time: Prometheus's function only says "present" (1) for a series with points;
 * the engine turns the steps where no series had any into the absent series (labels from
 * createLabelsForAbsentFunction).
 */
export const funcAbsentOverTime: FunctionCall = (_vectorVals, matrixVals, _args, enh) => {
  const series = matrixVals[0];
  if (series === undefined) return enh.out;
  return pushRangeResult(enh, series, 1);
};

function countTransitions(counts: (prev: number, cur: number) => boolean): FunctionCall {
  return (_vectorVals, matrixVals, _args, enh) => {
    const series = matrixVals[0];
    if (series === undefined || series.floats.length === 0) return enh.out;
    const points = series.floats;
    let n = 0;
    for (let i = 1; i < points.length; i++) if (counts(points[i - 1]!.f, points[i]!.f)) n++;
    return pushRangeResult(enh, series, n);
  };
}

/** changes: value changes between neighbours; NaN to NaN is no change. */
export const funcChanges: FunctionCall = countTransitions(
  (prev, cur) => cur !== prev && !(Number.isNaN(cur) && Number.isNaN(prev)),
);

/** resets: decreases between neighbours (counter resets). */
export const funcResets: FunctionCall = countTransitions((prev, cur) => cur < prev);
