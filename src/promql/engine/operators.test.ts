// Aggregations, binary operators and vector matching, with expectations from Prometheus's
// aggregators.test, operators.test and name_label_dropping.test.
import { describe, expect, it } from 'vitest';
import { Engine } from './index.js';
import { flatten, load, series, TestStorage } from './test_helpers.js';

const M = 60_000;

/** aggregators.test's http_requests, eight series 0+k·10 every 5m. */
function httpRequests(): TestStorage {
  const st = new TestStorage();
  let k = 1;
  for (const job of ['api-server', 'app-server']) {
    for (const group of ['production', 'canary']) {
      for (const instance of ['0', '1']) {
        load(st, 5 * M, { __name__: 'http_requests', job, instance, group }, series(0, 10 * k, 10));
        k++;
      }
    }
  }
  return st;
}

const engine = new Engine({}, {});

async function at50m(expr: string): Promise<unknown> {
  return flatten((await engine.instantQuery(httpRequests(), expr, 50 * M)).value);
}

describe('aggregations', () => {
  it('sum, avg, count, min, max, group by and without', async () => {
    expect(await at50m('sum by (job) (http_requests)')).toEqual({
      '{job="api-server"}': 1000,
      '{job="app-server"}': 2600,
    });
    expect(await at50m('avg by (job) (http_requests)')).toEqual({
      '{job="api-server"}': 250,
      '{job="app-server"}': 650,
    });
    expect(await at50m('count without (instance, job) (http_requests)')).toEqual({
      '{group="canary"}': 4,
      '{group="production"}': 4,
    });
    expect(await at50m('min(http_requests)')).toEqual({ '{}': 100 });
    expect(await at50m('max by (group) (http_requests)')).toEqual({
      '{group="canary"}': 800,
      '{group="production"}': 600,
    });
    expect(await at50m('group by (job) (http_requests)')).toEqual({
      '{job="api-server"}': 1,
      '{job="app-server"}': 1,
    });
  });

  it('stddev, stdvar and quantile', async () => {
    const sd = (await at50m('stddev by (instance) (http_requests)')) as Record<string, number>;
    expect(sd['{instance="0"}']).toBeCloseTo(223.60679774998, 9);
    expect(sd['{instance="1"}']).toBeCloseTo(223.60679774998, 9);
    const sv = (await at50m('stdvar(http_requests)')) as Record<string, number>;
    expect(sv['{}']).toBeCloseTo(52500, 6);
    const q = (await at50m('quantile(0.8, http_requests)')) as Record<string, number>;
    expect(q['{}']).toBeCloseTo(660, 9);
  });

  it('warns about a quantile outside [0, 1] with the position of the parameter', async () => {
    const r = await engine.instantQuery(httpRequests(), 'quantile(1.5, http_requests)', 50 * M);
    expect(flatten(r.value)).toEqual({ '{}': Infinity });
    expect(r.annotations.warnings()).toEqual([
      'PromQL warning: quantile value should be between 0 and 1, got 1.5 (1:10)',
    ]);
  });

  it('topk and bottomk keep labels and order their output', async () => {
    const r = await engine.instantQuery(httpRequests(), 'topk(3, http_requests)', 50 * M);
    expect(r.value.type === 'vector' && r.value.vector.map((s) => s.f)).toEqual([800, 700, 600]);
    expect(await at50m('bottomk(1, http_requests) by (job)')).toEqual({
      '{__name__="http_requests", group="production", instance="0", job="api-server"}': 100,
      '{__name__="http_requests", group="production", instance="0", job="app-server"}': 500,
    });
  });

  it('checks the k parameter', async () => {
    expect(await at50m('topk(0, http_requests)')).toEqual({});
    await expect(
      engine.instantQuery(httpRequests(), 'topk(NaN, http_requests)', 50 * M),
    ).rejects.toMatchObject({
      errorType: 'execution',
      message: 'Parameter value is NaN',
    });
    await expect(
      engine.instantQuery(httpRequests(), 'topk(1e20, http_requests)', 50 * M),
    ).rejects.toThrow('Scalar value 1e+20 overflows int64');
  });

  it('limitk, limit_ratio and count_values', async () => {
    const r = await engine.instantQuery(
      httpRequests(),
      'limitk(2, http_requests) by (job)',
      50 * M,
    );
    expect(r.value.type === 'vector' && r.value.vector.length).toBe(4);
    expect(await at50m('count(limit_ratio(1, http_requests))')).toEqual({ '{}': 8 });
    expect(
      await at50m(
        'count(limit_ratio(0.5, http_requests)) + count(limit_ratio(-0.5, http_requests))',
      ),
    ).toEqual({
      '{}': 8,
    });
    expect(await at50m('count_values by (job) ("v", http_requests > 600)')).toEqual({
      '{job="app-server", v="700"}': 1,
      '{job="app-server", v="800"}': 1,
    });
  });

  it('aggregates range queries step by step', async () => {
    const r = await engine.rangeQuery(httpRequests(), 'sum(http_requests)', 0, 10 * M, 5 * M);
    expect(flatten(r.value)).toEqual({
      '{}': [
        [0, 0],
        [5 * M, 360],
        [10 * M, 720],
      ],
    });
  });
});

describe('binary operators', () => {
  it('arithmetic between scalars follows Go math', async () => {
    const q = async (e: string): Promise<unknown> =>
      flatten((await engine.instantQuery(new TestStorage(), e, 0)).value);
    expect(await q('-7 % 3')).toBe(-1);
    expect(await q('2 ^ 10')).toBe(1024);
    expect(await q('1 ^ NaN')).toBe(1);
    expect(await q('5 % 0')).toBeNaN();
    expect(await q('1 atan2 0')).toBe(Math.PI / 2);
    expect(await q('3 > bool 2')).toBe(1);
  });

  it('vector/scalar keeps or drops the name as Prometheus 3 does', async () => {
    expect(await at50m('http_requests{job="api-server", group="canary"} * 2')).toEqual({
      '{group="canary", instance="0", job="api-server"}': 600,
      '{group="canary", instance="1", job="api-server"}': 800,
    });
    expect(await at50m('http_requests{job="api-server", group="canary"} > 350')).toEqual({
      '{__name__="http_requests", group="canary", instance="1", job="api-server"}': 400,
    });
    expect(await at50m('350 < bool http_requests{job="api-server", group="canary"}')).toEqual({
      '{group="canary", instance="0", job="api-server"}': 0,
      '{group="canary", instance="1", job="api-server"}': 1,
    });
  });

  it('matches one-to-one on and ignoring labels', async () => {
    expect(
      await at50m(
        'http_requests{group="canary"} + on(instance, job) http_requests{group="production"}',
      ),
    ).toEqual({
      '{instance="0", job="api-server"}': 400,
      '{instance="1", job="api-server"}': 600,
      '{instance="0", job="app-server"}': 1200,
      '{instance="1", job="app-server"}': 1400,
    });
    expect(
      await at50m(
        'http_requests{group="canary"} - ignoring(group) http_requests{group="production"}',
      ),
    ).toEqual({
      '{instance="0", job="api-server"}': 200,
      '{instance="1", job="api-server"}': 200,
      '{instance="0", job="app-server"}': 200,
      '{instance="1", job="app-server"}': 200,
    });
  });

  it('matches many-to-one with group_left', async () => {
    expect(
      await at50m(
        'http_requests{job="api-server"} / on(job) group_left sum by (job) (http_requests)',
      ),
    ).toEqual({
      '{group="canary", instance="0", job="api-server"}': 0.3,
      '{group="canary", instance="1", job="api-server"}': 0.4,
      '{group="production", instance="0", job="api-server"}': 0.1,
      '{group="production", instance="1", job="api-server"}': 0.2,
    });
  });

  it('reports ambiguous matches with Prometheus texts', async () => {
    await expect(
      engine.instantQuery(httpRequests(), 'http_requests + on(job) http_requests', 50 * M),
    ).rejects.toMatchObject({
      errorType: 'execution',
      message:
        'found duplicate series for the match group {job="api-server"} on the right hand-side of the operation: [{__name__="http_requests", group="canary", instance="1", job="api-server"}, {__name__="http_requests", group="canary", instance="0", job="api-server"}];many-to-many matching not allowed: matching labels must be unique on one side',
    });
    await expect(
      engine.instantQuery(
        httpRequests(),
        'http_requests + on(job) sum by (job) (http_requests)',
        50 * M,
      ),
    ).rejects.toThrow(
      'multiple matches for labels: many-to-one matching must be explicit (group_left/group_right)',
    );
    await expect(
      engine.instantQuery(
        httpRequests(),
        'sum by (job) (http_requests) + on(job) group_right http_requests',
        50 * M,
      ),
    ).resolves.toBeDefined();
  });

  it('set operators and, or, unless', async () => {
    expect(await at50m('http_requests{group="canary"} and http_requests{instance="0"}')).toEqual({
      '{__name__="http_requests", group="canary", instance="0", job="api-server"}': 300,
      '{__name__="http_requests", group="canary", instance="0", job="app-server"}': 700,
    });
    expect(
      await at50m('count(http_requests{group="canary"} or http_requests{instance="0"})'),
    ).toEqual({ '{}': 6 });
    expect(
      await at50m('http_requests{group="canary"} unless on(job) http_requests{job="api-server"}'),
    ).toEqual({
      '{__name__="http_requests", group="canary", instance="0", job="app-server"}': 700,
      '{__name__="http_requests", group="canary", instance="1", job="app-server"}': 800,
    });
  });
});

describe('__name__ dropping with delayed name removal (name_label_dropping.test)', () => {
  // name_label_dropping.test runs on Prometheus's test engine, which delays name removal.
  const engine = new Engine({ enableDelayedNameRemoval: true }, {});

  function metrics(): TestStorage {
    const st = new TestStorage();
    load(st, 5 * M, { __name__: 'metric_total', env: '1' }, [0, 60, 120]);
    load(st, 5 * M, { __name__: 'another_metric_total', env: '1' }, [60, 120, 180]);
    return st;
  }

  it('drops names late, so label_replace can still read them', async () => {
    const r = await engine.instantQuery(
      metrics(),
      'label_replace(rate({env="1"}[10m]), "my_name", "rate_$1", "__name__", "(.+)")',
      10 * M,
    );
    expect(flatten(r.value)).toEqual({
      '{env="1", my_name="rate_another_metric_total"}': 0.2,
      '{env="1", my_name="rate_metric_total"}': 0.2,
    });
    expect(
      flatten(
        (await engine.instantQuery(metrics(), 'sum(rate({env="1"}[10m])) by (env)', 10 * M)).value,
      ),
    ).toEqual({
      '{env="1"}': 0.4,
    });
  });

  it('fails when dropping the name leaves two equal label sets', async () => {
    await expect(
      engine.instantQuery(metrics(), 'sum by (__name__) (rate({env="1"}[10m]))', 10 * M),
    ).rejects.toThrow('vector cannot contain metrics with the same labelset');
  });

  it('merges range series that meet after dropping the name', async () => {
    const st = new TestStorage();
    load(st, 10 * M, { __name__: 'metric_a' }, [1, undefined]);
    load(st, 10 * M, { __name__: 'metric_b' }, [3, 4]);
    const r = await engine.rangeQuery(st, '-metric_a or -metric_b', 0, 20 * M, 10 * M);
    expect(flatten(r.value)).toEqual({
      '{}': [
        [0, -1],
        [10 * M, -4],
      ],
    });
  });
});
