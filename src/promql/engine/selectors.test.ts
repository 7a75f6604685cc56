// Selectors, lookback, staleness, offset, @ and subqueries, with expectations taken from
// Prometheus's test scripts (staleness.test, selectors.test, at_modifier.test, subquery.test).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { Labels } from '../../model/index.js';
import { Annotations } from '../annotations.js';
import { QueryContext } from './context.js';
import { Engine } from './index.js';
import { evalInstantSelector, upperBoundFrom } from './selectors.js';
import { flatten, load, series, TestStorage } from './test_helpers.js';

const S = 1000;
const M = 60 * S;

function staleness(): TestStorage {
  const st = new TestStorage();
  load(st, 10 * S, { __name__: 'metric' }, [0, 1, 'stale', 2]);
  return st;
}

describe('upperBoundFrom', () => {
  it('finds the first index at or after `from` past t, as a scan does', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 60 }), { maxLength: 80 }),
        fc.integer({ min: -5, max: 65 }),
        fc.nat(),
        (raw, t, start) => {
          const ts = Float64Array.from(raw.sort((a, b) => a - b));
          const from = start % (ts.length + 1);
          let want = from;
          while (want < ts.length && (ts[want] as number) <= t) want++;
          expect(upperBoundFrom(ts, t, from)).toBe(want);
        },
      ),
      { numRuns: 2000 },
    );
  });
});

describe('evalInstantSelector', () => {
  const ctx = (): QueryContext =>
    new QueryContext({
      maxSamples: 1_000_000,
      lookbackDelta: 5 * M,
      noStepSubqueryIntervalFn: () => M,
      functions: new Map(),
      annotations: new Annotations(),
      query: '',
      now: () => 0,
      deadline: undefined,
      signal: undefined,
      rangeQuery: true,
      delayedNameRemoval: false,
    });
  const loaded = (name: string, ts: number[]) => ({
    labels: Labels.fromObject({ __name__: name }),
    ts: Float64Array.from(ts),
    fs: Float64Array.from(ts, (t) => t / S),
    stale: null,
  });

  it('shares one timestamp array among series with a point at every step, sizes the rest exactly', () => {
    const c = ctx();
    const every = [0, 10, 20, 30].map((t) => t * S);
    const out = evalInstantSelector(
      c,
      [loaded('a', every), loaded('none', []), loaded('b', every), loaded('late', [25 * S])],
      0,
      0,
      30 * S,
      10 * S,
    );
    expect(out.map((s) => s.metric.get('__name__'))).toEqual(['a', 'b', 'late']);
    const [a, b, late] = out as [(typeof out)[0], (typeof out)[0], (typeof out)[0]];
    expect(a.ts).toEqual(every);
    expect(b.ts).toBe(a.ts);
    expect(b.fs).not.toBe(a.fs);
    expect(a.fs).toEqual([0, 10, 20, 30]);
    expect(late.ts).toEqual([30 * S]);
    expect(late.fs).toEqual([25]);
    expect(c.currentSamples).toBe(9);
  });

  it('gives a one-step evaluation arrays of its own (a step-invariant parent extends them)', () => {
    const out = evalInstantSelector(ctx(), [loaded('a', [0]), loaded('b', [0])], 0, 0, 0, 1);
    expect(out).toHaveLength(2);
    expect((out[0] as (typeof out)[0]).ts).not.toBe((out[1] as (typeof out)[0]).ts);
  });
});

describe('instant selectors', () => {
  const engine = new Engine({}, {});

  it('stops at a stale marker and resumes with the next sample', async () => {
    const st = staleness();
    const at = async (t: number): Promise<unknown> =>
      flatten((await engine.instantQuery(st, 'metric', t)).value);
    expect(await at(10 * S)).toEqual({ '{__name__="metric"}': 1 });
    expect(await at(20 * S)).toEqual({});
    expect(await at(30 * S)).toEqual({ '{__name__="metric"}': 2 });
  });

  it('looks back 5m, excluding a sample exactly 5m old', async () => {
    const st = staleness();
    expect(flatten((await engine.instantQuery(st, 'metric', 329 * S)).value)).toEqual({
      '{__name__="metric"}': 2,
    });
    expect(flatten((await engine.instantQuery(st, 'metric', 330 * S)).value)).toEqual({});
  });

  it('honours a per-query lookback delta', async () => {
    const st = staleness();
    const r = await engine.instantQuery(st, 'metric', 60 * S, { lookbackDelta: 20 * S });
    expect(flatten(r.value)).toEqual({});
    const r2 = await engine.instantQuery(st, 'metric', 45 * S, { lookbackDelta: 20 * S });
    expect(flatten(r2.value)).toEqual({ '{__name__="metric"}': 2 });
  });

  it('range selectors skip stale markers and use a left-open window', async () => {
    const st = staleness();
    const q = async (expr: string, t: number): Promise<unknown> =>
      flatten((await engine.instantQuery(st, expr, t)).value);
    expect(await q('count_over_time(metric[1m])', 30 * S)).toEqual({ '{}': 3 });
    expect(await q('count_over_time(metric[10s])', 20 * S)).toEqual({});
    expect(await q('count_over_time(metric[20s])', 20 * S)).toEqual({ '{}': 1 });
  });

  it('applies offset and @, including negative offsets', async () => {
    const st = new TestStorage();
    load(st, 10 * S, { __name__: 'metric', job: '1' }, series(0, 1, 20));
    const q = async (expr: string, t: number): Promise<unknown> =>
      flatten((await engine.instantQuery(st, expr, t)).value);
    expect(await q('metric offset 50s', 100 * S)).toEqual({ '{__name__="metric", job="1"}': 5 });
    expect(await q('metric offset -50s', 100 * S)).toEqual({ '{__name__="metric", job="1"}': 15 });
    expect(await q('metric @ 100', 10 * S)).toEqual({ '{__name__="metric", job="1"}': 10 });
    expect(await q('metric @ 100 offset 50s', 10 * S)).toEqual({
      '{__name__="metric", job="1"}': 5,
    });
    expect(await q('sum_over_time(metric[20s] @ 100)', 0)).toEqual({ '{job="1"}': 19 });
  });

  it('resolves @ start() and @ end() against the query range', async () => {
    const st = new TestStorage();
    load(st, 10 * S, { __name__: 'metric' }, series(0, 1, 20));
    const r = await engine.rangeQuery(
      st,
      'metric @ end() - metric @ start()',
      50 * S,
      150 * S,
      50 * S,
    );
    expect(flatten(r.value)).toEqual({
      '{}': [
        [50 * S, 10],
        [100 * S, 10],
        [150 * S, 10],
      ],
    });
  });

  it('returns a matrix for a top-level range selector of an instant query', async () => {
    const st = staleness();
    const r = await engine.instantQuery(st, 'metric[30s]', 30 * S);
    expect(r.value.type).toBe('matrix');
    expect(flatten(r.value)).toEqual({
      '{__name__="metric"}': [
        [10 * S, 1],
        [30 * S, 2],
      ],
    });
  });

  it('rejects a range selector as a range query', async () => {
    await expect(engine.rangeQuery(staleness(), 'metric[1m]', 0, M, S)).rejects.toMatchObject({
      errorType: 'bad_data',
      message:
        'invalid expression type "range vector" for range query, must be Scalar or instant Vector',
    });
  });

  it('timestamp() reads the sample time, not the step time', async () => {
    const st = staleness();
    const r = await engine.instantQuery(st, 'timestamp(metric)', 45 * S);
    expect(flatten(r.value)).toEqual({ '{}': 30 });
    const r2 = await engine.instantQuery(st, 'timestamp(metric @ 15)', 100 * S);
    expect(flatten(r2.value)).toEqual({ '{}': 10 });
  });
});

describe('subqueries', () => {
  const engine = new Engine({ noStepSubqueryIntervalFn: () => M }, {});

  function counter(): TestStorage {
    const st = new TestStorage();
    load(st, 10 * S, { __name__: 'metric_total' }, [1, 2]);
    return st;
  }

  it('aligns steps to absolute multiples of the step (subquery.test)', async () => {
    const st = counter();
    const q = async (expr: string, t: number): Promise<unknown> =>
      flatten((await engine.instantQuery(st, expr, t)).value);
    expect(await q('sum_over_time(metric_total[50s:10s])', 10 * S)).toEqual({ '{}': 3 });
    expect(await q('sum_over_time(metric_total[50s:5s])', 10 * S)).toEqual({ '{}': 4 });
    expect(await q('sum_over_time(metric_total[50s:10s])', 5 * M)).toEqual({ '{}': 10 });
    expect(await q('sum_over_time(metric_total[60s:10s])', 5 * M + 59 * S)).toEqual({ '{}': 2 });
    expect(await q('rate(metric_total[20s:10s])', 10 * S)).toEqual({ '{}': 0.1 });
    expect(await q('rate(metric_total[20s:5s])', 20 * S)).toEqual({ '{}': 0.06666666666666667 });
  });

  it('uses the default step and nests', async () => {
    const st = new TestStorage();
    load(st, 10 * S, { __name__: 'm' }, series(0, 1, 100));
    const r = await engine.instantQuery(st, 'count_over_time(m[5m:])', 10 * M);
    expect(flatten(r.value)).toEqual({ '{}': 5 });
    const nested = await engine.instantQuery(
      st,
      'max_over_time(count_over_time(m[1m:10s])[3m:1m])',
      10 * M,
    );
    expect(flatten(nested.value)).toEqual({ '{}': 6 });
  });

  it('leaves out the left bound (engine_test.go TestAtModifier)', async () => {
    const st = new TestStorage();
    load(st, 10 * S, { __name__: 'metric', job: '1' }, series(0, 1, 100));
    const r = await engine.instantQuery(st, 'metric[100s:25s] @ 300', 100 * S);
    expect(flatten(r.value)).toEqual({
      '{__name__="metric", job="1"}': [
        [225 * S, 22],
        [250 * S, 25],
        [275 * S, 27],
        [300 * S, 30],
      ],
    });
    const legacy = await engine.instantQuery(st, 'metric[100s1ms:25s] @ 300', 100 * S);
    expect(flatten(legacy.value)).toEqual({
      '{__name__="metric", job="1"}': [
        [200 * S, 20],
        [225 * S, 22],
        [250 * S, 25],
        [275 * S, 27],
        [300 * S, 30],
      ],
    });
  });

  it('aligns steps before the epoch like Go integer division', async () => {
    const st = new TestStorage();
    const neg = Labels.fromStrings('__name__', 'metric_neg');
    for (let t = -1_000_000; t <= 0; t += 1000) st.add(neg, t, -t / 1000 + 1);
    const r = await engine.instantQuery(st, 'metric_neg[50s1ms:25s] @ -100', 100 * S);
    expect(flatten(r.value)).toEqual({
      '{__name__="metric_neg"}': [
        [-150 * S, 151],
        [-125 * S, 126],
        [-100 * S, 101],
      ],
    });
    const ts = new TestStorage();
    ts.add(Labels.fromStrings('__name__', 'metric_timestamp'), 3600 * S, 1000);
    const t = await engine.rangeQuery(ts, 'timestamp(metric_timestamp @ 3600)', 0, 7 * M, M);
    expect(flatten(t.value)).toEqual({ '{}': [0, 1, 2, 3, 4, 5, 6, 7].map((i) => [i * M, 3600]) });
  });

  it('evaluates a top-level subquery of an instant query to a matrix', async () => {
    const st = counter();
    const r = await engine.instantQuery(st, 'metric_total[20s:10s]', 10 * S);
    expect(flatten(r.value)).toEqual({
      '{__name__="metric_total"}': [
        [0, 1],
        [10 * S, 2],
      ],
    });
  });
});
