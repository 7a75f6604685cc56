// Function calls the engine evaluates itself or wraps: label_replace/label_join per series,
// range functions over selectors and subqueries, absent_over_time, timestamp(), the
// rate/increase counter hint, the sort warning of range queries, and the query-context
// functions. Expectations from Prometheus's functions.test and range_queries.test.
import { describe, expect, it } from 'vitest';
import { Engine } from './index.js';
import { flatten, load, series, TestStorage } from './test_helpers.js';

const S = 1000;
const M = 60 * S;
const engine = new Engine({}, {});

describe('label_replace and label_join', () => {
  function overlapping(): TestStorage {
    const st = new TestStorage();
    load(st, 20 * M, { __name__: 'series', label: 'a', idx: '1' }, [2, undefined]);
    load(st, 20 * M, { __name__: 'series', label: 'a', idx: '2' }, [undefined, 4]);
    return st;
  }

  it('merges series that become equal when their points do not collide', async () => {
    const r = await engine.rangeQuery(
      overlapping(),
      'label_replace(series, "idx", "replaced", "idx", ".*")',
      0,
      20 * M,
      20 * M,
    );
    expect(flatten(r.value)).toEqual({
      '{__name__="series", idx="replaced", label="a"}': [
        [0, 2],
        [20 * M, 4],
      ],
    });
    const j = await engine.instantQuery(
      overlapping(),
      'label_join(series, "idx", ",", "label", "label")',
      0,
    );
    expect(flatten(j.value)).toEqual({ '{__name__="series", idx="a,a", label="a"}': 2 });
  });

  it('fails when they collide', async () => {
    const st = new TestStorage();
    load(st, M, { __name__: 'overlap', label: 'a', idx: '1' }, [1]);
    load(st, M, { __name__: 'overlap', label: 'a', idx: '2' }, [2]);
    await expect(
      engine.instantQuery(st, 'label_join(overlap, "idx", ",", "label", "label")', 0),
    ).rejects.toThrow('vector cannot contain metrics with the same labelset');
  });

  it('validates the regular expression even without input', async () => {
    await expect(
      engine.instantQuery(new TestStorage(), 'label_replace(nothing, "a", "b", "c", "(")', 0),
    ).rejects.toMatchObject({ errorType: 'execution' });
  });
});

describe('range functions', () => {
  function counter(): TestStorage {
    const st = new TestStorage();
    load(st, 5 * M, { __name__: 'http_requests', job: 'a' }, series(0, 10, 10));
    return st;
  }

  it('rate over a selector and over a subquery', async () => {
    expect(
      flatten((await engine.instantQuery(counter(), 'rate(http_requests[25m])', 50 * M)).value),
    ).toEqual({
      '{job="a"}': 0.03333333333333333,
    });
    const sub = await engine.instantQuery(
      counter(),
      'max_over_time(http_requests[20m:5m] offset 5m)',
      50 * M,
    );
    expect(flatten(sub.value)).toEqual({ '{job="a"}': 90 });
  });

  it('adds the counter hint for rate over names without counter suffixes', async () => {
    const r = await engine.instantQuery(counter(), 'rate(http_requests[25m])', 50 * M);
    expect(r.annotations.infos()).toEqual([
      'PromQL info: metric might not be a counter, name does not end in _total/_sum/_count/_bucket: "http_requests" (1:6)',
    ]);
  });

  it('absent_over_time fills the steps where nothing is present', async () => {
    const r = await engine.rangeQuery(
      counter(),
      'absent_over_time(http_requests{job="a"}[1m])',
      0,
      10 * M,
      2 * M,
    );
    expect(flatten(r.value)).toEqual({
      '{job="a"}': [
        [2 * M, 1],
        [4 * M, 1],
        [6 * M, 1],
        [8 * M, 1],
      ],
    });
  });
});

describe('engine-level functions', () => {
  it('warns that sort is ineffective in range queries', async () => {
    const r = await engine.rangeQuery(new TestStorage(), 'sort(vector(1))', 0, M, M);
    expect(r.annotations.warnings()).toEqual([
      'PromQL warning: sort is ineffective for range queries since results are always ordered by labels (1:1)',
    ]);
    const i = await engine.instantQuery(new TestStorage(), 'sort(vector(1))', 0);
    expect(i.annotations.size).toBe(0);
  });

  it('resolves step(), range(), start(), end() and evaluates min_of/max_of', async () => {
    const r = await engine.rangeQuery(
      new TestStorage(),
      'step() + range() + start() + end()',
      10 * S,
      30 * S,
      10 * S,
    );
    expect(flatten(r.value)).toEqual({
      '{}': [
        [10 * S, 10 + 20 + 10 + 30],
        [20 * S, 70],
        [30 * S, 70],
      ],
    });
    expect(
      flatten((await engine.instantQuery(new TestStorage(), 'min_of(3, NaN)', 0)).value),
    ).toBeNaN();
    expect(flatten((await engine.instantQuery(new TestStorage(), 'max_of(3, 5)', 0)).value)).toBe(
      5,
    );
  });

  it('timestamp() follows the sample through a range query', async () => {
    const st = new TestStorage();
    load(st, 30 * S, { __name__: 'm' }, [1, 2, 3]);
    const r = await engine.rangeQuery(st, 'timestamp(m)', 0, 60 * S, 20 * S);
    expect(flatten(r.value)).toEqual({
      '{}': [
        [0, 0],
        [20 * S, 0],
        [40 * S, 30],
        [60 * S, 60],
      ],
    });
  });
});
