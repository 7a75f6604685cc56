// The query endpoints through the real HTTP server over a fake engine, so that every
// envelope, error mapping and parameter rule is checked independently of PromQL evaluation.
import { Labels } from '../model/index.js';
import {
  Annotations,
  QueryCanceledError,
  QueryExecutionError,
  QueryTimeoutError,
  StorageError,
  type QueryValue,
} from '../promql/index.js';
import { encodeElements } from './encode.js';
import { resultOf } from './testing/index.js';
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

describe('/api/v1/query', () => {
  it('answers a vector in Prometheus bytes: label order, raw label strings, quoted values, ms digits', async () => {
    const { url, engine } = await start();
    engine.result = resultOf({
      type: 'vector',
      vector: [
        { metric: L('__name__', 'up', 'job', 'a<b>&"c"'), t: 1_700_000_000_100, f: 1 },
        { metric: L('instance', 'x'), t: 1_700_000_000_100, f: NaN },
        { metric: L('__name__', 'dropped', 'k', 'v'), t: 1000, f: 1e-7, dropName: true },
      ],
    });
    const r = await get(`${url}/prometheus/api/v1/query?query=up&time=1700000000.1`);
    expect(r.status).toBe(200);
    expect(r.type).toBe('application/json');
    expect(r.body).toBe(
      '{"status":"success","data":{"resultType":"vector","result":[' +
        '{"metric":{"__name__":"up","job":"a<b>&\\"c\\""},"value":[1700000000.100,"1"]},' +
        '{"metric":{"instance":"x"},"value":[1700000000.100,"NaN"]},' +
        '{"metric":{"k":"v"},"value":[1,"1e-07"]}]}}',
    );
    expect(engine.calls[0]?.time).toBe(1_700_000_000_100);
    expect(engine.calls[0]?.query).toMatchObject({ type: 'VectorSelector', name: 'up' });
  });

  it('encodes matrices, scalars and strings as Prometheus does', async () => {
    const { url, engine } = await start();
    engine.result = resultOf({
      type: 'matrix',
      matrix: [
        {
          metric: L('a', 'b'),
          floats: [
            { t: 1000, f: 1.5 },
            { t: 2500, f: Infinity },
          ],
        },
        { metric: L('a', 'c'), floats: [] },
      ],
    });
    expect((await get(`${url}/prometheus/api/v1/query?query=x[5m]`)).body).toBe(
      '{"status":"success","data":{"resultType":"matrix","result":[{"metric":{"a":"b"},"values":[[1,"1.5"],[2.500,"+Inf"]]},{"metric":{"a":"c"}}]}}',
    );
    engine.result = resultOf({ type: 'scalar', scalar: { t: 1500, v: 1e-7 } });
    expect((await get(`${url}/prometheus/api/v1/query?query=1`)).body).toBe(
      '{"status":"success","data":{"resultType":"scalar","result":[1.5,"0.0000001"]}}',
    );
    engine.result = resultOf({ type: 'string', string: { t: 2000, v: 'a<\b' } });
    expect((await get(`${url}/prometheus/api/v1/query?query="x"`)).body).toBe(
      '{"status":"success","data":{"resultType":"string","result":[2,"a\\u003c\\b"]}}',
    );
  });

  it('defaults time to the clock and passes tenant storage, lookback_delta and a signal', async () => {
    const { url, engine, storages } = await start({ lookbackDelta: 60_000 });
    await get(`${url}/prometheus/api/v1/query?query=up`);
    await get(`${url}/prometheus/api/v1/query?query=up&lookback_delta=2m`);
    await get(`${url}/prometheus/api/v1/query?query=up&lookback_delta=0`);
    expect(engine.calls.map((c) => [c.time, c.options?.lookbackDelta])).toEqual([
      [1_700_000_000_123, 60_000],
      [1_700_000_000_123, 120_000],
      [1_700_000_000_123, 60_000],
    ]);
    expect(engine.calls[0]?.queryable).toBe(storages.get('team-a'));
    expect(engine.calls[0]?.options?.signal).toBeInstanceOf(AbortSignal);
  });

  it('merges a form-encoded POST body with the URL query, body first', async () => {
    const { url, engine } = await start();
    const r = await post(
      `${url}/prometheus/api/v1/query?time=5&query=ignored`,
      'query=sum%28up%29+by+(job)&time=10',
    );
    expect(r.status).toBe(200);
    expect(engine.calls[0]?.time).toBe(10_000);
    expect(engine.calls[0]?.query).toMatchObject({
      type: 'AggregateExpr',
      op: 'sum',
      grouping: ['job'],
    });
  });

  it('reports parameter errors with Prometheus texts and 400 bad_data', async () => {
    const { url, engine } = await start();
    const cases: [string, string][] = [
      [
        'query=up&time=abc',
        `invalid parameter "time": invalid time value for 'time': cannot parse "abc" to a valid timestamp`,
      ],
      ['query=up&limit=x', 'invalid parameter "limit": strconv.Atoi: parsing "x": invalid syntax'],
      ['query=up&limit=-1', 'invalid parameter "limit": limit must be non-negative'],
      [
        'query=up&timeout=soon',
        'invalid parameter "timeout": cannot parse "soon" to a valid duration',
      ],
      [
        'query=up&lookback_delta=x',
        'error parsing lookback delta duration: cannot parse "x" to a valid duration',
      ],
    ];
    for (const [qs, message] of cases) {
      const r = await get(`${url}/prometheus/api/v1/query?${qs}`);
      expect(r.status, qs).toBe(400);
      expect(r.body).toBe(
        `{"status":"error","errorType":"bad_data","error":${JSON.stringify(message)}}`,
      );
    }
    const parse = await get(`${url}/prometheus/api/v1/query?query=sum(`);
    expect(parse.status).toBe(400);
    expect(errorOf(parse.body).error).toMatch(/^invalid parameter "query": 1:\d+: parse error: /);
    const empty = await get(`${url}/prometheus/api/v1/query`);
    expect(errorOf(empty.body).error).toMatch(/^invalid parameter "query": .*no expression found/);
    expect(engine.calls).toHaveLength(0);
  });

  it('maps engine failures to errorType and status as returnAPIError does', async () => {
    const { url, engine } = await start();
    const cases: [Error, number, string, string][] = [
      [
        new QueryExecutionError('multiple matches for labels'),
        422,
        'execution',
        'multiple matches for labels',
      ],
      [
        new QueryTimeoutError('expression evaluation'),
        503,
        'timeout',
        'query timed out in expression evaluation',
      ],
      [
        new QueryCanceledError('expression evaluation'),
        499,
        'canceled',
        'query was canceled in expression evaluation',
      ],
      [new StorageError('ingester down'), 500, 'internal', 'ingester down'],
      [new Error('something odd'), 422, 'execution', 'something odd'],
    ];
    for (const [err, status, errorType, message] of cases) {
      engine.error = err;
      const r = await get(`${url}/prometheus/api/v1/query?query=up`);
      expect(r.status).toBe(status);
      expect(r.type).toBe('application/json');
      expect(r.body).toBe(`{"status":"error","errorType":"${errorType}","error":"${message}"}`);
    }
  });

  it('returns warnings and infos, caps them at 10, and warns when limit truncates', async () => {
    const { url, engine } = await start();
    const annotations = new Annotations();
    for (let i = 0; i < 12; i++) annotations.add('warning', `PromQL warning: w${i} <x>`);
    annotations.add('info', 'PromQL info: i');
    engine.result = resultOf(
      {
        type: 'vector',
        vector: [
          { metric: L('a', '1'), t: 0, f: 1 },
          { metric: L('a', '2'), t: 0, f: 2 },
        ],
      },
      annotations,
    );
    const body = JSON.parse(
      (await get(`${url}/prometheus/api/v1/query?query=up&limit=1`)).body,
    ) as {
      data: { result: unknown[] };
      warnings: string[];
      infos: string[];
    };
    expect(body.data.result).toHaveLength(1);
    expect(body.warnings).toHaveLength(11);
    expect(body.warnings[0]).toBe('PromQL warning: w0 <x>');
    expect(body.warnings[10]).toBe('3 more warning annotations omitted');
    expect(body.infos).toEqual(['PromQL info: i']);
    const raw = (await get(`${url}/prometheus/api/v1/query?query=up&limit=1`)).body;
    expect(raw).toContain('"PromQL warning: w0 \\u003cx\\u003e"');

    engine.result = resultOf({
      type: 'vector',
      vector: [
        { metric: L('a', '1'), t: 0, f: 1 },
        { metric: L('a', '2'), t: 0, f: 2 },
      ],
    });
    expect((await get(`${url}/prometheus/api/v1/query?query=up&limit=1`)).body).toBe(
      '{"status":"success","data":{"resultType":"vector","result":[{"metric":{"a":"1"},"value":[0,"1"]}]},"warnings":["results truncated due to limit"]}',
    );
  });

  it('writes results an engine encoded where it ran as it writes decoded ones, limit included', async () => {
    const { url, engine } = await start();
    const vector: QueryValue = {
      type: 'vector',
      vector: [
        { metric: L('a', '1'), t: 1500, f: 1 },
        // Not ASCII: the cut to a limit is at a byte offset, not a character's.
        { metric: L('a', '2', 'b', '"q" é 日本 😀'), t: 1500, f: NaN },
        { metric: L('__name__', 'up', 'a', '3'), t: 1500, f: 2.5, dropName: true },
      ],
    };
    const matrix: QueryValue = {
      type: 'matrix',
      matrix: [
        {
          metric: L('a', '1'),
          floats: [
            { t: 0, f: 1 },
            { t: 15_000, f: 1e-7 },
          ],
        },
        { metric: L('a', '2'), floats: [{ t: 15_000, f: Infinity }] },
      ],
    };
    for (const [value, path] of [
      [vector, 'query?query=up'],
      [matrix, 'query_range?query=up&start=0&end=15&step=15'],
    ] as const) {
      for (const query of ['', '&limit=1', '&limit=2', '&limit=5', '&stats=all']) {
        engine.result = resultOf(value);
        const plain = (await get(`${url}/prometheus/api/v1/${path}${query}`)).body;
        expect(engine.calls.at(-1)?.options?.encodeResult).toBe(true);
        const encoded = encodeElements(value);
        if (encoded === undefined) throw new Error('not encodable');
        const empty: QueryValue =
          value.type === 'vector' ? { type: 'vector', vector: [] } : { type: 'matrix', matrix: [] };
        engine.result = { ...resultOf(empty), encoded };
        const body = (await get(`${url}/prometheus/api/v1/${path}${query}`)).body;
        // Timings differ from run to run; everything else must not.
        const strip = (b: string): string => b.replace(/"timings":\{[^}]*\}/, '');
        expect(strip(body)).toBe(strip(plain));
      }
    }
  });

  it('adds stats when asked, naming the alternative engine and its fallbacks', async () => {
    const { url, engine, thanos } = await start();
    const plain = JSON.parse(
      (await get(`${url}/prometheus/api/v1/query?query=up&stats=all`)).body,
    ) as {
      data: { stats: Record<string, unknown> };
    };
    expect(Object.keys(plain.data.stats)).toEqual(['timings', 'samples']);
    expect(Object.keys(plain.data.stats['timings'] as object)).toEqual([
      'evalTotalTime',
      'resultSortTime',
      'queryPreparationTime',
      'innerEvalTime',
      'execQueueTime',
      'execTotalTime',
    ]);
    expect(plain.data.stats['samples']).toEqual({ totalQueryableSamples: 7, peakSamples: 3 });
    expect((await get(`${url}/prometheus/api/v1/query?query=up`)).body).not.toContain('stats');
    expect(engine.calls).toHaveLength(2);

    thanos.result = {
      ...resultOf({ type: 'vector', vector: [] }),
      stats: {
        totalQueryableSamples: 1,
        peakSamples: 1,
        engine: 'thanos',
        fallbackNodes: ['Call(label_join)'],
      },
    };
    const alt = JSON.parse(
      (
        await get(`${url}/prometheus/api/v1/query?query=up&stats=1`, {
          'X-PromQL-EngineType': 'thanos',
        })
      ).body,
    ) as { data: { stats: Record<string, unknown> } };
    expect(alt.data.stats['engine']).toBe('thanos');
    expect(alt.data.stats['fallbackNodes']).toEqual(['Call(label_join)']);
  });
});

describe('engine selection', () => {
  it('honours X-PromQL-EngineType and X-MonQL-EngineType with all four values', async () => {
    const { url, engine, thanos } = await start();
    const q = `${url}/prometheus/api/v1/query?query=up`;
    await get(q, { 'X-PromQL-EngineType': 'thanos' });
    await get(q, { 'X-PromQL-EngineType': 'prometheus' });
    await get(q, { 'X-MonQL-EngineType': 'alt' });
    await get(q, { 'X-MonQL-EngineType': 'mon' });
    await get(q, { 'X-PromQL-EngineType': 'alt', 'X-MonQL-EngineType': 'thanos' });
    await get(`${url}/prometheus/api/v1/query_range?query=up&start=0&end=60&step=15`, {
      'X-MonQL-EngineType': 'alt',
    });
    expect(engine.calls).toHaveLength(2);
    expect(thanos.calls.map((c) => c.kind)).toEqual(['instant', 'instant', 'instant', 'range']);
  });

  it('rejects unknown values, conflicts, and an engine that is not there', async () => {
    const { url } = await start();
    const q = `${url}/prometheus/api/v1/query?query=up`;
    const unknown = await get(q, { 'X-PromQL-EngineType': 'mimir' });
    expect(unknown.status).toBe(400);
    expect(errorOf(unknown.body)).toEqual({
      errorType: 'bad_data',
      error:
        'invalid X-PromQL-EngineType header value "mimir": expected prometheus or thanos (or mon / alt)',
    });
    const conflict = await get(q, { 'X-PromQL-EngineType': 'thanos', 'X-MonQL-EngineType': 'mon' });
    expect(errorOf(conflict.body).error).toContain('conflicting engine headers');

    const single = await start({}, false);
    const missing = await get(`${single.url}/prometheus/api/v1/query?query=up`, {
      'X-MonQL-EngineType': 'alt',
    });
    expect(missing.status).toBe(400);
    expect(errorOf(missing.body).error).toBe(
      'engine "thanos" is not available on this querier (only "prometheus" is)',
    );
  });
});

describe('/api/v1/query_range', () => {
  it('passes start, end and step in ms', async () => {
    const { url, engine } = await start();
    const r = await get(
      `${url}/prometheus/api/v1/query_range?query=rate(x[5m])&start=2015-06-03T13:21:58.555Z&end=1433338018.6&step=15s`,
    );
    expect(r.status).toBe(200);
    const c = engine.calls[0];
    expect([c?.kind, c?.start, c?.end, c?.step]).toEqual([
      'range',
      1433337718555,
      1433338018600,
      15_000,
    ]);
    await get(`${url}/prometheus/api/v1/query_range?query=1&start=0&end=1&step=0.25`);
    expect(engine.calls[1]?.step).toBe(250);
  });

  it('checks parameters in Prometheus order with its texts', async () => {
    const { url, engine } = await start();
    const cases: [string, string][] = [
      ['query=up&end=1&step=1', 'invalid parameter "start": cannot parse "" to a valid timestamp'],
      ['query=up&start=1&step=1', 'invalid parameter "end": cannot parse "" to a valid timestamp'],
      [
        'query=up&start=2&end=1&step=1',
        'invalid parameter "end": end timestamp must not be before start time',
      ],
      ['query=up&start=1&end=2', 'invalid parameter "step": cannot parse "" to a valid duration'],
      [
        'query=up&start=1&end=2&step=0',
        'invalid parameter "step": zero or negative query resolution step widths are not accepted. Try a positive integer',
      ],
      [
        'query=up&start=1&end=2&step=-5s',
        'invalid parameter "step": cannot parse "-5s" to a valid duration',
      ],
      [
        'query=up&start=0&end=11001&step=1',
        'exceeded maximum resolution of 11,000 points per timeseries. Try decreasing the query resolution (?step=XX)',
      ],
      [
        'query=up[5m]&start=0&end=10&step=1',
        'invalid parameter "query": invalid expression type "range vector" for range query, must be Scalar or instant Vector',
      ],
      [
        'query="s"&start=0&end=10&step=1',
        'invalid parameter "query": invalid expression type "string" for range query, must be Scalar or instant Vector',
      ],
      [
        'query=up&start=148966367200.372&end=1489667272.372&step=1',
        'invalid parameter "end": end timestamp must not be before start time',
      ],
    ];
    for (const [qs, message] of cases) {
      const r = await get(`${url}/prometheus/api/v1/query_range?${qs}`);
      expect(r.status, qs).toBe(400);
      expect(errorOf(r.body), qs).toEqual({ errorType: 'bad_data', error: message });
    }
    // Exactly 11,000 steps are allowed.
    expect(
      (await get(`${url}/prometheus/api/v1/query_range?query=up&start=0&end=11000&step=1`)).status,
    ).toBe(200);
    expect(engine.calls).toHaveLength(1);
  });

  it('applies the timeout parameter as a deadline on the clock (503 timeout)', async () => {
    const { url, engine, clock } = await start();
    engine.hang = true;
    const called = engine.called();
    const pending = get(
      `${url}/prometheus/api/v1/query_range?query=up&start=0&end=60&step=15&timeout=1500ms`,
    );
    await called;
    await clock.advance(1499);
    expect(engine.calls[0]?.options?.signal?.aborted).toBe(false);
    await clock.advance(1);
    const r = await pending;
    expect(r.status).toBe(503);
    expect(errorOf(r.body)).toEqual({
      errorType: 'timeout',
      error: 'query timed out in expression evaluation',
    });
    // A zero timeout has expired before the query starts.
    const zero = await get(`${url}/prometheus/api/v1/query?query=up&timeout=0`);
    expect(errorOf(zero.body)).toEqual({
      errorType: 'timeout',
      error: 'query timed out in query queue',
    });
    expect(engine.calls).toHaveLength(1);
    expect(clock.pendingTimers).toBe(0);
  });
});
