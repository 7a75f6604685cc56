// deriv, predict_linear (least-squares regression with Kahan sums) and
// double_exponential_smoothing (Holt's linear method) of Prometheus 3 functions.go.
import { formatFloatFixed6 } from '../../model/index.js';
import { QueryExecutionError } from '../errors.js';
import type { FunctionCall } from '../function_call.js';
import type { FPoint } from '../value.js';
import { kahanInc, pushRangeResult, scalarArg } from './common.js';

/**
 * Slope and intercept at `interceptTime` (ms) of the least-squares line through the points,
 * x in seconds relative to interceptTime. A constant series has slope 0 (NaN if ±Inf).
 */
export function linearRegression(
  points: readonly FPoint[],
  interceptTime: number,
): { slope: number; intercept: number } {
  let n = 0;
  let sumX = 0;
  let cX = 0;
  let sumY = 0;
  let cY = 0;
  let sumXY = 0;
  let cXY = 0;
  let sumX2 = 0;
  let cX2 = 0;
  const initY = points[0]!.f;
  let constY = true;
  for (let i = 0; i < points.length; i++) {
    const p = points[i]!;
    // Not `!==` on NaN: Prometheus compares with != too, so a NaN makes the series non-constant.
    if (constY && i > 0 && p.f !== initY) constY = false;
    n += 1;
    const x = (p.t - interceptTime) / 1e3;
    [sumX, cX] = kahanInc(x, sumX, cX);
    [sumY, cY] = kahanInc(p.f, sumY, cY);
    [sumXY, cXY] = kahanInc(x * p.f, sumXY, cXY);
    [sumX2, cX2] = kahanInc(x * x, sumX2, cX2);
  }
  if (constY) {
    if (initY === Infinity || initY === -Infinity) return { slope: NaN, intercept: NaN };
    return { slope: 0, intercept: initY };
  }
  sumX += cX;
  sumY += cY;
  sumXY += cXY;
  sumX2 += cX2;
  const covXY = sumXY - (sumX * sumY) / n;
  const varX = sumX2 - (sumX * sumX) / n;
  const slope = covXY / varX;
  const intercept = sumY / n - (slope * sumX) / n;
  return { slope, intercept };
}

export const funcDeriv: FunctionCall = (_vectorVals, matrixVals, _args, enh) => {
  const series = matrixVals[0];
  if (series === undefined || series.floats.length < 2) return enh.out;
  // Regress around the first sample's time to keep x small (prometheus#2674).
  const { slope } = linearRegression(series.floats, series.floats[0]!.t);
  return pushRangeResult(enh, series, slope);
};

/** predict_linear(v range-vector, t scalar): the arguments keep their positions in vectorVals. */
export const funcPredictLinear: FunctionCall = (vectorVals, matrixVals, _args, enh) => {
  const duration = scalarArg(vectorVals, 1);
  const series = matrixVals[0];
  if (duration === undefined || series === undefined || series.floats.length < 2) return enh.out;
  const { slope, intercept } = linearRegression(series.floats, enh.ts);
  return pushRangeResult(enh, series, slope * duration + intercept);
};

function calcTrendValue(i: number, tf: number, s0: number, s1: number, b: number): number {
  if (i === 0) return b;
  return tf * (s1 - s0) + (1 - tf) * b;
}

/** double_exponential_smoothing(v range-vector, sf scalar, tf scalar) (formerly holt_winters). */
export const funcDoubleExponentialSmoothing: FunctionCall = (
  vectorVals,
  matrixVals,
  _args,
  enh,
) => {
  const sf = scalarArg(vectorVals, 1);
  const tf = scalarArg(vectorVals, 2);
  const series = matrixVals[0];
  if (sf === undefined || tf === undefined || series === undefined) return enh.out;
  // `!(0 < x < 1)` rather than `x <= 0 || x >= 1` would differ on NaN: Prometheus accepts NaN.
  if (sf <= 0 || sf >= 1)
    throw new QueryExecutionError(
      `invalid smoothing factor. Expected: 0 < sf < 1, got: ${formatFloatFixed6(sf)}`,
    );
  if (tf <= 0 || tf >= 1)
    throw new QueryExecutionError(
      `invalid trend factor. Expected: 0 < tf < 1, got: ${formatFloatFixed6(tf)}`,
    );
  const points = series.floats;
  const l = points.length;
  if (l < 2) return enh.out;
  let s0 = 0;
  let s1 = points[0]!.f;
  let b = points[1]!.f - points[0]!.f;
  for (let i = 1; i < l; i++) {
    const x = sf * points[i]!.f;
    b = calcTrendValue(i - 1, tf, s0, s1, b);
    const y = (1 - sf) * (s1 + b);
    s0 = s1;
    s1 = x + y;
  }
  return pushRangeResult(enh, series, s1);
};
