// Column versions of the most used range functions, reading the window straight from the
// series' arrays instead of copying it into point objects for the function-call contract
// (both engines use them). Each
// one repeats the function library's arithmetic operation for operation (rate.ts,
// over_time.ts), so results are bit-identical; the differential test holds them to that.
import { kahanInc } from './common.js';
import { kahanMean } from './over_time.js';
import type { PointWindow } from './point_window.js';

/** The function's value over the window at `ts`, or undefined for no output. */
export type ColumnKernel = (
  w: PointWindow,
  ts: number,
  range: number,
  offset: number,
) => number | undefined;

/** Go's time.Duration.Seconds() for a whole number of milliseconds. */
function durationSeconds(ms: number): number {
  const whole = Math.trunc(ms / 1000);
  return whole + ((ms - whole * 1000) * 1e6) / 1e9;
}

function extrapolatedRate(isCounter: boolean, isRate: boolean): ColumnKernel {
  return (w, ts, range, offset) => {
    const n = w.length;
    if (n < 2) return undefined;
    const firstT = w.t(0);
    const firstF = w.f(0);
    const lastT = w.t(n - 1);
    const lastF = w.f(n - 1);
    const rangeStart = ts - (range + offset);
    const rangeEnd = ts - offset;
    let result = lastF - firstF;
    if (isCounter) {
      let prev = firstF;
      for (let i = 1; i < n; i++) {
        const f = w.f(i);
        if (f < prev) result += prev;
        prev = f;
      }
    }
    let durationToStart = (firstT - rangeStart) / 1000;
    let durationToEnd = (rangeEnd - lastT) / 1000;
    const sampledInterval = (lastT - firstT) / 1000;
    const averageDurationBetweenSamples = sampledInterval / (n - 1);
    const extrapolationThreshold = averageDurationBetweenSamples * 1.1;
    if (durationToStart >= extrapolationThreshold)
      durationToStart = averageDurationBetweenSamples / 2;
    if (isCounter) {
      let durationToZero = durationToStart;
      if (result > 0 && firstF >= 0) durationToZero = sampledInterval * (firstF / result);
      if (durationToZero < durationToStart) durationToStart = durationToZero;
    }
    if (durationToEnd >= extrapolationThreshold) durationToEnd = averageDurationBetweenSamples / 2;
    let factor = (sampledInterval + durationToStart + durationToEnd) / sampledInterval;
    if (isRate) factor /= durationSeconds(range);
    return result * factor;
  };
}

function instantValue(isRate: boolean): ColumnKernel {
  return (w) => {
    const n = w.length;
    if (n < 2) return undefined;
    const prevT = w.t(n - 2);
    const prevF = w.f(n - 2);
    const lastT = w.t(n - 1);
    const lastF = w.f(n - 1);
    const sampledInterval = lastT - prevT;
    if (sampledInterval === 0) return undefined;
    let result = lastF;
    if (!isRate || !(lastF < prevF)) result = lastF - prevF;
    if (isRate) result /= sampledInterval / 1000;
    return result;
  };
}

const sumOverTime: ColumnKernel = (w) => {
  let sum = 0;
  let c = 0;
  for (let i = 0; i < w.length; i++) [sum, c] = kahanInc(w.f(i), sum, c);
  if (sum === Infinity || sum === -Infinity) return sum;
  return sum + c;
};

const avgOverTime: ColumnKernel = (w) => kahanMean(w.length, (i) => w.f(i));

function extremum(better: (cur: number, kept: number) => boolean): ColumnKernel {
  return (w) => {
    let kept = w.f(0);
    for (let i = 0; i < w.length; i++) {
      const f = w.f(i);
      if (better(f, kept)) kept = f;
    }
    return kept;
  };
}

/** Range functions with a column kernel (no scalar arguments, no annotations). */
export const COLUMN_KERNELS: ReadonlyMap<string, ColumnKernel> = new Map<string, ColumnKernel>([
  ['rate', extrapolatedRate(true, true)],
  ['increase', extrapolatedRate(true, false)],
  ['delta', extrapolatedRate(false, false)],
  ['irate', instantValue(true)],
  ['idelta', instantValue(false)],
  ['sum_over_time', sumOverTime],
  ['avg_over_time', avgOverTime],
  ['count_over_time', (w) => w.length],
  ['present_over_time', () => 1],
  ['last_over_time', (w) => w.f(w.length - 1)],
  ['first_over_time', (w) => w.f(0)],
  ['max_over_time', extremum((cur, kept) => cur > kept || Number.isNaN(kept))],
  ['min_over_time', extremum((cur, kept) => cur < kept || Number.isNaN(kept))],
]);
