// rate, increase, delta (extrapolatedRate) and irate, idelta (instantValue) of Prometheus 3
// functions.go, for float samples. The window is (t - offset - range, t - offset]; the
// engine passes only the points inside it. The "metric might not be a counter" info for
// rate/increase is the engine's (Prometheus adds it in engine.go, once per series).
import type { FunctionCall } from '../function_call.js';
import { durationSeconds, matrixWindow, pushRangeResult } from './common.js';

function extrapolatedRate(isCounter: boolean, isRate: boolean): FunctionCall {
  return (_vectorVals, matrixVals, args, enh) => {
    const series = matrixVals[0];
    if (series === undefined) return enh.out;
    const points = series.floats;
    const n = points.length;
    // Fewer than two samples: no rate (Prometheus has a TODO for a RangeTooShortWarning).
    if (n < 2) return enh.out;
    const first = points[0]!;
    const last = points[n - 1]!;
    const { range, offset } = matrixWindow(args[0]);
    const rangeStart = enh.ts - (range + offset);
    const rangeEnd = enh.ts - offset;

    let result = last.f - first.f;
    if (isCounter) {
      for (let i = 1; i < n; i++) {
        const prev = points[i - 1]!.f;
        if (points[i]!.f < prev) result += prev;
      }
    }

    let durationToStart = (first.t - rangeStart) / 1000;
    let durationToEnd = (rangeEnd - last.t) / 1000;
    const sampledInterval = (last.t - first.t) / 1000;
    const averageDurationBetweenSamples = sampledInterval / (n - 1);

    // Extrapolate to a boundary only when a sample is "close enough" to it (within 110% of
    // the average spacing); otherwise assume the series starts/ends half a spacing away.
    const extrapolationThreshold = averageDurationBetweenSamples * 1.1;
    if (durationToStart >= extrapolationThreshold)
      durationToStart = averageDurationBetweenSamples / 2;
    if (isCounter) {
      // A counter cannot go below zero: never extrapolate further back than its zero point.
      let durationToZero = durationToStart;
      if (result > 0 && first.f >= 0) durationToZero = sampledInterval * (first.f / result);
      if (durationToZero < durationToStart) durationToStart = durationToZero;
    }
    if (durationToEnd >= extrapolationThreshold) durationToEnd = averageDurationBetweenSamples / 2;

    let factor = (sampledInterval + durationToStart + durationToEnd) / sampledInterval;
    if (isRate) factor /= durationSeconds(range);
    result *= factor;

    return pushRangeResult(enh, series, result);
  };
}

function instantValue(isRate: boolean): FunctionCall {
  return (_vectorVals, matrixVals, _args, enh) => {
    const series = matrixVals[0];
    if (series === undefined) return enh.out;
    const points = series.floats;
    if (points.length < 2) return enh.out;
    const prev = points[points.length - 2]!;
    const last = points[points.length - 1]!;
    const sampledInterval = last.t - prev.t;
    if (sampledInterval === 0) return enh.out; // avoid dividing by zero
    // On a counter reset irate uses the last value as the increase (NaN compares false).
    let result = last.f;
    if (!isRate || !(last.f < prev.f)) result = last.f - prev.f;
    if (isRate) result /= sampledInterval / 1000;
    return pushRangeResult(enh, series, result);
  };
}

export const funcRate: FunctionCall = extrapolatedRate(true, true);
export const funcIncrease: FunctionCall = extrapolatedRate(true, false);
export const funcDelta: FunctionCall = extrapolatedRate(false, false);
export const funcIrate: FunctionCall = instantValue(true);
export const funcIdelta: FunctionCall = instantValue(false);
