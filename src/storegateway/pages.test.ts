import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { JSON_RING_CODEC, emptyRingDesc } from '../ring/index.js';
import { MemoryKV, newMetricsRegistry } from '../runtime/index.js';
import { HttpServer } from '../server/index.js';
import type { BlockMeta } from '../tsdb/index.js';
import { formatDuration, renderBlocksPage, renderTimeline, type BlockRow } from './blocks_page.js';
import { markDeleted, uploadFakeBlock } from './fake_blocks.testing.js';
import {
  HOUR,
  T0,
  gatewayConfig,
  newGateway,
  newWorld,
  startGateways,
  type TestGateway,
  type World,
} from './gateway_harness.testing.js';
import { registerStoreGatewayPages } from './pages.js';
import { STORE_GATEWAY_RING_KEY } from './sharding.js';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
});

function meta(
  id: string,
  minTime: number,
  maxTime: number,
  level: number,
  sources: string[],
  labels = {},
): BlockMeta {
  return {
    ulid: id,
    minTime,
    maxTime,
    stats: { numSamples: 0, numSeries: 0, numChunks: 0, numTombstones: 0 },
    compaction: { level, sources },
    version: 1,
    thanos: {
      labels: { __org_id__: 't', ...labels },
      downsample: { resolution: 0 },
      source: 'compactor',
    },
  };
}

const A = '01HZZZZZZZZZZZZZZZZZZZZZZA';
const B = '01HZZZZZZZZZZZZZZZZZZZZZZB';
const C = '01HZZZZZZZZZZZZZZZZZZZZZZC';
const D = '01HZZZZZZZZZZZZZZZZZZZZZZD';

describe('blocks page', () => {
  const rows: BlockRow[] = [
    // Two overlapping level-1 replicas, one level-2 block made from them, marked for deletion.
    {
      id: A,
      meta: meta(A, T0, T0 + 2 * HOUR, 1, [A], { __ingester_id__: 'ing-1' }),
      held: true,
      open: true,
      uploadedAt: T0 + 2 * HOUR,
    },
    {
      id: B,
      meta: meta(B, T0, T0 + 2 * HOUR, 1, [B], { x: '<script>' }),
      held: false,
      open: false,
    },
    {
      id: C,
      meta: meta(C, T0, T0 + 12 * HOUR, 2, [A, B]),
      held: true,
      open: false,
      deletionMarkedAt: T0 + 13 * HOUR,
    },
    { id: D, problem: 'no meta.json (partial block)', held: false, open: false },
  ];
  const html = renderBlocksPage('t', rows, T0 + 14 * HOUR);

  it('lists every block with times, duration, level, sources and deletion info', () => {
    const body = html.slice(html.indexOf('<tbody class="blocks">'));
    const trs = body.split('\n').filter((l) => l.startsWith('<tr'));
    expect(trs).toHaveLength(4);
    expect(trs[0]).toContain(`<td>${A}</td>`);
    expect(trs[0]).toContain(
      '<td>2026-01-10T00:00:00Z</td><td>2026-01-10T02:00:00Z</td><td>2h0m0s</td><td>1</td>',
    );
    expect(trs[0]).toContain('<td>__ingester_id__=&quot;ing-1&quot;</td>');
    expect(trs[0]).toContain('<td>loaded</td>');
    expect(trs[2]).toContain('class="deleted"');
    expect(trs[2]).toContain(`<td>${A}<br>${B}</td>`);
    expect(trs[2]).toContain('<td>2026-01-10T13:00:00Z</td><td>loaded (lazy, closed)</td>');
    expect(trs[3]).toContain('class="problem"');
    expect(trs[3]).toContain('no meta.json (partial block)');
  });

  it('escapes what comes from the bucket', () => {
    expect(html).not.toContain('<script>');
    expect(html).toContain('x=&quot;&lt;script&gt;&quot;');
  });

  it('draws one bar per readable block, a band per level, overlapping blocks in separate lanes', () => {
    const svg = renderTimeline(rows);
    const bars = svg.split('\n').filter((l) => l.startsWith('<rect class="block'));
    expect(bars).toHaveLength(3);
    expect(svg).toContain('>L1</text>');
    expect(svg).toContain('>L2</text>');
    const y = (id: string) =>
      Number(/ y="([\d.]+)"/.exec(bars.find((b) => b.includes(id)) ?? '')?.[1]);
    // A and B overlap in time: same level, different lanes; C is in the band below.
    expect(y(A)).not.toBe(y(B));
    expect(y(C)).toBeGreaterThan(Math.max(y(A), y(B)));
    // Positioned by time: the 12h block spans the whole plot, the 2h ones a sixth of it.
    const width = (id: string) =>
      Number(/ width="([\d.]+)"/.exec(bars.find((b) => b.includes(id)) ?? '')?.[1]);
    expect(width(C) / width(A)).toBeCloseTo(6, 1);
  });

  it('draws deletion-marked blocks differently and lists sources on hover', () => {
    const bar = new RegExp(`<rect[^>]*data-block="${C}"[\\s\\S]*?</rect>`).exec(
      renderTimeline(rows),
    )?.[0];
    expect(bar).toContain('class="block deleted"');
    expect(bar).toContain('fill="url(#deleted)"');
    expect(bar).toContain(`<title>${C}`);
    expect(bar).toContain(`sources: ${A}, ${B}`);
    expect(bar).toContain('marked for deletion at 2026-01-10T13:00:00Z');
  });

  it('formats durations like Go', () => {
    expect(formatDuration(2 * HOUR)).toBe('2h0m0s');
    expect(formatDuration(90_000)).toBe('1m30s');
    expect(formatDuration(1500)).toBe('1.5s');
    expect(formatDuration(0)).toBe('0s');
  });
});

async function serve(g: TestGateway | undefined): Promise<string> {
  const world = newWorld();
  const http = new HttpServer(
    {
      authEnabled: true,
      prefixes: { legacy: '/api/prom', prometheus: '/prometheus', alertmanager: '/alertmanager' },
    },
    { clock: world.clock, logger: world.logger, metrics: newMetricsRegistry() },
  );
  registerStoreGatewayPages(http, () => g?.gateway, world.logger);
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

async function gatewayWithBlocks(world: World, sharding = false): Promise<TestGateway> {
  for (const [tenant, seq] of [
    ['team-a', 1],
    ['team-b', 2],
    ['team-a', 3],
  ] as const)
    await uploadFakeBlock(world.bucket, {
      tenant,
      ulidTime: T0 - HOUR + seq,
      seq,
      minTime: T0 - 3 * HOUR,
      maxTime: T0 - HOUR,
    });
  const g = await newGateway(
    world,
    'sg-1',
    gatewayConfig({ shardingEnabled: sharding, ring: { replicationFactor: 1 } }),
  );
  closers.push(() => g.gateway.stop());
  await startGateways(world, [g]);
  return g;
}

describe('store-gateway pages over HTTP', () => {
  it('lists the bucket tenants with links and held block counts', async () => {
    const g = await gatewayWithBlocks(newWorld());
    const url = await serve(g);
    const res = await fetch(`${url}/store-gateway/tenants`);
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain('<td><a href="tenant/team-a/blocks">team-a</a></td><td>2</td>');
    expect(html).toContain('<td><a href="tenant/team-b/blocks">team-b</a></td><td>1</td>');
  });

  it("serves a tenant's blocks page from the bucket, with deletion marks", async () => {
    const world = newWorld();
    const g = await gatewayWithBlocks(world);
    const [id] = g.gateway.stores.blocks('team-a').map((b) => b.meta.ulid);
    await markDeleted(world.bucket, 'team-a', id ?? '', T0);
    const url = await serve(g);
    const res = await fetch(`${url}/store-gateway/tenant/team-a/blocks`);
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain(
      'Blocks in the bucket: 2; held by this store-gateway: 2; marked for deletion: 1.',
    );
    expect(html).toContain('<svg class="timeline"');
    expect((await fetch(`${url}/store-gateway/tenant/a%7Cb/blocks`)).status).toBe(400);
  });

  it('answers 503 before the gateway exists, and a message when sharding is off', async () => {
    expect((await fetch(`${await serve(undefined)}/store-gateway/tenants`)).status).toBe(503);
    const url = await serve(await gatewayWithBlocks(newWorld()));
    const res = await fetch(`${url}/store-gateway/ring`);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('Store gateway has no ring because sharding is disabled.');
  });

  it('shows the ring and forgets an instance', async () => {
    const world = newWorld();
    const g = await gatewayWithBlocks(world, true);
    const kv = new MemoryKV({ prefix: 'collectors/' }, { store: world.kvStore });
    await kv.cas(STORE_GATEWAY_RING_KEY, (cur) => {
      const desc = cur === undefined ? emptyRingDesc() : JSON_RING_CODEC.decode(cur);
      desc.ingesters['dead'] = {
        addr: 'dead:1',
        timestamp: 1,
        state: 'ACTIVE',
        tokens: [7],
        zone: '',
        registeredTimestamp: 1,
      };
      return JSON_RING_CODEC.encode(desc);
    });
    const url = await serve(g);
    const page = await (await fetch(`${url}/store-gateway/ring`)).text();
    expect(page).toContain('<td>sg-1</td>');
    expect(page).toMatch(/<tr class="unhealthy"><td>dead<\/td>/);
    const res = await fetch(`${url}/store-gateway/ring`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'forget=dead',
      redirect: 'manual',
    });
    expect(res.status).toBe(302);
    const desc = JSON_RING_CODEC.decode(await kv.get(STORE_GATEWAY_RING_KEY));
    expect(Object.keys(desc.ingesters)).toEqual(['sg-1']);
  });
});
