import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { QuerySpec } from './config.js';
import {
  diffVectors,
  evaluateQuery,
  parseVectorResult,
  queryWindow,
  type ModelSeries,
} from './model_query.js';

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

  it('takes points in time order whatever order the series holds them in', () => {
    // Float sums depend on the order of the terms: 0.1 + 0.2 + 0.3 ≠ 0.3 + 0.2 + 0.1.
    const shuffled = series('m', '1', [
      [3 * S, 0.3],
      [2 * S, 0.2],
      [1 * S, 0.1],
    ]);
    expect(evaluateQuery(spec('sum_over_time'), 10 * S, [shuffled]).get('{id="1"}')).toBe(
      0.1 + 0.2 + 0.3,
    );
    expect(evaluateQuery(spec('sum'), 2_500, [shuffled])).toEqual(new Map([['{}', 0.2]]));
  });

  it('reads nothing outside its window: the longer of range and lookback, up to its time', () => {
    const w = queryWindow(spec('count_over_time', 60 * S), 400 * S);
    expect(w).toEqual({ afterMs: 100 * S, untilMs: 400 * S });
    expect(queryWindow(spec('count_over_time', 600 * S), 700 * S).afterMs).toBe(100 * S);
    const edge = series('m', '1', [
      [w.afterMs, 1],
      [w.untilMs + 1, 2],
    ]);
    for (const kind of ['count_over_time', 'count', 'sum_count_over_time'] as const)
      expect(evaluateQuery(spec(kind, 60 * S), 400 * S, [edge])).toEqual(new Map());
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
