import fc from 'fast-check';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { describeCacheContract, ManualClock } from '../testing/index.js';
import { MemoryCache, utf8ByteLength } from './memory_cache.js';

describeCacheContract('MemoryCache', ({ clock, maxSizeBytes }) =>
  Promise.resolve({
    cache: new MemoryCache(
      { name: 'test-cache', maxSizeBytes },
      { clock, registry: new Registry() },
    ),
    cleanup: () => Promise.resolve(),
  }),
);

async function metricValue(
  registry: Registry,
  name: string,
  cache: string,
): Promise<number | undefined> {
  const json = await registry.getMetricsAsJSON();
  const metric = json.find((m) => m.name === name);
  return metric?.values.find((v) => v.labels['name'] === cache)?.value;
}

describe('MemoryCache', () => {
  it('counts requests, hits, expired hits, additions, evictions and overflows under Thanos names', async () => {
    const registry = new Registry();
    const clock = new ManualClock(0);
    const cache = new MemoryCache({ name: 'index-cache', maxSizeBytes: 100 }, { clock, registry });
    const enc = new TextEncoder();
    cache.setMulti(new Map([['a', enc.encode('x'.repeat(49))]]), 1000); // 50 bytes
    cache.setMulti(new Map([['b', enc.encode('x'.repeat(49))]]), 0); // 50 bytes
    cache.setMulti(new Map([['c', enc.encode('x'.repeat(49))]]), 0); // evicts a
    cache.setMulti(new Map([['big', new Uint8Array(200)]]), 0); // overflow
    await cache.getMulti(['a', 'b', 'c', 'd']);
    await clock.advance(2000);
    const m = (n: string): Promise<number | undefined> => metricValue(registry, n, 'index-cache');
    expect(await m('thanos_cache_inmemory_requests_total')).toBe(4);
    expect(await m('thanos_cache_inmemory_hits_total')).toBe(2);
    expect(await m('thanos_cache_inmemory_items_added_total')).toBe(3);
    expect(await m('thanos_cache_inmemory_items_evicted_total')).toBe(1);
    expect(await m('thanos_cache_inmemory_items_overflowed_total')).toBe(1);
    expect(await m('thanos_cache_inmemory_items')).toBe(2);
    expect(await m('thanos_cache_inmemory_items_size_bytes')).toBe(98);
    expect(await m('thanos_cache_inmemory_total_size_bytes')).toBe(100);
    expect(await m('thanos_cache_inmemory_max_size_bytes')).toBe(100);

    cache.setMulti(new Map([['e', enc.encode('e')]]), 10);
    await clock.advance(10);
    expect((await cache.getMulti(['e'])).size).toBe(0);
    expect(await m('thanos_cache_inmemory_hits_on_expired_data_total')).toBe(1);
  });

  it('lets several caches share one registry, separated by the name label', async () => {
    const registry = new Registry();
    const clock = new ManualClock(0);
    const index = new MemoryCache({ name: 'index-cache', maxSizeBytes: 1000 }, { clock, registry });
    const chunks = new MemoryCache(
      { name: 'chunks-cache', maxSizeBytes: 1000 },
      { clock, registry },
    );
    await index.getMulti(['a', 'b']);
    await chunks.getMulti(['a']);
    expect(await metricValue(registry, 'thanos_cache_inmemory_requests_total', 'index-cache')).toBe(
      2,
    );
    expect(
      await metricValue(registry, 'thanos_cache_inmemory_requests_total', 'chunks-cache'),
    ).toBe(1);
  });

  it('works without a registry', async () => {
    const cache = new MemoryCache({ name: 'c', maxSizeBytes: 10 }, { clock: new ManualClock() });
    cache.setMulti(new Map([['k', new Uint8Array([1])]]), 0);
    expect((await cache.getMulti(['k'])).get('k')).toEqual(new Uint8Array([1]));
  });

  it('rejects bad sizes naming the value', () => {
    const clock = new ManualClock();
    expect(() => new MemoryCache({ name: 'c', maxSizeBytes: 0 }, { clock })).toThrow(/got 0/);
    expect(
      () => new MemoryCache({ name: 'c', maxSizeBytes: 10, maxItemSizeBytes: 20 }, { clock }),
    ).toThrow(/20/);
  });

  it('never holds more than maxSizeBytes, whatever the sequence of operations', async () => {
    const op = fc.oneof(
      fc.record({
        set: fc.string({ maxLength: 6 }),
        size: fc.nat(80),
        ttl: fc.integer({ min: 0, max: 50 }),
      }),
      fc.record({ get: fc.string({ maxLength: 6 }) }),
      fc.record({ del: fc.string({ maxLength: 6 }) }),
      fc.record({ advance: fc.nat(30) }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 60 }), async (ops) => {
        const clock = new ManualClock(0);
        const cache = new MemoryCache({ name: 'p', maxSizeBytes: 100 }, { clock });
        const model = new Map<string, { value: Uint8Array; expiresAt: number }>();
        for (const o of ops) {
          if ('set' in o) {
            const value = new Uint8Array(o.size).fill(o.size % 256);
            cache.setMulti(new Map([[o.set, value]]), o.ttl);
            if (utf8ByteLength(o.set) + o.size <= 100) {
              model.set(o.set, { value, expiresAt: o.ttl > 0 ? clock.now() + o.ttl : Infinity });
            } else model.delete(o.set);
          } else if ('get' in o) {
            const hit = (await cache.getMulti([o.get])).get(o.get);
            const m = model.get(o.get);
            // A hit must be the latest value and unexpired; a miss is allowed (eviction).
            if (hit !== undefined) {
              expect(m).toBeDefined();
              expect(hit).toEqual(m!.value);
              expect(clock.now()).toBeLessThan(m!.expiresAt);
            }
          } else if ('del' in o) {
            await cache.delete(o.del);
            model.delete(o.del);
            expect((await cache.getMulti([o.del])).size).toBe(0);
          } else {
            await clock.advance(o.advance);
          }
          expect(cache.usedBytes).toBeLessThanOrEqual(100);
          expect(cache.usedBytes).toBeGreaterThanOrEqual(0);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('measures keys in UTF-8 bytes', () => {
    expect(utf8ByteLength('abc')).toBe(3);
    expect(utf8ByteLength('é')).toBe(2);
    expect(utf8ByteLength('€')).toBe(3);
    expect(utf8ByteLength('😀')).toBe(4);
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (s) => {
        expect(utf8ByteLength(s)).toBe(new TextEncoder().encode(s).length);
      }),
    );
  });
});
