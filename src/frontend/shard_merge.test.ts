// Re-aggregation of shard answers: ungrouped count/min/max/sum/avg per step, topk/bottomk
// over the shards' candidates, the cases that must run whole (ties, signed zeros), and the
// headers and annotations a merged answer keeps.
import { describe, expect, it } from 'vitest';
import { Labels } from '../model/index.js';
import { EMPTY_HEADERS, type RangeResponse } from './range_response.js';
import { mergeShardResponses } from './shard_merge.js';
import { planSharding, type ShardPlan } from './shard_rewrite.js';

function plan(query: string): ShardPlan {
  const d = planSharding(query);
  if (!d.shardable) throw new Error(d.reason);
  return d.plan;
}

/** One answer: series given as label value of `s` → [t, f] points. */
function answer(
  series: Record<string, [number, number][]>,
  extra: Partial<RangeResponse> = {},
): RangeResponse {
  return {
    series: Object.entries(series).map(([s, points]) => ({
      metric: s === '' ? Labels.EMPTY : Labels.fromStrings('s', s),
      floats: points.map(([t, f]) => ({ t, f })),
    })),
    warnings: [],
    infos: [],
    headers: EMPTY_HEADERS,
    ...extra,
  };
}

function points(resp: RangeResponse | undefined): Record<string, [number, number][]> {
  if (resp === undefined) throw new Error('no merged answer');
  return Object.fromEntries(
    resp.series.map((s) => [s.metric.get('s'), s.floats.map((p) => [p.t, p.f])]),
  );
}

describe('ungrouped re-aggregation', () => {
  const shards = [
    answer({
      '': [
        [1, 2],
        [2, NaN],
        [3, 5],
      ],
    }),
    answer({
      '': [
        [1, 3],
        [2, 4],
      ],
    }),
    answer({}),
  ];

  it.each([
    [
      'count(x)',
      [
        [1, 5],
        [2, NaN],
        [3, 5],
      ],
    ],
    [
      'sum(x)',
      [
        [1, 5],
        [2, NaN],
        [3, 5],
      ],
    ],
    [
      'min(x)',
      [
        [1, 2],
        [2, 4],
        [3, 5],
      ],
    ],
    [
      'max(x)',
      [
        [1, 3],
        [2, 4],
        [3, 5],
      ],
    ],
  ])('%s', (query, want) => {
    expect(points(mergeShardResponses(plan(query), [shards]))).toEqual({ '': want });
  });

  it('divides summed sums by summed counts for avg', () => {
    const sums = [
      answer({ '': [[1, 3]] }),
      answer({
        '': [
          [1, 6],
          [2, 1],
        ],
      }),
    ];
    const counts = [
      answer({ '': [[1, 1]] }),
      answer({
        '': [
          [1, 2],
          [2, 4],
        ],
      }),
    ];
    expect(points(mergeShardResponses(plan('avg(x)'), [sums, counts]))).toEqual({
      '': [
        [1, 3],
        [2, 0.25],
      ],
    });
  });

  it('runs whole when shards disagree on the sign of a zero min or max', () => {
    const zeros = [answer({ '': [[1, -0]] }), answer({ '': [[1, 0]] })];
    expect(mergeShardResponses(plan('min(x)'), [zeros])).toBeUndefined();
    expect(mergeShardResponses(plan('max(x)'), [zeros])).toBeUndefined();
    const same = [
      answer({ '': [[1, -0]] }),
      answer({
        '': [
          [1, -0],
          [2, 1],
        ],
      }),
    ];
    expect(Object.is(points(mergeShardResponses(plan('min(x)'), [same]))['']?.[0]?.[1], -0)).toBe(
      true,
    );
  });
});

describe('topk/bottomk', () => {
  it('keeps the k best candidates per step, NaN last', () => {
    const shards = [
      answer({
        a: [
          [1, 5],
          [2, NaN],
        ],
        b: [
          [1, 1],
          [2, 3],
        ],
      }),
      answer({
        c: [
          [1, 9],
          [2, -Infinity],
        ],
      }),
    ];
    expect(points(mergeShardResponses(plan('topk(2, x)'), [shards]))).toEqual({
      a: [[1, 5]],
      b: [[2, 3]],
      c: [
        [1, 9],
        [2, -Infinity],
      ],
    });
    expect(points(mergeShardResponses(plan('bottomk(1, x)'), [shards]))).toEqual({
      b: [[1, 1]],
      c: [[2, -Infinity]],
    });
  });

  it('runs whole on a tie at the k-th value, which the k+1 candidates of a shard show', () => {
    const seen = [answer({ a: [[1, 5]], b: [[1, 5]] }), answer({ c: [[1, 9]] })];
    expect(mergeShardResponses(plan('topk(2, x)'), [seen])).toBeUndefined();
    // The first shard answered k+1 = 3 series: none it dropped beats its third, 4.
    const clear = [answer({ a: [[1, 5]], b: [[1, 7]], d: [[1, 4]] }), answer({ c: [[1, 9]] })];
    expect(points(mergeShardResponses(plan('topk(2, x)'), [clear]))).toEqual({
      b: [[1, 7]],
      c: [[1, 9]],
    });
  });
});

describe('merged answers', () => {
  it('put grouped shards together in label order, keeping headers and annotations once', () => {
    const shards = [
      answer(
        { b: [[1, 2]] },
        {
          infos: ['i1'],
          warnings: ['w'],
          headers: new Map([['cache-control', ['no-store']]]),
        },
      ),
      answer({ a: [[1, 1]], c: [[1, 3]] }, { infos: ['i1', 'i2'] }),
    ];
    const merged = mergeShardResponses(plan('sum by (s) (x)'), [shards]);
    expect(merged?.series.map((s) => s.metric.get('s'))).toEqual(['a', 'b', 'c']);
    expect(merged?.infos).toEqual(['i1', 'i2']);
    expect(merged?.warnings).toEqual(['w']);
    expect(merged?.headers.get('cache-control')).toEqual(['no-store']);
  });
});
