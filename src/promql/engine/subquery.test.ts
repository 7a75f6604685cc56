// Subqueries as Prometheus 3 evaluates them (engine_test.go TestSubquerySelector): steps are
// absolute multiples of the step, the left bound is excluded, offsets shift the whole window.
import { describe, expect, it } from 'vitest';
import { Engine } from './index.js';
import { flatten, load, series, TestStorage } from './test_helpers.js';

const S = 1000;
const engine = new Engine({ noStepSubqueryIntervalFn: () => 60 * S }, {});

async function matrix(st: TestStorage, q: string, t: number): Promise<unknown> {
  return flatten((await engine.instantQuery(st, q, t * S)).value);
}

/** Points as [seconds, value] pairs → the flattened [ms, value] form. */
const pts = (...p: [number, number][]): [number, number][] => p.map(([t, v]) => [t * S, v]);

describe('subquery selector, two samples', () => {
  const st = new TestStorage();
  load(st, 10 * S, { __name__: 'metric' }, [1, 2]);
  const m = '{__name__="metric"}';

  it.each([
    ['metric[20s:10s]', 10, pts([0, 1], [10, 2])],
    ['metric[20s:5s]', 10, pts([0, 1], [5, 1], [10, 2])],
    ['metric[20s:5s] offset 2s', 12, pts([0, 1], [5, 1], [10, 2])],
    ['metric[20s:5s] offset 6s', 20, pts([0, 1], [5, 1], [10, 2])],
    ['metric[20s:5s] offset 4s', 35, pts([15, 2], [20, 2], [25, 2], [30, 2])],
    ['metric[20s:5s] offset 5s', 35, pts([15, 2], [20, 2], [25, 2], [30, 2])],
    ['metric[20s:5s] offset 6s', 35, pts([10, 2], [15, 2], [20, 2], [25, 2])],
    ['metric[20s:5s] offset 7s', 35, pts([10, 2], [15, 2], [20, 2], [25, 2])],
  ] as const)('%s at %is', async (q, t, expected) => {
    expect(await matrix(st, q, t)).toEqual({ [m]: expected });
  });
});

describe('subquery selector, http_requests', () => {
  const st = new TestStorage();
  const twoPhase = (a: number, b: number, c: number): number[] => [
    ...series(0, a, 1000),
    ...series(b, c, 1000),
  ];
  load(
    st,
    10 * S,
    { __name__: 'http_requests', job: 'api-server', instance: '0', group: 'production' },
    twoPhase(10, 100, 30),
  );
  load(
    st,
    10 * S,
    { __name__: 'http_requests', job: 'api-server', instance: '1', group: 'production' },
    twoPhase(20, 200, 30),
  );
  load(
    st,
    10 * S,
    { __name__: 'http_requests', job: 'api-server', instance: '0', group: 'canary' },
    twoPhase(30, 300, 80),
  );
  load(
    st,
    10 * S,
    { __name__: 'http_requests', job: 'api-server', instance: '1', group: 'canary' },
    series(0, 40, 2000),
  );
  const p0 = '{__name__="http_requests", group="production", instance="0", job="api-server"}';

  it('plain, default step and large offsets', async () => {
    expect(await matrix(st, 'http_requests{group=~"pro.*",instance="0"}[30s:10s]', 10020)).toEqual({
      [p0]: pts([10000, 10000], [10010, 100], [10020, 130]),
    });
    expect(await matrix(st, 'http_requests{group=~"pro.*",instance="0"}[5m:]', 10100)).toEqual({
      [p0]: pts([9840, 9840], [9900, 9900], [9960, 9960], [10020, 130], [10080, 310]),
    });
    expect(
      await matrix(st, 'http_requests{group=~"pro.*",instance="0"}[5m:] offset 20m', 10100),
    ).toEqual({
      [p0]: pts([8640, 8640], [8700, 8700], [8760, 8760], [8820, 8820], [8880, 8880]),
    });
  });

  it('over functions and aggregations', async () => {
    expect(await matrix(st, 'rate(http_requests[1m])[15s:5s]', 8000)).toEqual({
      '{group="canary", instance="0", job="api-server"}': pts([7990, 3], [7995, 3], [8000, 3]),
      '{group="canary", instance="1", job="api-server"}': pts([7990, 4], [7995, 4], [8000, 4]),
      '{group="production", instance="0", job="api-server"}': pts([7990, 1], [7995, 1], [8000, 1]),
      '{group="production", instance="1", job="api-server"}': pts([7990, 2], [7995, 2], [8000, 2]),
    });
    for (const t of [120, 121]) {
      expect(await matrix(st, 'sum(http_requests{group=~"pro.*"})[30s:10s]', t)).toEqual({
        '{}': pts([100, 300], [110, 330], [120, 360]),
      });
    }
    expect(await matrix(st, 'sum(http_requests)[40s1ms:10s]', 120)).toEqual({
      '{}': pts([80, 800], [90, 900], [100, 1000], [110, 1100], [120, 1200]),
    });
    expect(
      await matrix(
        st,
        '(sum(http_requests{group=~"p.*"})+sum(http_requests{group=~"c.*"}))[20s:5s]',
        120,
      ),
    ).toEqual({ '{}': pts([105, 1000], [110, 1100], [115, 1100], [120, 1200]) });
  });
});
