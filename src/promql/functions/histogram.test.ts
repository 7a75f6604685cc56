// histogram_quantile / histogram_quantiles / histogram_fraction over classic buckets and
// the bucket arithmetic: values from histograms.test plus the warnings and infos.
import { describe, expect, it } from 'vitest';
import {
  formatOpenMetricsFloat,
  funcHistogramFraction,
  funcHistogramQuantile,
  funcHistogramQuantiles,
  funcNativeHistogramOnly,
} from './histogram.js';
import { bucketFraction, bucketQuantile, quantile } from './quantile.js';
import { makeEnh, num, sample, scalar, str, vectorSelector } from './testing.js';

function buckets(name: string, extra: Record<string, string>, pairs: [string, number][]) {
  return pairs.map(([le, f]) => sample({ __name__: name, ...extra, le }, f));
}

const h3 = [
  ...buckets('testhistogram3_bucket', { start: 'positive' }, [
    ['0', 0],
    ['0.1', 50],
    ['.2', 70],
    ['1e0', 110],
    ['+Inf', 110],
  ]),
  ...buckets('testhistogram3_bucket', { start: 'negative' }, [
    ['-.25', 0],
    ['-.2', 10],
    ['-0.1', 20],
    ['0.3', 20],
    ['+Inf', 20],
  ]),
];

function quantileOf(q: number, input = h3) {
  const enh = makeEnh(0);
  const out = funcHistogramQuantile(
    [scalar(q), input],
    [],
    [num(q, 19), vectorSelector('x', 0, 24)],
    enh,
  );
  const values: Record<string, number> = {};
  for (const s of out) values[s.metric.get('start')] = s.f;
  return { values, enh, out };
}

describe('histogram_quantile', () => {
  it('interpolates inside buckets (histograms.test)', () => {
    const want: [number, number, number][] = [
      [0.25, 0.055, -0.225],
      [0.5, 0.125, -0.2],
      [0.75, 0.45, -0.15],
    ];
    for (const [q, positive, negative] of want) {
      const got = quantileOf(q).values;
      expect(got.positive).toBeCloseTo(positive, 12);
      expect(got.negative).toBeCloseTo(negative, 12);
    }
    expect(quantileOf(0).values).toEqual({ positive: 0, negative: -0.25 });
    expect(quantileOf(1).values).toEqual({ positive: 1, negative: -0.1 });
  });

  it('keeps the labels without le and drops the name later', () => {
    const s = quantileOf(0.5).out[0]!;
    expect(s.metric.toObject()).toEqual({ __name__: 'testhistogram3_bucket', start: 'positive' });
    expect(s.dropName).toBe(true);
  });

  it('warns about φ outside [0, 1]', () => {
    const { values, enh } = quantileOf(-0.1);
    expect(values).toEqual({ positive: -Infinity, negative: -Infinity });
    expect(enh.annotations.warnings()).toEqual([
      'PromQL warning: quantile value should be between 0 and 1, got -0.1 (1:20)',
    ]);
    expect(quantileOf(NaN).enh.annotations.warnings()[0]).toContain('got NaN');
  });

  it('warns about a missing or malformed le and skips the sample', () => {
    const input = [
      sample({ __name__: 'series', le: 'Hello World' }, 1),
      sample({ __name__: 'series' }, 2),
    ];
    const { out, enh } = quantileOf(0.5, input);
    expect(out).toEqual([]);
    expect(enh.annotations.warnings()).toEqual([
      'PromQL warning: bucket label "le" is missing or has a malformed value of "Hello World" for metric name "series" (1:25)',
      'PromQL warning: bucket label "le" is missing or has a malformed value of "" for metric name "series" (1:25)',
    ]);
  });

  it('forces monotonicity with an info (nonmonotonic_bucket at 50m)', () => {
    const input = buckets('nonmonotonic_bucket', {}, [
      ['0.1', 20],
      ['1', 10],
      ['10', 50],
      ['100', 40],
      ['1000', 90],
      ['+Inf', 80],
    ]);
    const r = quantileOf(0.01, input);
    expect(r.out[0]?.f).toBeCloseTo(0.0045, 12);
    expect(r.enh.annotations.infos()).toEqual([
      'PromQL info: input to histogram_quantile needed to be fixed for monotonicity (see https://prometheus.io/docs/prometheus/latest/querying/functions/#histogram_quantile) for metric name "nonmonotonic_bucket" (1:25)',
    ]);
    expect(quantileOf(0.5, input).out[0]?.f).toBe(8.5);
    expect(quantileOf(0.99, input).out[0]?.f).toBeCloseTo(979.75, 9);
  });

  it('coalesces equal bounds written differently', () => {
    const input = buckets('mixed_bucket', {}, [
      ['0.1', 1],
      ['0.2', 1],
      ['2e-1', 1],
      ['2.0e-1', 1],
      ['+Inf', 4],
    ]);
    expect(quantileOf(0.5, input).out[0]?.f).toBeCloseTo(0.15, 12);
  });
});

describe('histogram_quantiles', () => {
  it('adds the quantile label in OpenMetrics float format', () => {
    const enh = makeEnh(0);
    const out = funcHistogramQuantiles(
      [h3, [], scalar(0), scalar(0.5), scalar(1)],
      [],
      [vectorSelector('x'), str('q'), num(0), num(0.5), num(1)],
      enh,
    );
    expect(out.map((s) => `${s.metric.get('q')} ${s.metric.get('start')} ${s.f}`)).toEqual([
      '0.0 positive 0',
      '0.0 negative -0.25',
      '0.5 positive 0.125',
      '0.5 negative -0.2',
      '1.0 positive 1',
      '1.0 negative -0.1',
    ]);
  });

  it('formats label values like labels.FormatOpenMetricsFloat', () => {
    expect([0.25, 1e6, 1e-7, -1, NaN, Infinity, 12].map(formatOpenMetricsFloat)).toEqual([
      '0.25',
      '1e+06',
      '1e-07',
      '-1.0',
      'NaN',
      '+Inf',
      '12.0',
    ]);
  });
});

describe('histogram_fraction', () => {
  it('matches histograms.test for classic buckets', () => {
    const h2 = buckets('testhistogram2_bucket', {}, [
      ['0', 0],
      ['2', 10],
      ['4', 20],
      ['6', 30],
      ['+Inf', 30],
    ]);
    const frac = (lo: number, hi: number, input = h2) =>
      funcHistogramFraction(
        [scalar(lo), scalar(hi), input],
        [],
        [num(lo), num(hi), vectorSelector('x')],
        makeEnh(0),
      )[0]?.f;
    expect(frac(0, 4)).toBeCloseTo(0.6666666666666666, 15);
    expect(frac(0, 6)).toBe(1);
    expect(frac(0, 3.5)).toBeCloseTo(0.5833333333333334, 15);
  });

  it('does not interpolate inside the infinitely wide buckets', () => {
    const neg = [
      { upperBound: -3, count: 10 },
      { upperBound: -2, count: 12 },
      { upperBound: -1, count: 15 },
      { upperBound: Infinity, count: 100 },
    ];
    const pos = [
      { upperBound: 1, count: 1 },
      { upperBound: 2, count: 3 },
      { upperBound: 3, count: 6 },
      { upperBound: Infinity, count: 100 },
    ];
    expect(bucketFraction(-4, -2, neg)).toBeCloseTo(0.02, 15);
    expect(bucketFraction(-Infinity, -1.5, neg)).toBeCloseTo(0.135, 15);
    expect(bucketFraction(-Infinity, Infinity, neg)).toBe(1);
    expect(bucketFraction(0, 1.5, pos)).toBeCloseTo(0.02, 15);
    expect(bucketFraction(4, 5, pos)).toBe(0);
    expect(bucketFraction(2, 5, pos)).toBeCloseTo(0.03, 15);
    expect(bucketFraction(400, Infinity, pos)).toBeCloseTo(0.94, 15);
    expect(bucketFraction(3, 2, pos)).toBe(0);
    expect(bucketFraction(0, 1, [{ upperBound: Infinity, count: 100 }])).toBe(0);
    expect(bucketFraction(0, 5, [{ upperBound: Infinity, count: 0 }])).toBeNaN();
    expect(bucketFraction(NaN, 1, pos)).toBeNaN();
    expect(bucketFraction(0, 1, [{ upperBound: 1, count: 1 }])).toBeNaN();
    expect(bucketFraction(0, 1, [])).toBeNaN();
  });
});

describe('bucket and sample quantiles', () => {
  it('follow Prometheus’s special cases', () => {
    const b = [
      { upperBound: 1, count: 1 },
      { upperBound: Infinity, count: 2 },
    ];
    expect(bucketQuantile(NaN, b).value).toBeNaN();
    expect(bucketQuantile(-1, b).value).toBe(-Infinity);
    expect(bucketQuantile(2, b).value).toBe(Infinity);
    expect(bucketQuantile(0.5, [{ upperBound: Infinity, count: 5 }]).value).toBeNaN();
    expect(bucketQuantile(0.5, [{ upperBound: 1, count: 5 }]).value).toBeNaN();
    expect(bucketQuantile(0.99, b).value).toBe(1); // rank in the +Inf bucket
    expect(
      bucketQuantile(0.5, [
        { upperBound: 1, count: 0 },
        { upperBound: Infinity, count: 0 },
      ]).value,
    ).toBeNaN();
  });

  it('silences float noise without reporting forced monotonicity', () => {
    const r = bucketQuantile(0.5, [
      { upperBound: 1, count: 100 },
      { upperBound: 2, count: 100 - 1e-13 },
      { upperBound: Infinity, count: 200 },
    ]);
    expect(r.fixedPrecision).toBe(true);
    expect(r.forcedMonotonic).toBe(false);
  });

  it('interpolate sample quantiles with NaN smallest', () => {
    expect(quantile(0.8, [1, 0, NaN])).toBeCloseTo(0.6, 12);
    expect(quantile(0.2, [1, 0, NaN])).toBeNaN();
    expect(quantile(0.5, [])).toBeNaN();
  });
});

describe('native-histogram-only functions', () => {
  it('return nothing for float samples', () => {
    expect(funcNativeHistogramOnly([h3], [], [vectorSelector('x')], makeEnh(0))).toEqual([]);
  });
});
