// Expected values from Prometheus 3.14's functions.test (rate, increase, delta, irate, idelta).
import { describe, expect, it } from 'vitest';
import { funcDelta, funcIdelta, funcIncrease, funcIrate, funcRate } from './rate.js';
import { MINUTE, byLabels, callRange, loadSeries } from './testing.js';

const m5 = 5 * MINUTE;

describe('increase', () => {
  const series = [
    loadSeries({ __name__: 'http_requests_total', path: '/foo' }, m5, '0+10x10'),
    loadSeries({ __name__: 'http_requests_total', path: '/bar' }, m5, '0+18x5 0+18x5'),
    loadSeries({ __name__: 'http_requests_total', path: '/dings' }, m5, '10+10x10'),
    loadSeries({ __name__: 'http_requests_total', path: '/bumms' }, m5, '1+10x10'),
  ];

  it('extrapolates within the range', () => {
    const { results } = callRange(funcIncrease, series, 50 * MINUTE, 50 * MINUTE);
    expect(byLabels(results)).toEqual({
      '{path="/foo"}': 100,
      '{path="/bar"}': 160,
      '{path="/dings"}': 100,
      '{path="/bumms"}': 100,
    });
  });

  it('never extrapolates below a counter zero point', () => {
    const { results } = callRange(funcIncrease, series, 50 * MINUTE, 100 * MINUTE);
    const got = byLabels(results);
    expect(got['{path="/foo"}']).toBeCloseTo(100, 12);
    expect(got['{path="/bar"}']).toBeCloseTo(162, 12);
    expect(got['{path="/dings"}']).toBeCloseTo(105, 12);
    expect(got['{path="/bumms"}']).toBeCloseTo(101, 12);
  });

  it('treats a decrease as a reset to zero', () => {
    const s = loadSeries({ __name__: 'http_requests_total', path: '/foo' }, m5, '0 1 2 3 2 3 4');
    const { results } = callRange(funcIncrease, [s], 30 * MINUTE, 30 * MINUTE);
    expect(results[0]?.f).toBe(7);
  });
});

describe('rate', () => {
  it('handles resets in the middle and at the end of the range', () => {
    const middle = loadSeries({ __name__: 'testcounter_reset_middle_total' }, m5, '0+27x4 0+27x5');
    expect(callRange(funcRate, [middle], 50 * MINUTE, 50 * MINUTE).results[0]?.f).toBeCloseTo(
      0.08,
      15,
    );
    const end = loadSeries({ __name__: 'testcounter_reset_end_total' }, m5, '0+10x9 0 10');
    expect(callRange(funcRate, [end], 50 * MINUTE, 5 * MINUTE).results).toEqual([]);
    expect(callRange(funcRate, [end], 50 * MINUTE, 6 * MINUTE).results[0]?.f).toBe(0);
  });

  it('is per second and honours the offset', () => {
    const w = loadSeries({ __name__: 'calculate_rate_window_total' }, m5, '0+80x10');
    // The script's 0.26666666666666666 is one ulp off what Go computes (the runner compares
    // with a tolerance); Go's arithmetic gives exactly this.
    expect(callRange(funcRate, [w], 50 * MINUTE, 50 * MINUTE).results[0]?.f).toBe(
      0.2666666666666667,
    );
    const a = loadSeries({ __name__: 'calculate_rate_offset_total', x: 'a' }, m5, '0+10x10');
    const b = loadSeries({ __name__: 'calculate_rate_offset_total', x: 'b' }, m5, '0+20x10');
    const { results } = callRange(funcRate, [a, b], 50 * MINUTE, 10 * MINUTE, { offset: m5 });
    expect(byLabels(results)).toEqual({
      '{x="a"}': 0.03333333333333333,
      '{x="b"}': 0.06666666666666667,
    });
  });

  it('cuts the left extrapolation at the zero point up to half an interval', () => {
    const starts = [0, 1, 2, 3, 4, 5];
    const series = starts.map((s) =>
      loadSeries(
        { __name__: 'testcounter_zero_cutoff_total', start: `${s}m` },
        4 * MINUTE,
        `${s * 60}+240x10`,
      ),
    );
    const at10 = byLabels(callRange(funcRate, series, 10 * MINUTE, 20 * MINUTE).results);
    const want10 = [0.5, 0.55, 0.6, 0.6, 0.6, 0.6];
    starts.forEach((s, i) => expect(at10[`{start="${s}m"}`]).toBeCloseTo(want10[i]!, 12));
    const at50 = byLabels(callRange(funcRate, series, 50 * MINUTE, 20 * MINUTE).results);
    starts.forEach((s) => expect(at50[`{start="${s}m"}`]).toBeCloseTo(0.6, 12));
  });

  it('needs two samples', () => {
    const s = loadSeries({ __name__: 'x_total' }, m5, '1 2');
    expect(callRange(funcRate, [s], 5 * MINUTE, 4 * MINUTE).results).toEqual([]);
  });

  it('leaves the non-counter info to the engine', () => {
    const s = loadSeries({ __name__: 'foo' }, m5, '0+1x5');
    expect(callRange(funcRate, [s], 20 * MINUTE, 20 * MINUTE).enh.annotations.size).toBe(0);
  });

  it('propagates NaN and Inf', () => {
    const nan = loadSeries({ __name__: 'x_total' }, m5, '1 NaN 3');
    expect(callRange(funcRate, [nan], 10 * MINUTE, 10 * MINUTE).results[0]?.f).toBeNaN();
    const inf = loadSeries({ __name__: 'x_total' }, m5, '1 Inf');
    expect(callRange(funcIncrease, [inf], 5 * MINUTE, 10 * MINUTE).results[0]?.f).toBe(Infinity);
  });
});

describe('delta', () => {
  it('does not treat decreases as resets', () => {
    const series = [
      loadSeries({ __name__: 'http_requests', path: '/foo' }, m5, '0 50 100 150 200'),
      loadSeries({ __name__: 'http_requests', path: '/bar' }, m5, '200 150 100 50 0'),
    ];
    expect(byLabels(callRange(funcDelta, series, 20 * MINUTE, 20 * MINUTE).results)).toEqual({
      '{path="/foo"}': 200,
      '{path="/bar"}': -200,
    });
  });
});

describe('irate and idelta', () => {
  it('use the last two samples', () => {
    const series = [
      loadSeries({ __name__: 'http_requests_total', path: '/foo' }, m5, '0+10x10'),
      loadSeries({ __name__: 'http_requests_total', path: '/bar' }, m5, '0+10x5 0+10x5'),
    ];
    expect(byLabels(callRange(funcIrate, series, 50 * MINUTE, 50 * MINUTE).results)).toEqual({
      '{path="/foo"}': 0.03333333333333333,
      '{path="/bar"}': 0.03333333333333333,
    });
    // At 30m /bar just reset (50 -> 0): irate takes the new value as the increase.
    expect(byLabels(callRange(funcIrate, series, 30 * MINUTE, 50 * MINUTE).results)).toEqual({
      '{path="/foo"}': 0.03333333333333333,
      '{path="/bar"}': 0,
    });
    const gauges = [
      loadSeries({ __name__: 'http_requests', path: '/foo' }, m5, '0 50 100 150'),
      loadSeries({ __name__: 'http_requests', path: '/bar' }, m5, '0 50 100 50'),
    ];
    expect(byLabels(callRange(funcIdelta, gauges, 20 * MINUTE, 20 * MINUTE).results)).toEqual({
      '{path="/foo"}': 50,
      '{path="/bar"}': -50,
    });
  });

  it('follow NaN values through a range query', () => {
    const s = loadSeries({ __name__: 'http_requests_nan' }, m5, '1 NaN NaN 5 11');
    const range = 15 * MINUTE + 1000;
    const irate = [0, 5, 10, 15, 20].map(
      (m) => callRange(funcIrate, [s], m * MINUTE, range).results[0]?.f,
    );
    expect(irate[0]).toBeUndefined();
    expect(irate.slice(1, 4).every((v) => Number.isNaN(v))).toBe(true);
    expect(irate[4]).toBe(0.02);
    const idelta = [0, 5, 10, 15, 20].map(
      (m) => callRange(funcIdelta, [s], m * MINUTE, range).results[0]?.f,
    );
    expect(idelta[4]).toBe(6);
  });

  it('need two samples with distinct timestamps', () => {
    const s = loadSeries({ __name__: 'x' }, m5, '1 2');
    expect(callRange(funcIrate, [s], 5 * MINUTE, 4 * MINUTE).results).toEqual([]);
  });
});
