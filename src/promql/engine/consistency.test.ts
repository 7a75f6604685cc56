// A property Prometheus's engine keeps by construction: a range query's value at each step
// equals the instant query at that time (both are range evaluations; an instant query is
// one step). Checked over random data with stale markers and gaps, for expressions covering
// selectors, offsets, range functions, subqueries, aggregations and vector matching.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { QueryResult } from '../query.js';
import type { QueryValue } from '../value.js';
import { Engine } from './index.js';
import { load, TestStorage, type LoadValue } from './test_helpers.js';

const S = 1000;
const engine = new Engine({ noStepSubqueryIntervalFn: () => 20 * S }, {});

const EXPRESSIONS = [
  'm',
  'm offset 30s',
  '-m',
  'rate(m[1m])',
  'max_over_time(m[45s] offset 15s)',
  'sum by (job) (m)',
  'avg without (job) (m)',
  'count(m > 3)',
  'topk(1, m)',
  'm / on(job) group_left sum by (job) (m)',
  'm and on(job) m offset 1m',
  'm or m offset 1m',
  'sum_over_time(m[1m:20s])',
  'quantile(0.5, m)',
  'stddev by (job) (m)',
  'count_values("v", m)',
  'timestamp(m)',
  'absent(m{job="nope"})',
  'm @ 100',
];

const value = fc.oneof(
  { weight: 8, arbitrary: fc.integer({ min: -5, max: 20 }) },
  { weight: 1, arbitrary: fc.constant<LoadValue>(undefined) },
  { weight: 1, arbitrary: fc.constant<LoadValue>('stale') },
);
const seriesValues = fc.array(value, { minLength: 1, maxLength: 20 });

/** labels → (t → v) of a query result, for comparing a range result with instant results. */
function points(v: QueryValue, into: Map<string, Map<number, number>>, t?: number): void {
  const put = (k: string, ts: number, f: number): void => {
    let m = into.get(k);
    if (m === undefined) {
      m = new Map();
      into.set(k, m);
    }
    m.set(ts, f);
  };
  if (v.type === 'vector') for (const s of v.vector) put(s.metric.toString(), s.t, s.f);
  else if (v.type === 'matrix')
    for (const s of v.matrix) for (const p of s.floats) put(s.metric.toString(), p.t, p.f);
  else if (v.type === 'scalar') put('{}', t ?? v.scalar.t, v.scalar.v);
}

describe('range query = instant queries at each step', () => {
  it('holds for random data', { timeout: 120_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(seriesValues, { minLength: 1, maxLength: 4 }),
        fc.constantFrom(...EXPRESSIONS),
        async (data, expr) => {
          const st = new TestStorage();
          data.forEach((values, i) =>
            load(st, 15 * S, { __name__: 'm', job: String(i % 2), i: String(i) }, values),
          );
          const start = 60 * S;
          const end = 300 * S;
          const step = 30 * S;
          const fromRange = new Map<string, Map<number, number>>();
          const fromInstant = new Map<string, Map<number, number>>();
          const range: QueryResult | Error = await engine
            .rangeQuery(st, expr, start, end, step)
            .catch((e: unknown) => (e instanceof Error ? e : new Error(String(e))));
          if (range instanceof Error) {
            // An error must then also show up at some step of the instant queries.
            let failed = false;
            for (let t = start; t <= end; t += step) {
              failed ||= await engine.instantQuery(st, expr, t).then(
                () => false,
                () => true,
              );
            }
            expect(failed, `${expr}: ${range.message}`).toBe(true);
            return;
          }
          points(range.value, fromRange);
          for (let t = start; t <= end; t += step) {
            points((await engine.instantQuery(st, expr, t)).value, fromInstant, t);
          }
          expect(fromRange, expr).toEqual(fromInstant);
        },
      ),
      { numRuns: 150 },
    );
  });
});
