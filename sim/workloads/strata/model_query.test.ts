import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { QuerySpec } from './config.js';
import { diffVectors, evaluateQuery, parseVectorResult, type ModelSeries } from './model_query.js';

const S = 1_000;

function series(name: string, id: string, points: [number, number][]): ModelSeries {
  return {
    labels: [
      ['__name__', name],
      ['id', id],
    ],
    points: new Map(points),
  };
}

const spec = (kind: QuerySpec['kind'], rangeMs = 60 * S): QuerySpec => ({
  kind,
  tenant: 't',
  metric: 'm',
  rangeMs,
  atMs: [],
});

const data = [
  series('m', '1', [
    [0, 1],
    [30 * S, 4],
    [60 * S, 6],
  ]),
  series('m', '2', [[50 * S, 10]]),
  series('other', '3', [[60 * S, 100]]),
];

describe('evaluateQuery', () => {
  it('range functions use the left-open window (t - range, t] and drop the metric name', () => {
    expect(evaluateQuery(spec('count_over_time'), 60 * S, data)).toEqual(
      new Map([
        ['{id="1"}', 2],
        ['{id="2"}', 1],
      ]),
    );
    expect(evaluateQuery(spec('sum_over_time'), 60 * S, data).get('{id="1"}')).toBe(10);
    expect(evaluateQuery(spec('max_over_time'), 60 * S, data).get('{id="1"}')).toBe(6);
    expect(evaluateQuery(spec('sum_count_over_time'), 60 * S, data)).toEqual(new Map([['{}', 3]]));
    expect(evaluateQuery(spec('count_over_time'), 200 * S, data)).toEqual(new Map());
    expect(evaluateQuery(spec('sum_count_over_time'), 200 * S, data)).toEqual(new Map());
  });

  it('instant aggregations take the newest sample within the 5m lookback (exclusive at 5m)', () => {
    expect(evaluateQuery(spec('sum'), 60 * S, data)).toEqual(new Map([['{}', 16]]));
    expect(evaluateQuery(spec('count'), 60 * S, data)).toEqual(new Map([['{}', 2]]));
    expect(evaluateQuery(spec('count'), 350 * S, data)).toEqual(new Map([['{}', 1]]));
    expect(evaluateQuery(spec('count'), 360 * S, data)).toEqual(new Map());
    expect(evaluateQuery(spec('sum'), 40 * S, data)).toEqual(new Map([['{}', 4]]));
  });

  it('sum(count_over_time) equals the sum of count_over_time over any data', () => {
    const point = fc.tuple(fc.integer({ min: 0, max: 600 }), fc.integer({ min: -5, max: 5 }));
    fc.assert(
      fc.property(
        fc.array(fc.uniqueArray(point, { selector: ([t]) => t, maxLength: 20 }), { maxLength: 5 }),
        fc.integer({ min: 0, max: 700 }),
        fc.integer({ min: 1, max: 300 }),
        (seriesPoints, at, range) => {
          const d = seriesPoints.map((p, i) => series('m', String(i), p));
          const per = evaluateQuery(spec('count_over_time', range), at, d);
          const total = evaluateQuery(spec('sum_count_over_time', range), at, d);
          const sum = [...per.values()].reduce((a, b) => a + b, 0);
          expect(total.get('{}')).toBe(per.size === 0 ? undefined : sum);
        },
      ),
    );
  });
});

describe('parseVectorResult and diffVectors', () => {
  it('reads a Prometheus vector and names every difference', () => {
    const got = parseVectorResult({
      resultType: 'vector',
      result: [
        { metric: { id: '1' }, value: [60, '2'] },
        { metric: { id: '9' }, value: [60, '1'] },
      ],
    });
    expect(got).toEqual(
      new Map([
        ['{id="1"}', 2],
        ['{id="9"}', 1],
      ]),
    );
    const want = new Map([
      ['{id="1"}', 3],
      ['{id="2"}', 1],
    ]);
    expect(diffVectors(got, want)).toEqual([
      '{id="1"} = 2, model says 3',
      'missing {id="2"} (model: 1)',
      'unexpected {id="9"} = 1',
    ]);
    expect(diffVectors(want, want)).toEqual([]);
    expect(() => parseVectorResult({ resultType: 'matrix', result: [] })).toThrow(/vector/);
  });
});
