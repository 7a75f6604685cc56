// The order of selected series: both engines select unsorted (Prometheus's engine asks
// `Select(sortSeries=false)`), so storage may skip a sort; range results are still sorted by
// labels and instant vectors keep the order storage gave.
import { describe, expect, it } from 'vitest';
import type { Querier, Queryable } from '../storage.js';
import { VectorEngine } from '../vector/index.js';
import { Engine } from './index.js';
import { load, series, TestStorage } from './test_helpers.js';

const M = 60_000;

/** Ten series `m{i}` whose selects answer in reverse label order when asked for any order. */
function reversing(asked: (boolean | undefined)[]): Queryable {
  const st = new TestStorage();
  for (let i = 0; i < 10; i++) load(st, M, { __name__: 'm', i: String(i) }, series(0, 1, 60));
  return {
    querier: async (mint: number, maxt: number): Promise<Querier> => {
      const q = await st.querier(mint, maxt);
      return {
        select: async (m, hints) => {
          asked.push(hints?.sortSeries);
          const out = await q.select(m, hints);
          return hints?.sortSeries === false ? out.reverse() : out;
        },
        labelNames: (m) => q.labelNames(m),
        labelValues: (n, m) => q.labelValues(n, m),
        close: () => q.close(),
      };
    },
  };
}

const ASCENDING = ['0', '1', '2', '3', '4', '5', '6', '7', '8', '9'];

describe.each([
  ['prometheus', () => new Engine({}, {})],
  ['thanos', () => new VectorEngine({}, {})],
])('the %s engine', (_name, engine) => {
  it('selects unsorted and still answers range queries sorted by labels', async () => {
    for (const expr of ['m', 'rate(m[5m])', 'sum by (i) (m)', 'm * on(i) m']) {
      const asked: (boolean | undefined)[] = [];
      const r = await engine().rangeQuery(reversing(asked), expr, 10 * M, 30 * M, M);
      expect(asked.length).toBeGreaterThan(0);
      expect(asked.every((s) => s === false)).toBe(true);
      if (r.value.type !== 'matrix') throw new Error(`${expr}: ${r.value.type}`);
      expect(
        r.value.matrix.map((s) => s.metric.get('i')),
        expr,
      ).toEqual(ASCENDING);
    }
  });

  it('answers an instant selector in the order storage gave', async () => {
    const asked: (boolean | undefined)[] = [];
    const r = await engine().instantQuery(reversing(asked), 'm', 30 * M);
    expect(asked).toEqual([false]);
    if (r.value.type !== 'vector') throw new Error(r.value.type);
    expect(r.value.vector.map((s) => s.metric.get('i'))).toEqual([...ASCENDING].reverse());
  });
});
