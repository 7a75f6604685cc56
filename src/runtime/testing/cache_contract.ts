import { afterEach, describe, expect, it } from 'vitest';
import type { Cache } from '../cache.js';
import { ManualClock } from './manual_clock.js';

export interface CacheUnderTest {
  cache: Cache;
  /** Waits until earlier `setMulti` calls are stored (for caches that store asynchronously). */
  flush?: () => Promise<void>;
  cleanup: () => Promise<void>;
}

export interface CacheFactoryOptions {
  /** The clock TTLs must follow; backends that keep their own time ignore it. */
  clock: ManualClock;
  /** The byte budget (keys + values) the cache should be opened with. */
  maxSizeBytes: number;
}

export interface CacheContractCapabilities {
  /** Expiry follows the given clock (false for a real memcached, which uses its own time). */
  clockDrivenTtl: boolean;
  /** Eviction is exact LRU within `maxSizeBytes` (false where the server has its own policy). */
  exactLru: boolean;
}

const enc = new TextEncoder();
const dec = new TextDecoder();
const b = (s: string): Uint8Array => enc.encode(s);

/**
 * The Cache contract: in-memory, memcached and the simulator's wrapper. Misses are normal, and
 * entries too large for the cache are silently not stored.
 */
export function describeCacheContract(
  name: string,
  makeCache: (opts: CacheFactoryOptions) => Promise<CacheUnderTest>,
  capabilities: CacheContractCapabilities = { clockDrivenTtl: true, exactLru: true },
): void {
  describe(`Cache contract: ${name}`, () => {
    const opened: CacheUnderTest[] = [];
    afterEach(async () => {
      for (const c of opened.splice(0)) {
        await c.cache.close();
        await c.cleanup();
      }
    });

    async function open(maxSizeBytes = 1 << 20, clock = new ManualClock(1_000_000)) {
      const subject = await makeCache({ clock, maxSizeBytes });
      opened.push(subject);
      const set = async (
        entries: Record<string, string | Uint8Array>,
        ttlMs = 60_000,
      ): Promise<void> => {
        const m = new Map<string, Uint8Array>();
        for (const [k, v] of Object.entries(entries)) m.set(k, typeof v === 'string' ? b(v) : v);
        subject.cache.setMulti(m, ttlMs);
        await subject.flush?.();
      };
      const get = async (...keys: string[]): Promise<Record<string, string>> => {
        const hits = await subject.cache.getMulti(keys);
        return Object.fromEntries([...hits].map(([k, v]) => [k, dec.decode(v)]));
      };
      return { cache: subject.cache, clock, set, get };
    }

    it('returns only the hits among the requested keys', async () => {
      const { set, get, cache } = await open();
      expect(cache.name.length).toBeGreaterThan(0);
      expect(await get('a', 'b')).toEqual({});
      await set({ a: 'A', c: 'C' });
      expect(await get('a', 'b', 'c')).toEqual({ a: 'A', c: 'C' });
    });

    it('replaces a stored value and deletes keys', async () => {
      const { set, get, cache } = await open();
      await set({ k: 'one' });
      await set({ k: 'two' });
      expect(await get('k')).toEqual({ k: 'two' });
      await cache.delete('k');
      expect(await get('k')).toEqual({});
      await cache.delete('never-stored');
    });

    it('copies values in and out', async () => {
      const { set, cache } = await open();
      const v = b('abc');
      await set({ k: v });
      v[0] = 0x7a;
      const first = (await cache.getMulti(['k'])).get('k');
      expect(first && dec.decode(first)).toBe('abc');
      first![1] = 0x7a;
      const second = (await cache.getMulti(['k'])).get('k');
      expect(second && dec.decode(second)).toBe('abc');
    });

    it('does not store an entry larger than the whole cache', async () => {
      const { set, get } = await open(1024);
      await set({ small: 'x', big: new Uint8Array(2048) });
      expect(Object.keys(await get('small', 'big'))).toEqual(['small']);
    });

    it('handles binary values and long keys', async () => {
      const { set, cache } = await open();
      const value = new Uint8Array(1000).map((_, i) => (i * 7) % 256);
      const key = `chunks:${'0123456789abcdef'.repeat(8)}`;
      await set({ [key]: value });
      expect((await cache.getMulti([key])).get(key)).toEqual(value);
    });

    if (capabilities.clockDrivenTtl) {
      it('expires entries when their TTL has passed on the clock', async () => {
        const { set, get, clock } = await open();
        await set({ short: 's' }, 1000);
        await set({ long: 'l' }, 5000);
        await clock.advance(999);
        expect(await get('short', 'long')).toEqual({ short: 's', long: 'l' });
        await clock.advance(1);
        expect(await get('short', 'long')).toEqual({ long: 'l' });
        await clock.advance(4000);
        expect(await get('short', 'long')).toEqual({});
      });

      it('keeps entries stored with a TTL of 0 until evicted', async () => {
        const { set, get, clock } = await open();
        await set({ forever: 'f' }, 0);
        await clock.advance(365 * 24 * 3600 * 1000);
        expect(await get('forever')).toEqual({ forever: 'f' });
      });
    }

    if (capabilities.exactLru) {
      it('evicts least recently used entries to stay within maxSizeBytes (keys + values)', async () => {
        // Each entry: 1-byte key + 39-byte value = 40 bytes; three fit in 120 bytes.
        const { set, get } = await open(120);
        const v = (c: string): string => c.repeat(39);
        await set({ a: v('a'), b: v('b'), c: v('c') });
        expect(Object.keys(await get('a'))).toEqual(['a']); // a becomes most recently used
        await set({ d: v('d') }); // evicts b, the least recently used
        expect(Object.keys(await get('a', 'b', 'c', 'd')).sort()).toEqual(['a', 'c', 'd']);
        await set({ e: v('e').repeat(2) + 'e' }); // 80 bytes: needs two evictions
        const left = Object.keys(await get('a', 'b', 'c', 'd', 'e')).sort();
        expect(left).toContain('e');
        expect(left.length).toBe(2);
      });
    }
  });
}
