// deriv, predict_linear and double_exponential_smoothing: values from functions.test and
// the regression arithmetic's special cases.
import { describe, expect, it } from 'vitest';
import { QueryExecutionError } from '../errors.js';
import {
  funcDeriv,
  funcDoubleExponentialSmoothing,
  funcPredictLinear,
  linearRegression,
} from './regression.js';
import { MINUTE, callRange, loadSeries } from './testing.js';

const m5 = 5 * MINUTE;
const resetMiddle = loadSeries({ __name__: 'testcounter_reset_middle_total' }, m5, '0+10x4 0+10x5');

describe('linear regression', () => {
  it('fits the documented example', () => {
    // functions.test: slope 0.010606060606060607, intercept 6.818181818181818 at t=0.
    const { slope, intercept } = linearRegression(resetMiddle.floats, 0);
    expect(slope).toBeCloseTo(0.010606060606060607, 15);
    expect(intercept).toBeCloseTo(6.818181818181818, 12);
  });

  it('gives slope 0 for constant series and NaN for infinite ones', () => {
    expect(
      linearRegression(
        [
          { t: 0, f: 3 },
          { t: 1000, f: 3 },
        ],
        0,
      ),
    ).toEqual({ slope: 0, intercept: 3 });
    const inf = linearRegression(
      [
        { t: 0, f: Infinity },
        { t: 1000, f: Infinity },
      ],
      0,
    );
    expect(inf.slope).toBeNaN();
  });
});

describe('deriv and predict_linear', () => {
  it('match the script values', () => {
    expect(
      callRange(funcDeriv, [resetMiddle], 50 * MINUTE, 100 * MINUTE).results[0]?.f,
    ).toBeCloseTo(0.010606060606060607, 15);
    const p = callRange(funcPredictLinear, [resetMiddle], 50 * MINUTE, 50 * MINUTE, {
      after: [3600],
    });
    expect(p.results[0]?.f).toBeCloseTo(70, 10);
  });

  it('need two samples', () => {
    const s = loadSeries({ __name__: 'x' }, m5, '1');
    expect(callRange(funcDeriv, [s], 0, MINUTE).results).toEqual([]);
    expect(callRange(funcPredictLinear, [s], 0, MINUTE, { after: [60] }).results).toEqual([]);
  });

  it('return NaN around infinities', () => {
    const s = loadSeries({ __name__: 'x' }, m5, '-Inf 0+80x10 Inf');
    expect(callRange(funcDeriv, [s], 100 * MINUTE, 100 * MINUTE).results[0]?.f).toBeNaN();
  });
});

describe('double_exponential_smoothing', () => {
  it('smooths a linear trend onto the line', () => {
    const s = loadSeries({ __name__: 'x' }, 10_000, '0+10x20');
    const r = callRange(funcDoubleExponentialSmoothing, [s], 200_000, 200_000, {
      after: [0.5, 0.5],
    });
    expect(r.results[0]?.f).toBeCloseTo(200, 9);
  });

  it('rejects factors outside (0, 1) with Prometheus’s message', () => {
    const s = loadSeries({ __name__: 'x' }, 10_000, '0 1 2');
    expect(() =>
      callRange(funcDoubleExponentialSmoothing, [s], 20_000, 60_000, { after: [1, 0.5] }),
    ).toThrow(
      new QueryExecutionError('invalid smoothing factor. Expected: 0 < sf < 1, got: 1.000000'),
    );
    expect(() =>
      callRange(funcDoubleExponentialSmoothing, [s], 20_000, 60_000, { after: [0.5, -0.25] }),
    ).toThrow('invalid trend factor. Expected: 0 < tf < 1, got: -0.250000');
  });

  it('needs two samples', () => {
    const s = loadSeries({ __name__: 'x' }, 10_000, '1');
    expect(
      callRange(funcDoubleExponentialSmoothing, [s], 0, 60_000, { after: [0.5, 0.5] }).results,
    ).toEqual([]);
  });
});
