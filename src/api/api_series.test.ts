// The series, label, metadata, exemplar and buildinfo endpoints and the routing, through
// the real HTTP server over in-memory stores.
import { Labels } from '../model/index.js';
import { MemoryStorage, type Queryable } from '../promql/index.js';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { PrometheusApiDeps } from './index.js';
import { newTestApi } from './testing/index.js';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
});

async function start(overrides: Partial<PrometheusApiDeps> = {}, withThanos = true) {
  const api = newTestApi(overrides, withThanos);
  const http = createServer(api.server.handler);
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  closers.push(
    () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  );
  return { ...api, url: `http://127.0.0.1:${(http.address() as AddressInfo).port}` };
}

const TENANT = { 'X-Scope-OrgID': 'team-a' };

async function get(url: string, headers: Record<string, string> = {}) {
  const res = await fetch(url, { headers: { ...TENANT, ...headers } });
  return { status: res.status, type: res.headers.get('content-type'), body: await res.text(), res };
}

async function post(url: string, form: string, headers: Record<string, string> = {}) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { ...TENANT, 'Content-Type': 'application/x-www-form-urlencoded', ...headers },
    body: form,
  });
  return { status: res.status, body: await res.text() };
}

function errorOf(body: string): { errorType: string; error: string } {
  const j = JSON.parse(body) as { status: string; errorType: string; error: string };
  expect(j.status).toBe('error');
  return { errorType: j.errorType, error: j.error };
}

const L = (...kv: string[]): Labels => Labels.fromStrings(...kv);

describe('series and labels', () => {
  async function seeded() {
    const s = await start();
    const mem = new MemoryStorage();
    s.storages.set('team-a', mem);
    mem.add(L('__name__', 'up', 'job', 'api', 'instance', 'a'), 1_000, 1);
    mem.add(L('__name__', 'up', 'job', 'db', 'instance', 'b'), 100_000, 1);
    mem.add(L('__name__', 'http_requests_total', 'job', 'api', 'code', '200'), 50_000, 3);
    mem.add(L('__name__', 'weird', 'label.with.dots', 'v<'), 1_000, 1);
    return s;
  }

  it('/series returns matching label sets, merged across match[] and bounded by start/end', async () => {
    const { url } = await seeded();
    const r = await get(
      `${url}/prometheus/api/v1/series?match[]=up&match[]={job="api"}&match[]=up{job="api"}`,
    );
    expect(r.body).toBe(
      '{"status":"success","data":[' +
        '{"__name__":"http_requests_total","code":"200","job":"api"},' +
        '{"__name__":"up","instance":"a","job":"api"},' +
        '{"__name__":"up","instance":"b","job":"db"}]}',
    );
    const ranged = await get(`${url}/prometheus/api/v1/series?match[]=up&start=50&end=200`);
    expect(ranged.body).toBe(
      '{"status":"success","data":[{"__name__":"up","instance":"b","job":"db"}]}',
    );
    const limited = await post(`${url}/prometheus/api/v1/series`, 'match%5B%5D=up&limit=1');
    expect(limited.body).toBe(
      '{"status":"success","data":[{"__name__":"up","instance":"a","job":"api"}],"warnings":["results truncated due to limit"]}',
    );
    const none = await get(`${url}/prometheus/api/v1/series?match[]=nothing`);
    expect(none.body).toBe('{"status":"success","data":[]}');
  });

  it('/series errors: no match[], bad selectors, empty matchers, form errors', async () => {
    const { url } = await seeded();
    expect(errorOf((await get(`${url}/prometheus/api/v1/series`)).body).error).toBe(
      'no match[] parameter provided',
    );
    expect(
      errorOf((await get(`${url}/prometheus/api/v1/series?match[]={job=~".*"}`)).body).error,
    ).toBe('invalid parameter "match[]": match[] must contain at least one non-empty matcher');
    expect(errorOf((await get(`${url}/prometheus/api/v1/series?match[]=up{`)).body).error).toMatch(
      /^invalid parameter "match\[\]": 1:\d+: parse error/,
    );
    expect(errorOf((await get(`${url}/prometheus/api/v1/series?match[]=up;x=1`)).body).error).toBe(
      'error parsing form values: invalid semicolon separator in query',
    );
    expect(
      errorOf((await get(`${url}/prometheus/api/v1/series?match[]=up&start=x`)).body).error,
    ).toBe(
      `invalid parameter "start": invalid time value for 'start': cannot parse "x" to a valid timestamp`,
    );
  });

  it('/labels and /label/{name}/values honour match[], start and end', async () => {
    const { url } = await seeded();
    expect((await get(`${url}/prometheus/api/v1/labels`)).body).toBe(
      '{"status":"success","data":["__name__","code","instance","job","label.with.dots"]}',
    );
    expect(
      (await post(`${url}/prometheus/api/v1/labels`, 'match[]=up&match[]=http_requests_total'))
        .body,
    ).toBe('{"status":"success","data":["__name__","code","instance","job"]}');
    expect((await get(`${url}/prometheus/api/v1/labels?start=50&end=60`)).body).toBe(
      '{"status":"success","data":["__name__","code","job"]}',
    );
    expect((await get(`${url}/prometheus/api/v1/label/job/values`)).body).toBe(
      '{"status":"success","data":["api","db"]}',
    );
    expect(
      (await get(`${url}/prometheus/api/v1/label/job/values?match[]=up&end=10&limit=5`)).body,
    ).toBe('{"status":"success","data":["api"]}');
    expect((await get(`${url}/prometheus/api/v1/label/__name__/values?limit=1`)).body).toBe(
      '{"status":"success","data":["http_requests_total"],"warnings":["results truncated due to limit"]}',
    );
    // U__ escaping carries UTF-8 names in the path; values are HTML-escaped like any string.
    expect((await get(`${url}/prometheus/api/v1/label/U__label_2e_with_2e_dots/values`)).body).toBe(
      '{"status":"success","data":["v\\u003c"]}',
    );
    const bad = await get(`${url}/prometheus/api/v1/label/U__/values`);
    expect(bad.status).toBe(400);
    expect(errorOf(bad.body).error).toBe('invalid label name: ""');
    expect(errorOf((await get(`${url}/prometheus/api/v1/labels?match[]={a=""}`)).body).error).toBe(
      'match[] must contain at least one non-empty matcher',
    );
  });

  it('storage failures are execution errors unless coded', async () => {
    const failing: Queryable = { querier: () => Promise.reject(new Error('disk on fire')) };
    const { url } = await start({ queryable: () => failing });
    const r = await get(`${url}/prometheus/api/v1/labels`);
    expect(r.status).toBe(422);
    expect(errorOf(r.body)).toEqual({ errorType: 'execution', error: 'disk on fire' });
  });
});

describe('metadata, exemplars, buildinfo', () => {
  it('/metadata dedupes per family, applies limit/limit_per_metric/metric, sorts families', async () => {
    const { url } = await start({
      metadata: {
        metricMetadata: () =>
          Promise.resolve([
            { metricFamily: 'up', type: 'gauge', help: 'Up <1>', unit: '' },
            { metricFamily: 'http_requests_total', type: 'counter', help: 'Requests', unit: '' },
            { metricFamily: 'up', type: 'gauge', help: 'Up <1>', unit: '' },
            { metricFamily: 'up', type: 'gauge', help: 'Other help', unit: '' },
          ]),
      },
    });
    expect((await get(`${url}/prometheus/api/v1/metadata`)).body).toBe(
      '{"status":"success","data":{"http_requests_total":[{"type":"counter","unit":"","help":"Requests"}],' +
        '"up":[{"type":"gauge","unit":"","help":"Up \\u003c1\\u003e"},{"type":"gauge","unit":"","help":"Other help"}]}}',
    );
    expect((await get(`${url}/prometheus/api/v1/metadata?limit=1`)).body).toBe(
      '{"status":"success","data":{"http_requests_total":[{"type":"counter","unit":"","help":"Requests"}]}}',
    );
    expect((await get(`${url}/prometheus/api/v1/metadata?metric=up&limit_per_metric=1`)).body).toBe(
      '{"status":"success","data":{"up":[{"type":"gauge","unit":"","help":"Up \\u003c1\\u003e"}]}}',
    );
    expect(errorOf((await get(`${url}/prometheus/api/v1/metadata?limit=x`)).body).error).toBe(
      'limit must be a number',
    );
    expect(
      errorOf((await get(`${url}/prometheus/api/v1/metadata?limit_per_metric=x`)).body).error,
    ).toBe('limit_per_metric must be a number');
  });

  it('/metadata and /query_exemplars are empty without a source', async () => {
    const { url } = await start();
    expect((await get(`${url}/prometheus/api/v1/metadata`)).body).toBe(
      '{"status":"success","data":{}}',
    );
    expect((await get(`${url}/prometheus/api/v1/query_exemplars?query=up`)).body).toBe(
      '{"status":"success","data":[]}',
    );
  });

  it('/query_exemplars selects by every selector of the query, 204 without selectors', async () => {
    const seen: unknown[] = [];
    const { url } = await start({
      exemplars: {
        select: (tenant, s, e, sets) => {
          seen.push([
            tenant,
            s,
            e,
            sets.map((ms) => ms.map((m) => `${m.name}${m.type}${m.value}`)),
          ]);
          return Promise.resolve([
            {
              seriesLabels: L('__name__', 'req', 'job', 'a'),
              exemplars: [{ labels: L('traceID', 'abc'), value: 100.123, ts: 1234 }],
            },
          ]);
        },
      },
    });
    const r = await get(
      `${url}/prometheus/api/v1/query_exemplars?query=rate(req[5m]) / on() group_left foo{a="b"}&start=1&end=2`,
    );
    expect(r.body).toBe(
      '{"status":"success","data":[{"seriesLabels":{"__name__":"req","job":"a"},"exemplars":[{"labels":{"traceID":"abc"},"value":"100.123","timestamp":1.234}]}]}',
    );
    expect(seen).toEqual([['team-a', 1000, 2000, [['__name__=req'], ['a=b', '__name__=foo']]]]);
    const none = await get(`${url}/prometheus/api/v1/query_exemplars?query=1%2B1`);
    expect(none.status).toBe(204);
    expect(none.body).toBe('');
    expect(
      errorOf((await get(`${url}/prometheus/api/v1/query_exemplars?query=up&start=2&end=1`)).body)
        .error,
    ).toBe('end timestamp must not be before start timestamp');
    expect(
      errorOf((await get(`${url}/prometheus/api/v1/query_exemplars?query=up(`)).body).error,
    ).toMatch(/^1:\d+: parse error/);
  });

  it('/status/buildinfo', async () => {
    const { url } = await start();
    expect((await get(`${url}/prometheus/api/v1/status/buildinfo`)).body).toBe(
      '{"status":"success","data":{"version":"0.1.0","revision":"abc","branch":"main","buildUser":"u@h","buildDate":"20260101-00:00:00","goVersion":"node v20"}}',
    );
  });
});

describe('routing', () => {
  it('serves every endpoint under both prefixes and their neutral aliases', async () => {
    const { url, engine } = await start();
    for (const prefix of ['/prometheus', '/mon', '/api/prom', '/api/mon']) {
      const r = await get(`${url}${prefix}/api/v1/query?query=up`);
      expect(r.status, prefix).toBe(200);
    }
    expect(engine.calls).toHaveLength(4);
  });

  it('registers the methods Prometheus allows, tenant-scoped, for the index page', async () => {
    const { url, server } = await start();
    const byPath = new Map(server.routes().map((r) => [r.path, r]));
    expect(byPath.get('/prometheus/api/v1/query')?.methods).toEqual(['GET', 'POST']);
    expect(byPath.get('/prometheus/api/v1/query')?.aliases).toEqual(['/mon/api/v1/query']);
    expect(byPath.get('/api/prom/api/v1/query')?.aliases).toEqual(['/api/mon/api/v1/query']);
    expect(byPath.get('/prometheus/api/v1/label/:name/values')?.methods).toEqual(['GET']);
    expect(byPath.get('/prometheus/api/v1/metadata')?.methods).toEqual(['GET']);
    expect(byPath.get('/prometheus/api/v1/status/buildinfo')?.methods).toEqual(['GET']);
    expect(server.routes().every((r) => r.tenant && r.module === 'querier')).toBe(true);
    expect(server.routes()).toHaveLength(20);
    expect((await post(`${url}/prometheus/api/v1/label/job/values`, '')).status).toBe(405);
  });

  it('requires a tenant (401 from the server) and keeps tenants apart', async () => {
    const { url, storages } = await start();
    const res = await fetch(`${url}/prometheus/api/v1/labels`);
    expect(res.status).toBe(401);
    storages.set('other', new MemoryStorage());
    storages.get('other')?.add(L('__name__', 'secret'), 0, 1);
    expect((await get(`${url}/prometheus/api/v1/labels`)).body).toBe(
      '{"status":"success","data":[]}',
    );
    expect((await get(`${url}/prometheus/api/v1/labels`, { 'X-Scope-OrgID': 'other' })).body).toBe(
      '{"status":"success","data":["__name__"]}',
    );
  });

  it('adds CORS headers when the request has an Origin', async () => {
    const { url } = await start();
    const r = await get(`${url}/prometheus/api/v1/status/buildinfo`, { Origin: 'http://grafana' });
    expect(r.res.headers.get('access-control-allow-origin')).toBe('*');
    expect(r.res.headers.get('access-control-allow-methods')).toBe('GET, POST, OPTIONS');
    const plain = await get(`${url}/prometheus/api/v1/status/buildinfo`);
    expect(plain.res.headers.get('access-control-allow-origin')).toBeNull();
  });
});
