// The querier over three fake ingesters (RF 3) holding overlapping replicated data: the
// Queryable's merge and quorum, query-ingesters-within, tenant isolation, user stats, the
// query API end to end over both real engines, and the simulator RPCs.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { TEST_BUILD_INFO } from '../api/testing/index.js';
import { Labels, Matcher } from '../model/index.js';
import { TENANT_RPC_HEADER, decodeSeriesSamples, type SeriesSamples } from '../ingester/index.js';
import { SAMPLE_FLOAT, type StorageSeries } from '../promql/index.js';
import { Ring, type InstanceDesc } from '../ring/index.js';
import {
  MemoryKV,
  MemoryKVStore,
  MemoryNetwork,
  RpcError,
  jsonBody,
  newMetricsRegistry,
  parseJsonBody,
  type MetricsRegistry,
} from '../runtime/index.js';
import { CapturingLogger, ManualClock } from '../runtime/testing/index.js';
import { HttpServer } from '../server/index.js';
import { FakeIngesterClient } from './fake_ingesters.testing.js';
import { Querier, type QuerierConfig } from './querier.js';
import { QUERIER_QUERY, QUERIER_SELECT } from './querier_rpc.js';
import { registerQuerierRoutes } from './routes.js';

const NOW = 1_700_000_000_000;
const MIN = 60_000;
const L = (...kv: string[]): Labels => Labels.fromStrings(...kv);
const ADDRS = ['ing-a', 'ing-b', 'ing-c'];
const UP = L('__name__', 'up', 'job', 'api');
const REQS = L('__name__', 'reqs', 'job', 'api');

function ring(clock: ManualClock, count = 3): Ring {
  const r = new Ring(
    {
      name: 'ingester',
      key: 'ring',
      replicationFactor: 3,
      heartbeatTimeoutMs: MIN,
      zoneAwarenessEnabled: false,
    },
    {
      kv: new MemoryKV({}, { store: new MemoryKVStore() }),
      clock,
      logger: new CapturingLogger(),
      metrics: newMetricsRegistry(),
    },
  );
  const ingesters: Record<string, InstanceDesc> = {};
  ADDRS.slice(0, count).forEach((addr, i) => {
    ingesters[addr] = {
      addr,
      timestamp: NOW / 1000,
      state: 'ACTIVE',
      tokens: [i * 1000 + 1],
      zone: '',
      registeredTimestamp: NOW / 1000 - 3600,
    };
  });
  r.setDesc({ ingesters });
  return r;
}

interface Setup {
  querier: Querier;
  client: FakeIngesterClient;
  clock: ManualClock;
  network: MemoryNetwork;
  metrics: MetricsRegistry;
}

function setup(config: Partial<QuerierConfig> = {}): Setup {
  const clock = new ManualClock(NOW);
  const client = new FakeIngesterClient();
  for (const addr of ADDRS) client.ingester(addr);
  const network = new MemoryNetwork();
  const metrics = newMetricsRegistry();
  const querier = new Querier(
    {
      timeoutMs: 2 * MIN,
      maxSamples: 50_000_000,
      lookbackDeltaMs: 5 * MIN,
      queryIngestersWithinMs: 0,
      ...config,
    },
    {
      clock,
      logger: new CapturingLogger(),
      metrics,
      transport: network.transport('querier-1'),
      ingesterRing: ring(clock),
      client,
      buildInfo: TEST_BUILD_INFO,
    },
  );
  return { querier, client, clock, network, metrics };
}

/**
 * `up` every minute for 10 minutes before NOW: on all three ingesters, except the sample at
 * -5m (only on a and b) and at -4m (only on b and c), as quorum writes leave them.
 */
function loadReplicated(client: FakeIngesterClient, tenant = 'team-a'): void {
  const all = Array.from({ length: 11 }, (_, i) => NOW - (10 - i) * MIN);
  const on = (addr: string): [number, number][] =>
    all
      .filter((t) => {
        if (t === NOW - 5 * MIN) return addr !== 'ing-c';
        if (t === NOW - 4 * MIN) return addr !== 'ing-a';
        return true;
      })
      .map((t) => [t, (t - NOW) / MIN + 10]);
  for (const addr of ADDRS) client.add(addr, tenant, UP, on(addr));
  // A series only two ingesters hold.
  client.add('ing-a', tenant, REQS, [[NOW - MIN, 7]]);
  client.add('ing-b', tenant, REQS, [[NOW - MIN, 7]]);
}

function samplesOf(series: StorageSeries): [number, number][] {
  const it = series.iterator();
  const out: [number, number][] = [];
  while (it.next() === SAMPLE_FLOAT) out.push([it.atT(), it.atF()]);
  return out;
}

const EXPECTED_UP = Array.from({ length: 11 }, (_, i) => [NOW - (10 - i) * MIN, i]);

async function selectAll(querier: Querier, tenant: string, mint = NOW - 60 * MIN, maxt = NOW) {
  const q = await querier.queryable(tenant).querier(mint, maxt);
  return q.select([new Matcher('=~', '__name__', '.+')], { start: mint, end: maxt });
}

describe('ingester queryable', () => {
  it('merges replicas: every sample exactly once, series sorted by labels', async () => {
    const { querier, client } = setup();
    loadReplicated(client);
    const series = await selectAll(querier, 'team-a');
    expect(series.map((s) => s.labels.toString())).toEqual([
      '{__name__="reqs", job="api"}',
      '{__name__="up", job="api"}',
    ]);
    expect(samplesOf(series[1] as StorageSeries)).toEqual(EXPECTED_UP);
    expect(samplesOf(series[0] as StorageSeries)).toEqual([[NOW - MIN, 7]]);
    expect(client.calls.filter((c) => c.method === 'queryStream').map((c) => c.addr)).toEqual(
      ADDRS,
    );
  });

  it.each(ADDRS)(
    'tolerates %s being down at RF 3 and still returns every sample once',
    async (down) => {
      const { querier, client } = setup();
      loadReplicated(client);
      client.ingester(down).failure = new RpcError('unavailable', `no peer listening at ${down}`);
      const series = await selectAll(querier, 'team-a');
      expect(samplesOf(series.find((s) => s.labels.equals(UP)) as StorageSeries)).toEqual(
        EXPECTED_UP,
      );
    },
  );

  it('fails naming the ingester error when two of three are down', async () => {
    const { querier, client, metrics } = setup();
    loadReplicated(client);
    client.ingester('ing-a').failure = new RpcError('unavailable', 'no peer listening at ing-a');
    client.ingester('ing-c').failure = new RpcError('unavailable', 'no peer listening at ing-c');
    await expect(selectAll(querier, 'team-a')).rejects.toMatchObject({
      name: 'StorageError',
      errorType: 'internal',
      message: 'failed to query ingester ing-c: no peer listening at ing-c',
    });
    const failures = await metrics.getSingleMetricAsString(
      'cortex_distributor_ingester_query_failures_total',
    );
    expect(failures).toContain(
      'cortex_distributor_ingester_query_failures_total{ingester="ing-a"} 1',
    );
    expect(failures).toContain(
      'cortex_distributor_ingester_query_failures_total{ingester="ing-c"} 1',
    );
  });

  it('does not wait for a hung third ingester once two answered', async () => {
    const { querier, client } = setup();
    loadReplicated(client);
    client.ingester('ing-c').hang = true;
    const series = await selectAll(querier, 'team-a');
    expect(series).toHaveLength(2);
  });

  it('tenant isolation: a tenant sees only its own series and labels', async () => {
    const { querier, client } = setup();
    loadReplicated(client, 'team-a');
    for (const addr of ADDRS)
      client.add(addr, 'team-b', L('__name__', 'secret', 'owner', 'b'), [[NOW - MIN, 1]]);
    const a = await selectAll(querier, 'team-a');
    const b = await selectAll(querier, 'team-b');
    expect(a.map((s) => s.labels.get('__name__'))).toEqual(['reqs', 'up']);
    expect(b.map((s) => s.labels.get('__name__'))).toEqual(['secret']);
    const qa = await querier.queryable('team-a').querier(NOW - 60 * MIN, NOW);
    expect(await qa.labelNames([])).toEqual(['__name__', 'job']);
    expect(await qa.labelValues('__name__', [])).toEqual(['reqs', 'up']);
    expect(
      await querier
        .queryable('team-c')
        .querier(0, NOW)
        .then((q) => q.labelNames([])),
    ).toEqual([]);
    expect(new Set(client.calls.map((c) => c.tenant))).toEqual(
      new Set(['team-a', 'team-b', 'team-c']),
    );
  });

  it('label names and values are the sorted union over ingesters', async () => {
    const { querier, client } = setup();
    client.add('ing-a', 't', L('__name__', 'm', 'zone', 'z1'), [[NOW, 1]]);
    client.add('ing-b', 't', L('__name__', 'm', 'alpha', 'x', 'zone', 'z2'), [[NOW, 1]]);
    client.add('ing-c', 't', L('__name__', 'm', 'zone', 'z0'), [[NOW, 1]]);
    client.ingester('ing-c').hang = true;
    const q = await querier.queryable('t').querier(NOW - MIN, NOW);
    expect(await q.labelNames([])).toEqual(['__name__', 'alpha', 'zone']);
    expect(await q.labelValues('zone', [new Matcher('=', '__name__', 'm')])).toEqual(['z1', 'z2']);
  });

  it('metric metadata: the de-duplicated union over the ingesters, with type names, quorum rules', async () => {
    const { querier, client } = setup();
    const up = { metricFamilyName: 'up', type: 2, help: 'Up.', unit: '' };
    const reqs = { metricFamilyName: 'reqs', type: 1, help: 'Requests.', unit: '' };
    const odd = { metricFamilyName: 'odd', type: 42, help: '', unit: '' };
    client.ingester('ing-a').metadata.set('t', [up, reqs]);
    client.ingester('ing-b').metadata.set('t', [reqs, up, odd]);
    client.ingester('ing-c').metadata.set('t', [up]);
    expect(await querier.ingesters.metricsMetadata('t')).toEqual([
      { metricFamily: 'up', type: 'gauge', help: 'Up.', unit: '' },
      { metricFamily: 'reqs', type: 'counter', help: 'Requests.', unit: '' },
      { metricFamily: 'odd', type: 'unknown', help: '', unit: '' },
    ]);
    expect(await querier.ingesters.metricsMetadata('other')).toEqual([]);
    client.ingester('ing-c').failure = new RpcError('unavailable', 'down');
    expect(await querier.ingesters.metricsMetadata('t')).toHaveLength(3);
    client.ingester('ing-b').failure = new RpcError('unavailable', 'down too');
    await expect(querier.ingesters.metricsMetadata('t')).rejects.toMatchObject({
      name: 'StorageError',
    });
  });

  describe('query_ingesters_within', () => {
    it('skips the ingesters for queries that end before now - within', async () => {
      const { querier, client } = setup({ queryIngestersWithinMs: 60 * MIN });
      loadReplicated(client);
      expect(await selectAll(querier, 'team-a', NOW - 3 * 60 * MIN, NOW - 61 * MIN)).toEqual([]);
      const q = await querier.queryable('team-a').querier(NOW - 3 * 60 * MIN, NOW - 60 * MIN);
      expect(await q.labelNames([])).toEqual([]);
      expect(client.calls).toEqual([]);
    });

    it('clamps the start of a query to now - within', async () => {
      const { querier, client } = setup({ queryIngestersWithinMs: 3 * MIN });
      loadReplicated(client);
      const series = await selectAll(querier, 'team-a', NOW - 60 * MIN, NOW);
      const req = client.calls[0]?.req as { start: number; end: number };
      expect(req.start).toBe(NOW - 3 * MIN);
      expect(req.end).toBe(NOW);
      expect(samplesOf(series.find((s) => s.labels.equals(UP)) as StorageSeries)).toEqual(
        EXPECTED_UP.slice(7),
      );
    });

    it('0 always queries the ingesters', async () => {
      const { querier, client } = setup();
      loadReplicated(client);
      await selectAll(querier, 'team-a', 0, 1000);
      expect(client.calls.length).toBeGreaterThan(0);
    });
  });
});

async function serve(querier: Querier, authEnabled = true): Promise<string> {
  const server = new HttpServer(
    {
      authEnabled,
      prefixes: { legacy: '/api/prom', prometheus: '/prometheus', alertmanager: '/alertmanager' },
    },
    { clock: querier.deps.clock, logger: new CapturingLogger(), metrics: newMetricsRegistry() },
  );
  registerQuerierRoutes(server, querier);
  const http = createServer(server.handler);
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  closers.push(
    () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  );
  return `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
}

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
});

const tenantHeaders = (tenant: string) => ({ headers: { 'X-Scope-OrgID': tenant } });

describe('query API over the ingesters', () => {
  it('answers an instant query with merged data, on both engines and both prefixes', async () => {
    const { querier, client } = setup();
    loadReplicated(client);
    client.ingester('ing-b').failure = new RpcError('unavailable', 'down');
    const base = await serve(querier);
    const expected = `{"status":"success","data":{"resultType":"vector","result":[{"metric":{"__name__":"up","job":"api"},"value":[${(NOW - 4 * MIN) / 1000},"6"]}]}}`;
    const t = (NOW - 4 * MIN) / 1000;
    for (const path of ['/prometheus', '/api/prom', '/mon']) {
      const res = await fetch(
        `${base}${path}/api/v1/query?query=up&time=${t}`,
        tenantHeaders('team-a'),
      );
      expect(res.status).toBe(200);
      expect(await res.text()).toBe(expected);
    }
    const alt = await fetch(`${base}/prometheus/api/v1/query?query=up&time=${t}`, {
      headers: { 'X-Scope-OrgID': 'team-a', 'X-PromQL-EngineType': 'thanos' },
    });
    expect(await alt.text()).toBe(expected);
    const other = await fetch(
      `${base}/prometheus/api/v1/query?query=up&time=${t}`,
      tenantHeaders('team-b'),
    );
    expect(await other.text()).toBe(
      '{"status":"success","data":{"resultType":"vector","result":[]}}',
    );
  });

  it('answers a range query over the merged samples', async () => {
    const { querier, client } = setup();
    loadReplicated(client);
    const base = await serve(querier);
    const start = (NOW - 6 * MIN) / 1000;
    const end = (NOW - 3 * MIN) / 1000;
    const res = await fetch(
      `${base}/prometheus/api/v1/query_range?query=sum(up)&start=${start}&end=${end}&step=60`,
      tenantHeaders('team-a'),
    );
    expect(await res.text()).toBe(
      `{"status":"success","data":{"resultType":"matrix","result":[{"metric":{},"values":[[${start},"4"],[${start + 60},"5"],[${start + 120},"6"],[${end},"7"]]}]}}`,
    );
  });

  it('serves series, labels and label values from the ingesters', async () => {
    const { querier, client } = setup({ queryIngestersWithinMs: 60 * MIN });
    loadReplicated(client);
    const base = await serve(querier);
    const series = await fetch(
      `${base}/prometheus/api/v1/series?match[]=up&start=${(NOW - 10 * MIN) / 1000}&end=${NOW / 1000}`,
      tenantHeaders('team-a'),
    );
    expect(await series.text()).toBe('{"status":"success","data":[{"__name__":"up","job":"api"}]}');
    // Labels only: the ingesters are asked for series, never for their samples.
    expect(new Set(client.calls.map((c) => c.method))).toEqual(new Set(['seriesLabels']));
    const labels = await fetch(`${base}/prometheus/api/v1/labels`, tenantHeaders('team-a'));
    expect(await labels.text()).toBe('{"status":"success","data":["__name__","job"]}');
    const values = await fetch(
      `${base}/api/prom/api/v1/label/__name__/values`,
      tenantHeaders('team-a'),
    );
    expect(await values.text()).toBe('{"status":"success","data":["reqs","up"]}');
    // A series only older than the ingesters' window is still listed (not clamped).
    client.add('ing-a', 'team-a', L('__name__', 'old'), [[NOW - 120 * MIN, 1]]);
    client.add('ing-b', 'team-a', L('__name__', 'old'), [[NOW - 120 * MIN, 1]]);
    const old = await fetch(
      `${base}/prometheus/api/v1/series?match[]=old&start=${(NOW - 180 * MIN) / 1000}&end=${NOW / 1000}`,
      tenantHeaders('team-a'),
    );
    expect(await old.text()).toBe('{"status":"success","data":[{"__name__":"old"}]}');
  });

  it('reports too many failed ingesters as a 500 internal error', async () => {
    const { querier, client } = setup();
    loadReplicated(client);
    client.ingester('ing-a').failure = new RpcError('unavailable', 'no peer listening at ing-a');
    client.ingester('ing-b').failure = new RpcError('unavailable', 'no peer listening at ing-b');
    const base = await serve(querier);
    const res = await fetch(
      `${base}/prometheus/api/v1/query?query=up&time=${NOW / 1000}`,
      tenantHeaders('team-a'),
    );
    expect(res.status).toBe(500);
    expect(await res.json()).toEqual({
      status: 'error',
      errorType: 'internal',
      error: 'failed to query ingester ing-b: no peer listening at ing-b',
    });
  });

  it('serves /api/v1/user_stats and the legacy path with Cortex field names, divided by RF', async () => {
    const { querier, client } = setup();
    const stats = [
      { numSeries: 10, ingestionRate: 30, apiIngestionRate: 30, ruleIngestionRate: 3 },
      { numSeries: 11, ingestionRate: 30, apiIngestionRate: 27, ruleIngestionRate: 3 },
      { numSeries: 10, ingestionRate: 30.5, apiIngestionRate: 30, ruleIngestionRate: 0.5 },
    ];
    ADDRS.forEach((addr, i) =>
      client.ingester(addr).stats.set('team-a', stats[i] as (typeof stats)[number]),
    );
    const base = await serve(querier);
    for (const path of [
      '/api/v1/user_stats',
      '/api/prom/user_stats',
      '/api/mon/user_stats',
      '/prometheus/api/v1/user_stats',
    ]) {
      const res = await fetch(`${base}${path}`, tenantHeaders('team-a'));
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/json');
      expect(await res.text()).toBe(
        '{"ingestionRate":30.166666666666668,"numSeries":10,"APIIngestionRate":87,"RuleIngestionRate":6.5}',
      );
    }
    const unknown = await fetch(`${base}/api/v1/user_stats`, tenantHeaders('nobody'));
    expect(await unknown.text()).toBe(
      '{"ingestionRate":0,"numSeries":0,"APIIngestionRate":0,"RuleIngestionRate":0}',
    );
    expect(
      client.calls
        .filter((c) => c.method === 'userStats')
        .every((c) => ['team-a', 'nobody'].includes(c.tenant)),
    ).toBe(true);
    expect((await fetch(`${base}/api/v1/user_stats`)).status).toBe(401);
  });

  it('user_stats needs every ingester: one failure is a plain-text 500', async () => {
    const { querier, client } = setup();
    client.ingester('ing-c').failure = new RpcError('unavailable', 'no peer listening at ing-c');
    const base = await serve(querier);
    const res = await fetch(`${base}/api/v1/user_stats`, tenantHeaders('team-a'));
    expect(res.status).toBe(500);
    expect(await res.text()).toBe('no peer listening at ing-c\n');
  });
});

describe('simulator RPCs', () => {
  function caller(network: MemoryNetwork) {
    const t = network.transport('workload');
    return (method: string, tenant: string | undefined, body: unknown) =>
      t.call('querier-1', {
        method,
        ...jsonBody(body),
        ...(tenant === undefined ? {} : { headers: { [TENANT_RPC_HEADER]: tenant } }),
      });
  }

  it('querier.Select returns the merged, de-duplicated series', async () => {
    const { querier, client, network } = setup();
    loadReplicated(client);
    await querier.deps.transport.listen();
    const call = caller(network);
    const res = await call(QUERIER_SELECT, 'team-a', {
      matchers: [['=', '__name__', 'up']],
      start: NOW - 60 * MIN,
      end: NOW,
    });
    const series = decodeSeriesSamples(res.body);
    expect(series).toHaveLength(1);
    const s = series[0] as SeriesSamples;
    expect(s.labels.equals(UP)).toBe(true);
    expect([...s.timestamps].map((t, i) => [t, s.values[i]])).toEqual(EXPECTED_UP);
    await expect(
      call(QUERIER_SELECT, undefined, { matchers: [], start: 0, end: 1 }),
    ).rejects.toMatchObject({
      code: 'unauthenticated',
    });
    await expect(
      call(QUERIER_SELECT, 't', { matchers: [['~', 'a', 'b']], start: 0, end: 1 }),
    ).rejects.toMatchObject({
      code: 'invalid_argument',
    });
  });

  it('querier.Select keeps the unavailable code when the quorum fails', async () => {
    const { querier, client, network } = setup();
    client.ingester('ing-a').failure = new RpcError('unavailable', 'down a');
    client.ingester('ing-b').failure = new RpcError('unavailable', 'down b');
    await querier.deps.transport.listen();
    await expect(
      caller(network)(QUERIER_SELECT, 't', {
        matchers: [['=', '__name__', 'up']],
        start: 0,
        end: NOW,
      }),
    ).rejects.toMatchObject({ code: 'unavailable' });
  });

  it('querier.Query answers instant and range queries in the API shape', async () => {
    const { querier, client, network } = setup();
    loadReplicated(client);
    await querier.deps.transport.listen();
    const call = caller(network);
    const instant = await call(QUERIER_QUERY, 'team-a', { query: 'up', time: NOW - 4 * MIN });
    expect(parseJsonBody(instant)).toEqual({
      resultType: 'vector',
      result: [{ metric: { __name__: 'up', job: 'api' }, value: [(NOW - 4 * MIN) / 1000, '6'] }],
    });
    const range = await call(QUERIER_QUERY, 'team-a', {
      query: 'up',
      start: NOW - 2 * MIN,
      end: NOW,
      step: MIN,
      engine: 'thanos',
    });
    expect(parseJsonBody(range)).toEqual({
      resultType: 'matrix',
      result: [
        {
          metric: { __name__: 'up', job: 'api' },
          values: [
            [(NOW - 2 * MIN) / 1000, '8'],
            [(NOW - MIN) / 1000, '9'],
            [NOW / 1000, '10'],
          ],
        },
      ],
    });
    const isolated = await call(QUERIER_QUERY, 'team-b', { query: 'up', time: NOW });
    expect(parseJsonBody(isolated)).toEqual({ resultType: 'vector', result: [] });
  });

  it('querier.Query refuses a bad query or bad range with invalid_argument', async () => {
    const { querier, network } = setup();
    await querier.deps.transport.listen();
    const call = caller(network);
    await expect(call(QUERIER_QUERY, 't', { query: 'sum(', time: NOW })).rejects.toMatchObject({
      code: 'invalid_argument',
    });
    await expect(
      call(QUERIER_QUERY, 't', { query: 'up', start: 10, end: 0, step: 1 }),
    ).rejects.toMatchObject({
      code: 'invalid_argument',
      message: 'end timestamp must not be before start time',
    });
    await expect(
      call(QUERIER_QUERY, 't', { query: 'up', start: 0, end: 10, step: 0 }),
    ).rejects.toMatchObject({
      code: 'invalid_argument',
    });
    await expect(call(QUERIER_QUERY, 't', { time: NOW })).rejects.toMatchObject({
      code: 'invalid_argument',
    });
  });
});
