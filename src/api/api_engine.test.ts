// End to end: the query API on the real HTTP server, the real default engine, parser and
// printer over an in-memory store, with the answers Prometheus gives for the same data.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { Labels } from '../model/index.js';
import { Engine } from '../promql/engine/index.js';
import { VectorEngine } from '../promql/vector/index.js';
import { MemoryStorage } from '../promql/index.js';
import { newMetricsRegistry } from '../runtime/index.js';
import { CapturingLogger, ManualClock } from '../runtime/testing/index.js';
import { HttpServer } from '../server/index.js';
import { registerPrometheusApi } from './index.js';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
});

const L = (...kv: string[]): Labels => Labels.fromStrings(...kv);

async function start() {
  const clock = new ManualClock(600_000);
  const server = new HttpServer(
    {
      authEnabled: false,
      prefixes: { legacy: '/api/prom', prometheus: '/prometheus', alertmanager: '/alertmanager' },
    },
    { clock, logger: new CapturingLogger(), metrics: newMetricsRegistry() },
  );
  const storage = new MemoryStorage();
  // http_requests_total: +10 per 15s for job api, +1 per 15s for job db, over 10 minutes.
  for (let t = 0; t <= 600_000; t += 15_000) {
    storage.add(
      L('__name__', 'http_requests_total', 'job', 'api', 'instance', 'a'),
      t,
      (t / 15_000) * 10,
    );
    storage.add(L('__name__', 'http_requests_total', 'job', 'db', 'instance', 'b'), t, t / 15_000);
  }
  storage.add(L('__name__', 'temperature', 'room', 'kitchen'), 590_000, 21.5);
  const engine = new Engine({}, { clock });
  registerPrometheusApi(server, {
    queryable: () => storage,
    engines: { prometheus: engine, thanos: new VectorEngine({}, { clock }) },
    buildInfo: {
      version: 'v',
      revision: 'r',
      branch: 'b',
      buildUser: 'u',
      buildDate: 'd',
      goVersion: 'g',
    },
    clock,
  });
  const http = createServer(server.handler);
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  closers.push(
    () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  );
  return `http://127.0.0.1:${(http.address() as AddressInfo).port}/prometheus/api/v1`;
}

async function body(url: string, init?: RequestInit): Promise<string> {
  return (await fetch(url, init)).text();
}

describe('query API over the default engine', () => {
  it('instant query: selector with lookback, default time from the clock', async () => {
    const api = await start();
    expect(await body(`${api}/query?query=temperature`)).toBe(
      '{"status":"success","data":{"resultType":"vector","result":[{"metric":{"__name__":"temperature","room":"kitchen"},"value":[600,"21.5"]}]}}',
    );
    expect(await body(`${api}/query?query=temperature&time=1000`)).toBe(
      '{"status":"success","data":{"resultType":"vector","result":[]}}',
    );
  });

  it('instant query: aggregation and a function, name dropped', async () => {
    const api = await start();
    expect(
      await body(
        `${api}/query?query=${encodeURIComponent('sum by (job) (http_requests_total) / 8')}&time=300`,
      ),
    ).toBe(
      '{"status":"success","data":{"resultType":"vector","result":[' +
        '{"metric":{"job":"api"},"value":[300,"25"]},' +
        '{"metric":{"job":"db"},"value":[300,"2.5"]}]}}',
    );
    expect(
      await body(
        `${api}/query?query=${encodeURIComponent('delta(http_requests_total{job="db"}[1m])')}&time=300.5`,
      ),
    ).toBe(
      '{"status":"success","data":{"resultType":"vector","result":[' +
        '{"metric":{"instance":"b","job":"db"},"value":[300.500,"4"]}]}}',
    );
  });

  it('range query: matrix sorted by labels, scalar results, step alignment', async () => {
    const api = await start();
    expect(
      await body(`${api}/query_range?query=http_requests_total{job="db"}&start=0&end=30&step=15`),
    ).toBe(
      '{"status":"success","data":{"resultType":"matrix","result":[{"metric":{"__name__":"http_requests_total","instance":"b","job":"db"},"values":[[0,"0"],[15,"1"],[30,"2"]]}]}}',
    );
    expect(await body(`${api}/query_range?query=time()&start=0.5&end=1.5&step=0.5`)).toBe(
      '{"status":"success","data":{"resultType":"matrix","result":[{"metric":{},"values":[[0.500,"0.5"],[1,"1"],[1.500,"1.5"]]}]}}',
    );
  });

  it('scalar and string instant results', async () => {
    const api = await start();
    expect(await body(`${api}/query?query=1%2F3&time=2.5`)).toBe(
      '{"status":"success","data":{"resultType":"scalar","result":[2.5,"0.3333333333333333"]}}',
    );
    expect(await body(`${api}/query?query=${encodeURIComponent('"a<b"')}&time=2`)).toBe(
      '{"status":"success","data":{"resultType":"string","result":[2,"a\\u003cb"]}}',
    );
  });

  it('execution errors from the engine are 422', async () => {
    const api = await start();
    const res = await fetch(
      `${api}/query?query=${encodeURIComponent('http_requests_total + on() http_requests_total')}&time=300`,
    );
    expect(res.status).toBe(422);
    const j = (await res.json()) as { errorType: string; error: string };
    expect(j.errorType).toBe('execution');
    expect(j.error).toContain('many-to-many matching not allowed');
  });

  it('limit and stats over real results', async () => {
    const api = await start();
    const j = JSON.parse(
      await body(`${api}/query?query=http_requests_total&time=300&limit=1&stats=all`),
    ) as {
      data: { result: unknown[]; stats: { samples: { totalQueryableSamples: number } } };
      warnings: string[];
    };
    expect(j.data.result).toHaveLength(1);
    expect(j.warnings).toEqual(['results truncated due to limit']);
    expect(j.data.stats.samples.totalQueryableSamples).toBeGreaterThan(0);
  });

  it('series, labels and label values over the same storage', async () => {
    const api = await start();
    expect(await body(`${api}/series?match[]=temperature`)).toBe(
      '{"status":"success","data":[{"__name__":"temperature","room":"kitchen"}]}',
    );
    expect(await body(`${api}/labels?start=0&end=10`)).toBe(
      '{"status":"success","data":["__name__","instance","job"]}',
    );
    expect(await body(`${api}/label/__name__/values`)).toBe(
      '{"status":"success","data":["http_requests_total","temperature"]}',
    );
  });
});

describe('engine selection over the real engines', () => {
  const queries = [
    'sum by (job) (rate(http_requests_total[1m]))',
    'http_requests_total / on(instance) group_left http_requests_total',
    'label_replace(http_requests_total, "x", "$1", "job", "(.*)")',
  ];

  it.each(queries)('both engines answer %s identically over HTTP', async (q) => {
    const api = await start();
    const url = `${api}/query_range?query=${encodeURIComponent(q)}&start=60&end=600&step=30`;
    const byDefault = await body(url);
    const byThanos = await body(url, { headers: { 'X-PromQL-EngineType': 'thanos' } });
    const byAlt = await body(url, { headers: { 'X-MonQL-EngineType': 'alt' } });
    expect(JSON.parse(byDefault)).toMatchObject({ status: 'success' });
    expect(byThanos).toBe(byDefault);
    expect(byAlt).toBe(byDefault);
  });

  it('stats name the alternative engine and its fallback nodes', async () => {
    const api = await start();
    const q = encodeURIComponent('sort(label_replace(temperature, "x", "y", "", ""))');
    const res = JSON.parse(
      await body(`${api}/query?query=${q}&stats=all`, {
        headers: { 'X-PromQL-EngineType': 'thanos' },
      }),
    ) as { data: { stats: { engine?: string; fallbackNodes?: string[] } } };
    expect(res.data.stats.engine).toBe('thanos');
    expect(res.data.stats.fallbackNodes?.length).toBeGreaterThan(0);
  });
});

describe('format_query and parse_query', () => {
  it('format_query returns the prettified expression', async () => {
    const api = await start();
    expect(await body(`${api}/format_query?query=${encodeURIComponent('foo+bar')}`)).toBe(
      '{"status":"success","data":"foo + bar"}',
    );
    const long =
      'sum by (job, instance) (rate(http_requests_total{job="api", code=~"5.."}[5m])) / on (job) group_left () sum by (job) (rate(http_requests_total[5m]))';
    const pretty = JSON.parse(
      await body(`${api}/format_query?query=${encodeURIComponent(long)}`),
    ) as {
      data: string;
    };
    expect(pretty.data.split('\n').length).toBeGreaterThan(1);
    expect(pretty.data).toContain('group_left ()');
    const r = await fetch(`${api}/format_query`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'query=a%3Eb',
    });
    expect(await r.text()).toBe('{"status":"success","data":"a \\u003e b"}');
    const bad = await fetch(`${api}/format_query?query=invalid_expression/`);
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: string }).error).toMatch(
      /^invalid parameter "query": 1:\d+: parse error/,
    );
  });

  it('parse_query returns the JSON tree with sorted keys', async () => {
    const api = await start();
    expect(
      await body(`${api}/parse_query?query=${encodeURIComponent('up{job="a"} offset 5m')}`),
    ).toBe(
      '{"status":"success","data":{"anchored":false,"matchers":[{"name":"job","type":"=","value":"a"},{"name":"__name__","type":"=","value":"up"}],"name":"up","offset":300000,"smoothed":false,"startOrEnd":null,"timestamp":null,"type":"vectorSelector"}}',
    );
    const j = JSON.parse(
      await body(`${api}/parse_query?query=${encodeURIComponent('sum(rate(x[1m]))')}`),
    ) as {
      data: { type: string; op: string; expr: { type: string; func: { name: string } } };
    };
    expect(j.data.type).toBe('aggregation');
    expect(j.data.op).toBe('sum');
    expect(j.data.expr.type).toBe('call');
    expect(j.data.expr.func.name).toBe('rate');
  });
});
