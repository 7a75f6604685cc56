import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { compress } from 'snappyjs';
import { afterEach, describe, expect, it } from 'vitest';
import { DiskFileSystem } from '../../sim/testing/index.js';
import { Matcher } from '../model/index.js';
import { MemoryBucket, RpcError, newMetricsRegistry, type Bucket } from '../runtime/index.js';
import { CapturingLogger, ManualClock } from '../runtime/testing/index.js';
import { HttpServer } from '../server/index.js';
import { registerIngesterRoutes } from './ingester_http.js';
import {
  HOUR,
  INGESTER_ADDR,
  buildHarness,
  lines,
  series,
  batch,
  writeRequest,
  type Harness,
} from './ingester_harness.testing.js';
import { toWireMatchers } from './wire.js';

const START = 1_700_000_000_000;
const ALL = toWireMatchers([Matcher.regex('__name__', '.+')]);
const range = { start: START - 4 * HOUR, end: START + HOUR, matchers: ALL };

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
});

interface Setup extends Harness {
  url: string;
  fs: DiskFileSystem;
  clock: ManualClock;
}

async function setup(o: { bucket?: (clock: ManualClock) => Bucket } = {}): Promise<Setup> {
  const clock = new ManualClock(START);
  const fs = new DiskFileSystem();
  const logger = new CapturingLogger();
  const h = await buildHarness({
    clock,
    fs,
    logger,
    ...(o.bucket === undefined ? {} : { bucket: o.bucket(clock) }),
  });
  await h.ingester.start(new AbortController().signal);
  await clock.advance(0);
  closers.push(() => h.ingester.stop());
  const http = new HttpServer(
    {
      authEnabled: true,
      prefixes: { legacy: '/api/prom', prometheus: '/prometheus', alertmanager: '/alertmanager' },
    },
    { clock, logger, metrics: newMetricsRegistry() },
  );
  registerIngesterRoutes(http, h.ingester);
  const server = createServer(http.handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return { ...h, fs, clock, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

const form = (body: string): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body,
});

async function blockCount(fs: DiskFileSystem, tenant: string): Promise<number> {
  let n = 0;
  for (const e of await fs.readdir(`/data/tsdb/${tenant}`))
    if (await fs.exists(`/data/tsdb/${tenant}/${e}/meta.json`)) n++;
  return n;
}

async function push(h: Setup, tenant: string, ...s: Parameters<typeof series>[]): Promise<void> {
  await h.client.push(INGESTER_ADDR, tenant, batch(...s.map((a) => series(...a))), 'api');
}

describe('/ingester/mode', () => {
  it('switches by form field or query parameter, case-insensitively', async () => {
    const h = await setup();
    let res = await fetch(`${h.url}/ingester/mode`, form('mode=readonly'));
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('Ingester mode READONLY');
    expect((await h.ringDesc()).ingesters['ingester-1']?.state).toBe('READONLY');
    res = await fetch(`${h.url}/ingester/mode?mode=ACTIVE`);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('Ingester mode ACTIVE');
    expect((await h.ringDesc()).ingesters['ingester-1']?.state).toBe('ACTIVE');
  });

  it('answers 400 naming a bad or missing mode', async () => {
    const h = await setup();
    let res = await fetch(`${h.url}/ingester/mode?mode=sleepy`);
    expect(res.status).toBe(400);
    expect(await res.text()).toBe('invalid mode input: "sleepy" (want ACTIVE or READONLY)\n');
    res = await fetch(`${h.url}/ingester/mode`, { method: 'POST' });
    expect(res.status).toBe(400);
    expect(await res.text()).toMatch(/parameter mode is missing/);
    expect((await h.ringDesc()).ingesters['ingester-1']?.state).toBe('ACTIVE');
  });
});

describe('/ingester/flush', () => {
  it('with wait=true cuts the named tenants into blocks before answering 204', async () => {
    const h = await setup();
    await push(h, 't1', ['up', {}, [START, 1]]);
    await push(h, 't2', ['up', {}, [START, 1]]);
    const res = await fetch(`${h.url}/ingester/flush`, form('tenant=t1&wait=true'));
    expect(res.status).toBe(204);
    expect(await blockCount(h.fs, 't1')).toBe(1);
    expect(await blockCount(h.fs, 't2')).toBe(0);
    const all = await fetch(`${h.url}/flush?wait=true`);
    expect(all.status).toBe(204);
    expect(await blockCount(h.fs, 't2')).toBe(1);
    // The flushed samples are still queryable (now from the block).
    expect(lines(await h.client.queryStream(INGESTER_ADDR, 't1', range))).toEqual([
      `{__name__="up"} ${START}=1`,
    ]);
  });

  it('with wait=true and a bucket answers after the flushed tenants were shipped', async () => {
    let bucket: MemoryBucket | undefined;
    const h = await setup({ bucket: (clock) => (bucket = new MemoryBucket({ clock })) });
    await push(h, 't1', ['up', {}, [START, 1]]);
    await push(h, 't2', ['up', {}, [START, 1]]);
    const res = await fetch(`${h.url}/ingester/flush`, form('tenant=t1&wait=true'));
    expect(res.status).toBe(204);
    const metas = (await bucket?.list('', { recursive: true }))?.filter((n) =>
      n.endsWith('/meta.json'),
    );
    expect(metas).toHaveLength(1);
    expect(metas?.[0]).toMatch(/^t1\/[0-9A-Z]{26}\/meta\.json$/);
  });
});

describe('/ingester/shutdown', () => {
  it('flushes, unregisters, stops being ready and refuses requests; the service stays Running', async () => {
    const h = await setup();
    await push(h, 't1', ['up', {}, [START, 1]]);
    const res = await fetch(`${h.url}/ingester/shutdown`, { method: 'POST' });
    expect(res.status).toBe(204);
    // unregister_on_shutdown is off in the harness: shutdown removes the instance anyway.
    expect((await h.ringDesc()).ingesters['ingester-1']).toBeUndefined();
    expect(h.ingester.isReady()).toMatch(/shut down/);
    expect(h.ingester.state).toBe('Running');
    expect(await blockCount(h.fs, 't1')).toBe(1);
    await expect(push(h, 't1', ['up', {}, [START + 1, 2]])).rejects.toThrow(
      new RpcError('unavailable', 'ingester has been shut down (/ingester/shutdown)'),
    );
    // A second call (the legacy path) is harmless.
    expect((await fetch(`${h.url}/shutdown`)).status).toBe(204);
    expect((await fetch(`${h.url}/ingester/flush?wait=true`)).status).toBe(204);
  });

  it('ships the flushed blocks before answering', async () => {
    let bucket: MemoryBucket | undefined;
    const h = await setup({ bucket: (clock) => (bucket = new MemoryBucket({ clock })) });
    await push(h, 't1', ['up', {}, [START, 1]]);
    expect((await fetch(`${h.url}/ingester/shutdown`, { method: 'POST' })).status).toBe(204);
    const names = (await bucket?.list('t1/', { recursive: true })) ?? [];
    expect(names.filter((n) => n.endsWith('/meta.json'))).toHaveLength(1);
    expect(names.some((n) => n.endsWith('/tombstones'))).toBe(false);
  });
});

describe('/ingester/push', () => {
  const body = (...s: Parameters<typeof series>[]): RequestInit => ({
    method: 'POST',
    headers: {
      'content-type': 'application/x-protobuf',
      'content-encoding': 'snappy',
      'x-scope-orgid': 't1',
    },
    body: compress(writeRequest(...s.map((a) => series(...a)))),
  });

  it('pushes a remote-write body straight into the ingester for the tenant', async () => {
    const h = await setup();
    const res = await fetch(`${h.url}/ingester/push`, body(['up', { job: 'x' }, [START, 3]]));
    expect(res.status).toBe(200);
    expect(lines(await h.client.queryStream(INGESTER_ADDR, 't1', range))).toEqual([
      `{__name__="up", job="x"} ${START}=3`,
    ]);
  });

  it('answers 400 with the first rejection and keeps the accepted samples', async () => {
    const h = await setup();
    await push(h, 't1', ['up', {}, [START, 1]]);
    const res = await fetch(
      `${h.url}/push`,
      body(['up', { job: 'old' }, [START - 3 * HOUR, 1]], ['up', { job: 'ok' }, [START, 2]]),
    );
    expect(res.status).toBe(400);
    expect(await res.text()).toMatch(
      /^user=t1: err: .*out of bounds.*timestamp=2023-11-14T19:13:20Z, series=\{__name__="up", job="old"\}\n$/,
    );
    expect(lines(await h.client.queryStream(INGESTER_ADDR, 't1', range))).toEqual([
      `{__name__="up"} ${START}=1`,
      `{__name__="up", job="ok"} ${START}=2`,
    ]);
  });

  it('refuses a tenant-less, garbage or READONLY push with the right status', async () => {
    const h = await setup();
    const noTenant = await fetch(`${h.url}/ingester/push`, {
      method: 'POST',
      body: compress(writeRequest(series('up', {}, [START, 1]))),
    });
    expect(noTenant.status).toBe(401);
    const garbage = await fetch(`${h.url}/ingester/push`, {
      method: 'POST',
      headers: { 'x-scope-orgid': 't1' },
      body: new Uint8Array([1, 2, 3, 4]),
    });
    expect(garbage.status).toBe(400);
    expect(await garbage.text()).toMatch(/snappy/);
    await h.ingester.setMode('READONLY');
    const readonly = await fetch(`${h.url}/ingester/push`, body(['up', {}, [START, 1]]));
    expect(readonly.status).toBe(503);
    expect(await readonly.text()).toMatch(/READONLY/);
    expect(h.ingester.dbs.tenantIds()).toEqual([]);
  });
});

describe('/ingester/all_user_stats', () => {
  it('renders the HTML page, most series first, and JSON when asked', async () => {
    const h = await setup();
    await push(h, 'small', ['up', {}, [START, 1]]);
    await push(h, "big'one", ['a', {}, [START, 1]], ['b', {}, [START, 1]]);
    const page = await fetch(`${h.url}/ingester/all_user_stats`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await page.text();
    expect(html).toContain('<h1>Ingester Stats</h1>');
    for (const col of [
      'User',
      'Loaded Blocks',
      '# Series',
      'Total Ingest Rate',
      'API Ingest Rate',
      'Rule Ingest Rate',
    ])
      expect(html).toContain(`<th>${col}</th>`);
    expect(html).toContain('big&#39;one');
    // No block cut yet: 0 loaded blocks, then 2 series.
    expect(html).toContain('<tr><td>big&#39;one</td><td class="num">0</td><td class="num">2</td>');
    expect(html.indexOf('big&#39;one')).toBeLessThan(html.indexOf('small'));
    const json = await fetch(`${h.url}/ingester/all_user_stats`, {
      headers: { accept: 'application/json' },
    });
    expect(json.headers.get('content-type')).toBe('application/json');
    const stats = (await json.json()) as Record<string, unknown>[];
    expect(stats.map((s) => [s['userID'], s['numSeries']])).toEqual([
      ["big'one", 2],
      ['small', 1],
    ]);
    expect(stats[0]).toHaveProperty('APIIngestionRate');
    expect(stats[0]).toHaveProperty('RuleIngestionRate');
    expect(stats[0]).toHaveProperty('ingestionRate');
  });
});
