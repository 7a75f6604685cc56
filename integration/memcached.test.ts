/**
 * The memcached cache client against three real memcached processes (Debian's memcached):
 * the Cache contract, keys spread by jump hash over all three, `dns+localhost:PORT`
 * discovery, TTLs on the server's clock, and a server killed mid-run — its keys become
 * misses, nothing throws, and the other servers keep answering.
 */
import { lookup } from 'node:dns/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemcachedClient, ServerSelector, type MemcachedClientConfig } from '../src/cache/index.js';
import { newMetricsRegistry, type MetricsRegistry } from '../src/runtime/metrics.js';
import { NetDialer, NodeResolver, RealClock } from '../src/runtime/real/index.js';
import { CapturingLogger, describeCacheContract } from '../src/runtime/testing/index.js';
import { startMemcached, type MemcachedService } from './services/memcached.js';

const enc = new TextEncoder();
const dec = new TextDecoder();

let servers: MemcachedService[] = [];
let localhostIps: string[] = [];
const opened: MemcachedClient[] = [];

beforeAll(async () => {
  localhostIps = [...new Set((await lookup('localhost', { all: true })).map((a) => a.address))];
  servers = await Promise.all([0, 1, 2].map(() => startMemcached({ listen: localhostIps })));
});
afterAll(async () => {
  await Promise.all(opened.map((c) => c.close()));
  await Promise.all(servers.map((s) => s.stop()));
});

function open(
  overrides: Partial<MemcachedClientConfig> = {},
  registry: MetricsRegistry = newMetricsRegistry(),
): MemcachedClient {
  const logger = new CapturingLogger();
  const client = new MemcachedClient(
    {
      name: 'it-cache',
      addresses: servers.map((s) => `dns+localhost:${s.port}`),
      timeoutMs: 500,
      maxIdleConnections: 4,
      maxAsyncConcurrency: 10,
      maxAsyncBufferSize: 10_000,
      maxGetMultiConcurrency: 20,
      maxGetMultiBatchSize: 50,
      maxItemSize: 1 << 20,
      ...overrides,
    },
    {
      clock: new RealClock({}, { logger }),
      logger,
      registry,
      resolver: new NodeResolver(),
      dialer: new NetDialer(),
    },
  );
  opened.push(client);
  return client;
}

let contractRun = 0;
describeCacheContract(
  'MemcachedClient (three real memcached)',
  async ({ maxSizeBytes }) => {
    // The servers are shared by every test here: clear the contract's fixed keys first.
    const client = open({ name: `contract-${++contractRun}`, maxItemSize: maxSizeBytes });
    for (const k of ['a', 'b', 'c', 'k', 'small', 'big', 'short', 'long', 'forever'])
      await client.delete(k);
    await client.delete(`chunks:${'0123456789abcdef'.repeat(8)}`);
    return { cache: client, flush: () => client.flush(), cleanup: () => Promise.resolve() };
  },
  { clockDrivenTtl: false, exactLru: false },
);

describe('MemcachedClient on real memcached', () => {
  const keys = Array.from({ length: 300 }, (_, i) => `it:key:${i}`);
  const value = (k: string): Uint8Array => enc.encode(`value of ${k} `.repeat(20));

  it('resolves dns+localhost addresses and spreads keys over all three servers by jump hash', async () => {
    const registry = newMetricsRegistry();
    const client = open({}, registry);
    client.setMulti(new Map(keys.map((k) => [k, value(k)])), 60_000);
    await client.flush();
    const hits = await client.getMulti([...keys, 'it:absent']);
    expect(hits.size).toBe(keys.length);
    for (const k of keys) expect(dec.decode(hits.get(k))).toBe(dec.decode(value(k)));

    const resolved = servers.flatMap((s) =>
      localhostIps.map((ip) => (ip.includes(':') ? `[${ip}]:${s.port}` : `${ip}:${s.port}`)),
    );
    expect(await registry.metrics()).toContain(
      `cortex_memcache_client_servers{name="it-cache"} ${resolved.length}`,
    );
    const selector = new ServerSelector(resolved);
    expect(client.servers).toEqual(selector.servers);
    // Ask each server directly: it holds exactly the keys the selector assigns to it.
    for (const s of servers) {
      const direct = open({ name: `direct-${s.port}`, addresses: [s.address] });
      const held = [...(await direct.getMulti(keys)).keys()].sort();
      const expected = keys.filter((k) => selector.pick(k)?.endsWith(`:${s.port}`)).sort();
      expect(held).toEqual(expected);
      expect(held.length).toBeGreaterThan(keys.length / 6);
    }
  });

  it('deletes keys and expires entries on the server clock', async () => {
    const client = open();
    client.setMulti(
      new Map([
        ['it:del', enc.encode('x')],
        ['it:ttl', enc.encode('y')],
      ]),
      60_000,
    );
    client.setMulti(new Map([['it:short', enc.encode('z')]]), 1_000);
    await client.flush();
    expect([...(await client.getMulti(['it:del', 'it:ttl', 'it:short'])).keys()].sort()).toEqual([
      'it:del',
      'it:short',
      'it:ttl',
    ]);
    await client.delete('it:del');
    await new Promise((r) => setTimeout(r, 2_200));
    expect([...(await client.getMulti(['it:del', 'it:ttl', 'it:short'])).keys()]).toEqual([
      'it:ttl',
    ]);
  });

  it('turns a server killed mid-run into misses for its keys, without throwing', async () => {
    const registry = newMetricsRegistry();
    const client = open({ name: 'it-kill' }, registry);
    const victim = servers[2]!;
    client.setMulti(new Map(keys.map((k) => [k, value(k)])), 60_000);
    await client.flush();
    const survivors = keys.filter(
      (k) => !new ServerSelector(client.servers).pick(k)!.endsWith(`:${victim.port}`),
    );
    expect(survivors.length).toBeLessThan(keys.length);

    // Reads keep running while the server dies.
    let stop = false;
    const reader = (async () => {
      let rounds = 0;
      while (!stop) {
        const hits = await client.getMulti(keys);
        for (const [k, v] of hits) expect(dec.decode(v)).toBe(dec.decode(value(k)));
        rounds++;
      }
      return rounds;
    })();
    await new Promise((r) => setTimeout(r, 100));
    await victim.kill();
    await new Promise((r) => setTimeout(r, 300));
    stop = true;
    expect(await reader).toBeGreaterThan(1);

    const hits = await client.getMulti(keys);
    expect([...hits.keys()].sort()).toEqual([...survivors].sort());
    client.setMulti(new Map(keys.map((k) => [k, value(k)])), 60_000);
    await client.flush();
    await client.delete(keys[0]!);
    const metrics = await registry.metrics();
    expect(metrics).toMatch(
      /thanos_memcached_operation_failures_total\{name="it-kill",operation="getmulti",reason="network-error"\} [1-9]/,
    );
  });
});
