import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../runtime/testing/manual_clock.js';
import { describeCacheContract } from '../runtime/testing/cache_contract.js';
import type { MemcachedClient } from './memcached_client.js';
import {
  bytes,
  entries,
  memcachedTestbed,
  metricValue,
  settle,
} from './memcached_client_testkit.js';
import { ServerSelector } from './server_selector.js';

const SERVERS = ['mc-1:11211', 'mc-2:11211', 'mc-10:11211'];
const dec = new TextDecoder();
const text = (m: Map<string, Uint8Array>): Record<string, string> =>
  Object.fromEntries([...m].map(([k, v]) => [k, dec.decode(v)]));

describeCacheContract(
  'MemcachedClient (fake servers)',
  ({ clock, maxSizeBytes }) => {
    const bed = memcachedTestbed(clock, SERVERS);
    const cache = bed.open({ maxItemSize: maxSizeBytes });
    return Promise.resolve({ cache, flush: () => cache.flush(), cleanup: () => Promise.resolve() });
  },
  { clockDrivenTtl: true, exactLru: false },
);

describe('MemcachedClient', () => {
  const clients: MemcachedClient[] = [];
  afterEach(async () => {
    for (const c of clients.splice(0)) await c.close();
  });
  function setup(overrides: Parameters<ReturnType<typeof memcachedTestbed>['open']>[0] = {}) {
    const clock = new ManualClock(1_000_000);
    const bed = memcachedTestbed(clock, SERVERS);
    const cache = bed.open(overrides);
    clients.push(cache);
    const keys = Array.from({ length: 60 }, (_, i) => `key-${i}`);
    const all = Object.fromEntries(keys.map((k) => [k, `value of ${k}`]));
    return { clock, cache, keys, all, ...bed };
  }

  it('spreads keys over the servers by jump hash over naturally sorted addresses', async () => {
    const { cache, network, keys, all, registry } = setup();
    expect(cache.servers).toEqual(['mc-1:11211', 'mc-2:11211', 'mc-10:11211']);
    cache.setMulti(entries(all), 60_000);
    await cache.flush();
    const selector = new ServerSelector(SERVERS);
    for (const k of keys) expect(network.server(selector.pick(k)!).get(k)).toEqual(bytes(all[k]!));
    for (const s of SERVERS) expect(network.server(s).items.size).toBeGreaterThan(5);
    expect(text(await cache.getMulti([...keys, 'absent']))).toEqual(all);
    expect(
      await metricValue(registry, 'cortex_memcache_client_servers', { name: 'test-cache' }),
    ).toBe(3);
    expect(
      await metricValue(registry, 'thanos_cache_memcached_requests_total', { name: 'test-cache' }),
    ).toBe(61);
    expect(
      await metricValue(registry, 'thanos_cache_memcached_hits_total', { name: 'test-cache' }),
    ).toBe(60);
    const sets = { name: 'test-cache', operation: 'set' };
    expect(await metricValue(registry, 'thanos_memcached_operations_total', sets)).toBe(60);
    const gets = { name: 'test-cache', operation: 'getmulti' };
    expect(await metricValue(registry, 'thanos_memcached_operations_total', gets)).toBe(3);
  });

  it('treats a down server as misses for its keys only, without throwing', async () => {
    const { cache, network, keys, all, registry } = setup();
    cache.setMulti(entries(all), 60_000);
    await cache.flush();
    network.server('mc-2:11211').fault = 'down';
    const hits = await cache.getMulti(keys);
    const selector = new ServerSelector(SERVERS);
    const expected = keys.filter((k) => selector.pick(k) !== 'mc-2:11211');
    expect([...hits.keys()].sort()).toEqual(expected.sort());
    await cache.delete(keys[0]!);
    const failed = { name: 'test-cache', operation: 'getmulti', reason: 'network-error' };
    expect(await metricValue(registry, 'thanos_memcached_operation_failures_total', failed)).toBe(
      1,
    );
  });

  it.each(['hang', 'slow'] as const)(
    'times out a %s server: a miss, and the connection is discarded',
    async (mode) => {
      const { cache, network, clock, registry } = setup({ timeoutMs: 100 });
      const only = new ServerSelector(SERVERS).pick('k')!;
      cache.setMulti(entries({ k: 'v' }), 60_000);
      await cache.flush();
      const server = network.server(only);
      if (mode === 'hang') server.fault = 'hang';
      else server.delayMs = 150;
      const opened = server.connectionsOpened;
      const get = cache.getMulti(['k']);
      expect((await settle(clock, get)).size).toBe(0);
      const timeouts = { name: 'test-cache', operation: 'getmulti', reason: 'timeout' };
      expect(
        await metricValue(registry, 'thanos_memcached_operation_failures_total', timeouts),
      ).toBe(1);
      server.fault = 'none';
      server.delayMs = 0;
      await clock.advance(1000); // a late answer to the abandoned request must go nowhere
      expect(text(await cache.getMulti(['k']))).toEqual({ k: 'v' });
      expect(server.connectionsOpened).toBe(opened + 1);
    },
  );

  it.each(['bad-magic', 'wrong-key', 'wrong-opaque', 'truncate'] as const)(
    'ignores a server answering garbage (%s): misses, never a wrong value',
    async (fault) => {
      const { cache, network, keys, all, registry } = setup();
      cache.setMulti(entries(all), 60_000);
      await cache.flush();
      network.server('mc-10:11211').fault = fault;
      const selector = new ServerSelector(SERVERS);
      const hits = text(await cache.getMulti(keys));
      for (const [k, v] of Object.entries(hits)) expect(v).toBe(all[k]);
      expect(Object.keys(hits).sort()).toEqual(
        keys.filter((k) => selector.pick(k) !== 'mc-10:11211').sort(),
      );
      const failures = ['other', 'network-error'].map((reason) =>
        metricValue(registry, 'thanos_memcached_operation_failures_total', {
          name: 'test-cache',
          operation: 'getmulti',
          reason,
        }),
      );
      expect((await Promise.all(failures)).reduce((a, b) => a + b)).toBe(1);
      network.server('mc-10:11211').fault = 'none';
      expect(text(await cache.getMulti(keys))).toEqual(all);
    },
  );

  it('drops and counts sets when the async buffer is full', async () => {
    const { cache, network, clock, registry } = setup({
      addresses: ['mc-1:11211'],
      maxAsyncConcurrency: 1,
      maxAsyncBufferSize: 2,
    });
    network.server('mc-1:11211').delayMs = 50;
    cache.setMulti(
      entries(Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`s${i}`, 'v']))),
      0,
    );
    const skipped = { name: 'test-cache', operation: 'set', reason: 'async-buffer-full' };
    expect(await metricValue(registry, 'thanos_memcached_operation_skipped_total', skipped)).toBe(
      7,
    );
    await settle(clock, cache.flush());
    expect([...network.server('mc-1:11211').items.keys()].sort()).toEqual(['s0', 's1', 's2']);
  });

  it('splits gets into batches of max_get_multi_batch_size', async () => {
    const { cache, network } = setup({ addresses: ['mc-1:11211'], maxGetMultiBatchSize: 3 });
    const all = Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`b${i}`, `v${i}`]));
    cache.setMulti(entries(all), 0);
    await cache.flush();
    expect(text(await cache.getMulti(Object.keys(all)))).toEqual(all);
    expect(network.server('mc-1:11211').getBatches.sort()).toEqual([1, 3, 3, 3]);
  });

  it('honours max_get_multi_concurrency across batches', async () => {
    const { cache, network, clock } = setup({
      addresses: ['mc-1:11211'],
      maxGetMultiBatchSize: 1,
      maxGetMultiConcurrency: 2,
      timeoutMs: 1000,
    });
    const server = network.server('mc-1:11211');
    const all = Object.fromEntries(Array.from({ length: 6 }, (_, i) => [`c${i}`, `v${i}`]));
    cache.setMulti(entries(all), 0);
    await cache.flush();
    server.delayMs = 50;
    server.maxBusy = 0; // the sets above ran concurrently
    expect(text(await settle(clock, cache.getMulti(Object.keys(all))))).toEqual(all);
    expect(server.maxBusy).toBe(2);
    expect(server.getBatches).toEqual([1, 1, 1, 1, 1, 1]);
  });

  it('keeps at most max_idle_connections idle connections per server', async () => {
    const { cache, network, clock } = setup({
      addresses: ['mc-1:11211'],
      maxGetMultiBatchSize: 1,
      maxIdleConnections: 1,
      timeoutMs: 1000,
    });
    const server = network.server('mc-1:11211');
    server.delayMs = 10;
    await settle(clock, cache.getMulti(['a', 'b', 'c']));
    expect(server.connectionsOpened).toBe(3);
    await settle(clock, cache.getMulti(['a']));
    await settle(clock, cache.getMulti(['b']));
    expect(server.connectionsOpened).toBe(3); // the one idle connection is reused
    await settle(clock, cache.getMulti(['a', 'b']));
    expect(server.connectionsOpened).toBe(4);
  });

  it('does not store values above max_item_size, and counts them', async () => {
    const { cache, registry } = setup({ maxItemSize: 10 });
    cache.setMulti(
      new Map([
        ['fits', new Uint8Array(10)],
        ['big', new Uint8Array(11)],
      ]),
      0,
    );
    await cache.flush();
    expect([...(await cache.getMulti(['fits', 'big'])).keys()]).toEqual(['fits']);
    const skipped = { name: 'test-cache', operation: 'set', reason: 'max-item-size' };
    expect(await metricValue(registry, 'thanos_memcached_operation_skipped_total', skipped)).toBe(
      1,
    );
  });

  it('skips keys memcached cannot hold and counts them as malformed', async () => {
    const { cache, registry } = setup();
    cache.setMulti(entries({ 'has space': 'v', ['x'.repeat(251)]: 'v', ok: 'v' }), 0);
    await cache.flush();
    expect(text(await cache.getMulti(['has space', 'x'.repeat(251), 'ok']))).toEqual({ ok: 'v' });
    const malformed = { name: 'test-cache', operation: 'set', reason: 'malformed-key' };
    expect(
      await metricValue(registry, 'thanos_memcached_operation_failures_total', malformed),
    ).toBe(2);
  });

  it('follows dns+ discovery: servers re-resolved on the clock', async () => {
    const clock = new ManualClock(0);
    const bed = memcachedTestbed(clock, ['10.0.0.1:11211', '10.0.0.2:11211']);
    bed.resolver.hosts.set('mc.svc', ['10.0.0.1']);
    const cache = bed.open({ addresses: ['dns+mc.svc:11211'] });
    clients.push(cache);
    cache.setMulti(entries({ a: 'A', b: 'B' }), 0);
    await cache.flush();
    expect(text(await cache.getMulti(['a', 'b']))).toEqual({ a: 'A', b: 'B' });
    const gauge = (): Promise<number> =>
      metricValue(bed.registry, 'cortex_memcache_client_servers', { name: 'test-cache' });
    expect(await gauge()).toBe(1);
    bed.resolver.hosts.set('mc.svc', ['10.0.0.1', '10.0.0.2']);
    await clock.advance(30_000);
    expect(cache.servers).toEqual(['10.0.0.1:11211', '10.0.0.2:11211']);
    expect(await gauge()).toBe(2);
    expect(
      await metricValue(bed.registry, 'cortex_dns_lookups_total', { name: 'test-cache' }),
    ).toBe(2);
  });

  it('lets several caches share one registry', async () => {
    const { open, registry, cache } = setup();
    const other = open({ name: 'other-cache', addresses: ['mc-1:11211'] });
    clients.push(other);
    await other.getMulti(['x']);
    await cache.getMulti(['x', 'y']);
    expect(
      await metricValue(registry, 'thanos_cache_memcached_requests_total', { name: 'other-cache' }),
    ).toBe(1);
    expect(
      await metricValue(registry, 'thanos_cache_memcached_requests_total', { name: 'test-cache' }),
    ).toBe(2);
    expect(
      await metricValue(registry, 'cortex_memcache_client_servers', { name: 'other-cache' }),
    ).toBe(1);
  });

  it('rejects bad addresses when opened, naming the value', () => {
    const { open } = setup();
    expect(() => open({ addresses: ['dns+nohost'] })).toThrow(/"dns\+nohost"/);
  });
});
