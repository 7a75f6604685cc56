import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { compress } from 'snappyjs';
import { afterEach, describe, expect, it } from 'vitest';
import { PROTOBUF_CONTENT_TYPE, RpcError } from '../runtime/index.js';
import { CapturingLogger } from '../runtime/testing/index.js';
import { HttpServer } from '../server/index.js';
import { makeFixture, type Fixture, type FixtureOptions } from './distributor_fixture.testing.js';
import { registerDistributorRoutes } from './push_http.js';
import { DISTRIBUTOR_PUSH } from './push_rpc.js';
import { buildWriteRequest, type PlainSeries } from './write_request_build.js';
import { encodeWriteRequest } from './write_request_encode.js';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
});

async function serve(f: Fixture): Promise<string> {
  const http = new HttpServer(
    {
      authEnabled: true,
      prefixes: { legacy: '/api/prom', prometheus: '/prometheus', alertmanager: '/alertmanager' },
    },
    { clock: f.clock, logger: new CapturingLogger(), metrics: f.registry },
  );
  registerDistributorRoutes(http, f.distributor);
  const server = createServer(http.handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function series(name: string, extra: [string, string][] = []): PlainSeries {
  return { labels: [['__name__', name], ...extra], samples: [{ value: 1, timestamp: 1.7e12 }] };
}

function body(...s: PlainSeries[]): Uint8Array {
  return encodeWriteRequest(buildWriteRequest({ series: s }));
}

async function post(
  url: string,
  payload: Uint8Array,
  headers: Record<string, string> = { 'X-Scope-OrgID': 't1' },
): Promise<string> {
  const res = await fetch(url, {
    method: 'POST',
    body: payload,
    headers: { 'Content-Type': 'application/x-protobuf', 'Content-Encoding': 'snappy', ...headers },
  });
  const text = (await res.text()).trimEnd();
  return text === '' ? String(res.status) : `${res.status} ${text}`;
}

async function setup(opts: FixtureOptions = {}): Promise<{ f: Fixture; url: string }> {
  const f = makeFixture(opts);
  return { f, url: await serve(f) };
}

describe('push routes', () => {
  it('accepts remote write on /api/v1/push and the legacy and neutral paths', async () => {
    const { f, url } = await setup();
    for (const path of ['/api/v1/push', '/api/prom/push', '/api/mon/push']) {
      expect(await post(`${url}${path}`, compress(body(series('up'))))).toBe('200');
    }
    expect(f.ingesters.seriesNames('a:9095')).toEqual(['up', 'up', 'up']);
  });

  it('answers 400 to a body that is not snappy', async () => {
    const { url } = await setup();
    expect(await post(`${url}/api/v1/push`, new Uint8Array([0x0a, 0x00]))).toBe(
      '400 snappy: corrupt input',
    );
  });

  it('answers 400 to snappy that does not hold a WriteRequest', async () => {
    const { url } = await setup();
    const garbage = compress(new Uint8Array([0x0a, 0x05, 0x01]));
    expect(await post(`${url}/api/v1/push`, garbage)).toMatch(
      /^400 failed to decode remote write request: proto: .* at offset \d+$/,
    );
  });

  it('answers 400 to a body over the size limit, naming both sizes', async () => {
    const { url } = await setup({ config: { maxRecvMsgSize: 64 } });
    const big = compress(Uint8Array.from({ length: 200 }, (_, i) => (i * 131 + 7) & 0xff));
    expect(await post(`${url}/api/v1/push`, big)).toBe(
      `400 received message larger than max (${big.length} vs 64)`,
    );
  });

  it('answers 400 when the decompressed message is over the limit', async () => {
    const { url } = await setup({ config: { maxRecvMsgSize: 100 } });
    const zeros = compress(new Uint8Array(1000));
    expect(zeros.length).toBeLessThan(100);
    expect(await post(`${url}/api/v1/push`, zeros)).toBe(
      `400 decompressed message larger than max (1000 vs 100; compressed size ${zeros.length})`,
    );
  });

  it('answers 401 without a tenant', async () => {
    const { url } = await setup();
    expect(await post(`${url}/api/v1/push`, compress(body(series('up'))), {})).toBe(
      '401 no org id: the X-Scope-OrgID header is required',
    );
  });

  it('answers 400 naming the invalid series and keeps the valid one', async () => {
    const { f, url } = await setup();
    const payload = compress(body(series('ok'), series('bad', [['a-b', '1']])));
    expect(await post(`${url}/api/v1/push`, payload)).toBe(
      '400 sample invalid label: "a-b" metric "bad{a-b=\\"1\\"}"',
    );
    expect(f.ingesters.seriesNames('b:9095')).toEqual(['ok']);
  });

  it('answers 429 over the rate limit and 202 to a deduped HA replica', async () => {
    const { url } = await setup({
      limits: { ingestion_rate: 1, ingestion_burst_size: 1 },
      runtimeYaml:
        'overrides:\n  ha:\n    accept_ha_samples: true\n    ingestion_rate: 1000\n    ingestion_burst_size: 1000\n',
    });
    expect(await post(`${url}/api/v1/push`, compress(body(series('a'), series('b'))))).toBe(
      '429 ingestion rate limit (1) exceeded while adding 2 samples and 0 metadata',
    );
    const ha = (r: string) =>
      compress(
        body(
          series('up', [
            ['__replica__', r],
            ['cluster', 'c'],
          ]),
        ),
      );
    const headers = { 'X-Scope-OrgID': 'ha' };
    expect(await post(`${url}/api/v1/push`, ha('r1'), headers)).toBe('200');
    expect(await post(`${url}/api/v1/push`, ha('r2'), headers)).toBe(
      '202 replicas did not mach, rejecting sample: replica=r2, elected=r1',
    );
    const page = await (await fetch(`${url}/distributor/ha_tracker`)).text();
    expect(page).toContain('<td>ha</td><td>c</td><td>r1</td>');
    expect((await fetch(`${url}/ha-tracker`)).status).toBe(200);
  });

  it('answers 500 naming the ingester when the quorum fails', async () => {
    const { f, url } = await setup();
    for (const a of ['a:9095', 'b:9095', 'c:9095'])
      f.ingesters.set(a, { kind: 'fail', error: new RpcError('unavailable', 'gone') });
    expect(await post(`${url}/api/v1/push`, compress(body(series('up'))))).toMatch(
      /^500 failed pushing to ingester [abc]:9095 \(unavailable\): gone$/,
    );
  });
});

describe('all_user_stats page', () => {
  it('renders HTML by default and JSON on Accept: application/json', async () => {
    const { f, url } = await setup();
    for (const a of ['a:9095', 'b:9095']) {
      f.ingesters.setStats(a, [
        {
          tenant: 'team<1>',
          stats: { numSeries: 5, ingestionRate: 1.5, apiIngestionRate: 1, ruleIngestionRate: 0.5 },
          loadedBlocks: 2,
        },
      ]);
    }
    const html = await fetch(`${url}/distributor/all_user_stats`);
    expect(html.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const text = await html.text();
    expect(text).toContain(
      '<td>team&lt;1&gt;</td><td align="right">4</td><td align="right">10</td>',
    );
    expect(text).toContain('<th>Loaded Blocks</th>');
    expect(text).toContain('<td align="right">3.00</td><td align="right">2.00</td>');
    expect(text).toContain('replication factor, which is currently set to 3');
    const json = await fetch(`${url}/all_user_stats`, {
      headers: { Accept: 'application/json' },
    });
    expect(await json.json()).toEqual([
      {
        userID: 'team<1>',
        ingestionRate: 3,
        numSeries: 10,
        APIIngestionRate: 2,
        RuleIngestionRate: 1,
        loadedBlocks: 4,
      },
    ]);
  });

  it('answers 500 when an ingester cannot answer', async () => {
    const { f, url } = await setup();
    f.ingesters.set('c:9095', { kind: 'fail', error: new RpcError('internal', 'boom') });
    const res = await fetch(`${url}/distributor/all_user_stats`);
    expect(res.status).toBe(500);
    expect(await res.text()).toBe('boom\n');
  });
});

describe('distributor.Push RPC', () => {
  it('pushes an uncompressed WriteRequest and answers {"status":200}', async () => {
    const f = makeFixture();
    const transport = f.network.transport('client');
    const addr = await listenDistributor(f);
    const res = await transport.call(addr, {
      method: DISTRIBUTOR_PUSH,
      body: body(series('up')),
      contentType: PROTOBUF_CONTENT_TYPE,
      headers: { 'x-scope-orgid': 't1', 'x-strata-push-source': 'rule' },
    });
    expect(JSON.parse(new TextDecoder().decode(res.body))).toEqual({ status: 200 });
    expect(f.ingesters.received.get('a:9095')?.[0]?.source).toBe('rule');
  });

  it('maps failures to RPC codes with the HTTP route messages', async () => {
    const f = makeFixture({
      limits: { ingestion_rate: 1, ingestion_burst_size: 1 },
      runtimeYaml:
        'overrides:\n  ha:\n    accept_ha_samples: true\n    ingestion_rate: 1000\n    ingestion_burst_size: 1000\n',
    });
    const transport = f.network.transport('client');
    const addr = await listenDistributor(f);
    const push = async (payload: Uint8Array, tenant?: string): Promise<string> => {
      try {
        const res = await transport.call(addr, {
          method: DISTRIBUTOR_PUSH,
          body: payload,
          contentType: PROTOBUF_CONTENT_TYPE,
          headers: tenant === undefined ? {} : { 'x-scope-orgid': tenant },
        });
        return new TextDecoder().decode(res.body);
      } catch (e) {
        if (e instanceof RpcError) return `${e.code}: ${e.message}`;
        throw e;
      }
    };
    expect(await push(body(series('up')))).toBe('unauthenticated: no org id');
    expect(await push(body(series('bad', [['a-b', '1']])), 't1')).toBe(
      'invalid_argument: sample invalid label: "a-b" metric "bad{a-b=\\"1\\"}"',
    );
    expect(await push(body(series('a'), series('b')), 't1')).toBe(
      'resource_exhausted: ingestion rate limit (1) exceeded while adding 2 samples and 0 metadata',
    );
    expect(await push(new Uint8Array([0x0a, 0x05]), 't1')).toMatch(
      /^invalid_argument: failed to decode remote write request: proto: /,
    );
    const ha = (r: string) =>
      body(
        series('up', [
          ['__replica__', r],
          ['cluster', 'c'],
        ]),
      );
    expect(await push(ha('r1'), 'ha')).toBe('{"status":200}');
    expect(await push(ha('r2'), 'ha')).toBe('{"status":202}');
    for (const a of ['a:9095', 'b:9095', 'c:9095'])
      f.ingesters.set(a, { kind: 'fail', error: new RpcError('unavailable', 'gone') });
    expect(await push(body(series('up')), 'ha')).toMatch(
      /^internal: failed pushing to ingester [abc]:9095 \(unavailable\): gone$/,
    );
  });
});

/** The fixture's distributor registered its handler on transport `distributor-1`. */
async function listenDistributor(f: Fixture): Promise<string> {
  const transport = f.transport;
  const addr = await transport.listen();
  closers.push(() => transport.close());
  return addr;
}
