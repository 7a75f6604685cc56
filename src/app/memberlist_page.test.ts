import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { defaultConfig } from '../config/index.js';
import { JSON_RING_CODEC, RING_MERGE_CODEC } from '../ring/index.js';
import { newMetricsRegistry, type MemberlistKV } from '../runtime/index.js';
import { TestCluster } from '../runtime/memberlist/memberlist_fixture.testing.js';
import { CapturingLogger, ManualClock } from '../runtime/testing/index.js';
import { HttpServer } from '../server/index.js';
import {
  bindMemberlist,
  kvStoreUsesMemberlist,
  memberlistKVConfigFrom,
  RING_VALUE_CODEC,
} from './memberlist_kv.js';
import {
  registerMemberlistPage,
  renderMemberlistPage,
  serveMemberlistPage,
} from './memberlist_page.js';

let cluster: TestCluster;
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
  await cluster.stopAll();
});

async function twoMembers() {
  cluster = new TestCluster([RING_MERGE_CODEC]);
  const a = await cluster.add('a<b>');
  await cluster.add('c', { joinMembers: ['a<b>'] });
  const ring = a.kv.openClient('collectors/', 'ringDesc');
  await ring.cas('ring', () =>
    JSON_RING_CODEC.encode({
      ingesters: {
        i1: {
          addr: 'x:1',
          timestamp: 1,
          state: 'ACTIVE',
          tokens: [1],
          zone: '',
          registeredTimestamp: 0,
        },
      },
    }),
  );
  await cluster.advance(1_000);
  return a.kv;
}

describe('/memberlist page', () => {
  it('lists members with state, incarnation and address, keys with codec, version and size, and messages', async () => {
    const kv = await twoMembers();
    const html = renderMemberlistPage(kv.status(), cluster.clock.now());
    expect(html).toContain('<td>a&lt;b&gt;</td><td>a&lt;b&gt;</td><td>ALIVE</td><td>1</td>');
    expect(html).toContain('<td>c</td><td>c</td><td>ALIVE</td>');
    expect(html).toMatch(
      /<a href="\?viewKey=collectors%2Fring">collectors\/ring<\/a><\/td><td>ringDesc<\/td><td>1<\/td><td>\d+<\/td><td>1<\/td><td>no<\/td>/,
    );
    expect(html).toContain('<h2>Sent messages</h2>');
    expect(html).toMatch(
      /<td>collectors\/ring<\/td><td>ringDesc<\/td><td>\d+<\/td><td>1<\/td><td>no<\/td><td>i1<\/td>/,
    );
    expect(html).not.toContain('<b>');
  });

  it('shows a key as clients read it, 404 for an unknown key, and the whole status as JSON', async () => {
    const kv = await twoMembers();
    const view = serveMemberlistPage(kv, 0, new URLSearchParams({ viewKey: 'collectors/ring' }));
    expect(view.status).toBe(200);
    expect(JSON_RING_CODEC.decode(new TextEncoder().encode(view.body)).ingesters['i1']?.state).toBe(
      'ACTIVE',
    );
    expect(serveMemberlistPage(kv, 0, new URLSearchParams({ viewKey: 'nope' })).status).toBe(404);
    const json = JSON.parse(
      serveMemberlistPage(kv, 0, new URLSearchParams({ format: 'json' })).body,
    ) as {
      numMembers: number;
    };
    expect(json.numMembers).toBe(2);
  });

  it('is served at /memberlist, and answers 503 without a memberlist KV', async () => {
    const kv = await twoMembers();
    const current: { kv?: MemberlistKV } = {};
    const server = new HttpServer(
      {
        authEnabled: false,
        prefixes: { legacy: '/api/prom', prometheus: '/prometheus', alertmanager: '/alertmanager' },
      },
      { clock: new ManualClock(0), logger: new CapturingLogger(), metrics: newMetricsRegistry() },
    );
    registerMemberlistPage(server, { kv: () => current.kv, clock: cluster.clock });
    const http = createServer(server.handler);
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    closers.push(() => new Promise<void>((resolve) => http.close(() => resolve())));
    const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/memberlist`;
    expect((await fetch(url)).status).toBe(503);
    current.kv = kv;
    const res = await fetch(url);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('Memberlist status');
  });
});

describe('memberlist KV wiring helpers', () => {
  it('maps the memberlist block to the runtime settings', () => {
    cluster = new TestCluster();
    const config = defaultConfig();
    const runtime = memberlistKVConfigFrom(config.memberlist);
    expect(runtime).toMatchObject({
      randomizeNodeName: true,
      streamTimeoutMs: 10_000,
      retransmitFactor: 4,
      pullPushIntervalMs: 30_000,
      gossipIntervalMs: 200,
      gossipNodes: 3,
      leftIngestersTimeoutMs: 300_000,
      leaveTimeoutMs: 5_000,
      joinMembers: [],
    });
  });

  it('binds memberlist specs (also inside multi) to the process KV and the codec', () => {
    cluster = new TestCluster();
    const kv = {} as MemberlistKV;
    const get = (): MemberlistKV => kv;
    const bound = bindMemberlist(
      { store: 'multi', primary: { store: 'inmemory' }, secondary: { store: 'memberlist' } },
      get,
      RING_VALUE_CODEC,
    );
    expect(bound).toEqual({
      store: 'multi',
      primary: { store: 'inmemory' },
      secondary: { store: 'memberlist', memberlistKV: get, codec: 'ringDesc' },
    });
    const block = defaultConfig().ingester.lifecycler.ring.kvstore;
    expect(kvStoreUsesMemberlist(block)).toBe(false);
    expect(kvStoreUsesMemberlist({ ...block, store: 'memberlist' })).toBe(true);
    expect(
      kvStoreUsesMemberlist({
        ...block,
        store: 'multi',
        multi: { ...block.multi, secondary: 'memberlist' },
      }),
    ).toBe(true);
  });
});
