import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { KV } from '../kv.js';

export interface KVUnderTest {
  /** The client under test. */
  kv: KV;
  /** A second client of the same store and prefix (another process, in Cortex terms). */
  peer: KV;
  cleanup: () => Promise<void>;
}

const enc = new TextEncoder();
const dec = new TextDecoder();
const b = (s: string): Uint8Array => enc.encode(s);
const s = (v: Uint8Array | undefined): string | undefined =>
  v === undefined ? undefined : dec.decode(v);

/** Per-test limit: every wait below is event-driven, so a hang means a missed notification. */
const WATCH_TEST_TIMEOUT_MS = 10_000;

/**
 * Collects what a watch reports and lets a test wait, without timers, until a condition over
 * the reports holds (real backends deliver watch events after real network round trips).
 */
class WatchRecorder<T> {
  readonly seen: T[] = [];
  private readonly waiters: { pred: (seen: readonly T[]) => boolean; resolve: () => void }[] = [];

  record(value: T): void {
    this.seen.push(value);
    for (const w of [...this.waiters]) {
      if (w.pred(this.seen)) {
        this.waiters.splice(this.waiters.indexOf(w), 1);
        w.resolve();
      }
    }
  }

  until(pred: (seen: readonly T[]) => boolean): Promise<void> {
    if (pred(this.seen)) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ pred, resolve }));
  }
}

/**
 * The KV contract (Cortex's kv.Client) every store must pass: inmemory, etcd, Consul, gossip
 * and the simulator's wrapper. `makeKV` returns two clients of one fresh, empty store.
 * The bounded CAS retry is implementation-specific to provoke and is tested per backend.
 */
export function describeKVContract(name: string, makeKV: () => Promise<KVUnderTest>): void {
  describe(`KV contract: ${name}`, () => {
    let subject: KVUnderTest;
    let kv: KV;
    let peer: KV;

    beforeEach(async () => {
      subject = await makeKV();
      kv = subject.kv;
      peer = subject.peer;
    });
    afterEach(async () => {
      await subject.kv.close();
      await subject.peer.close();
      await subject.cleanup();
    });

    it('returns undefined for a missing key', async () => {
      expect(await kv.get('ring')).toBeUndefined();
    });

    it('creates, updates and deletes through cas, passing the current value to update', async () => {
      const seen: (string | undefined)[] = [];
      await kv.cas('ring', (cur) => {
        seen.push(s(cur));
        return b('v1');
      });
      await kv.cas('ring', (cur) => {
        seen.push(s(cur));
        return b(`${s(cur)}+v2`);
      });
      expect(seen).toEqual([undefined, 'v1']);
      expect(s(await peer.get('ring'))).toBe('v1+v2');
      await kv.cas('ring', () => null);
      expect(await peer.get('ring')).toBeUndefined();
    });

    it('leaves the key unchanged when update returns undefined', async () => {
      await kv.cas('k', () => b('keep'));
      await kv.cas('k', () => undefined);
      expect(s(await kv.get('k'))).toBe('keep');
      await kv.cas('absent', () => undefined);
      expect(await kv.get('absent')).toBeUndefined();
    });

    it('rejects when update throws, without writing', async () => {
      await kv.cas('k', () => b('v'));
      await expect(
        kv.cas('k', () => {
          throw new Error('bad ring state');
        }),
      ).rejects.toThrow(/bad ring state/);
      expect(s(await kv.get('k'))).toBe('v');
    });

    it('deletes keys; deleting a missing key is not an error', async () => {
      await kv.cas('k', () => b('v'));
      await peer.delete('k');
      expect(await kv.get('k')).toBeUndefined();
      await kv.delete('never-existed');
    });

    it('lists keys under a prefix, sorted', async () => {
      for (const k of ['ring/b', 'ring/a', 'other', 'ring/a/x']) await kv.cas(k, () => b(k));
      expect(await peer.list('ring/')).toEqual(['ring/a', 'ring/a/x', 'ring/b']);
      expect(await peer.list('')).toEqual(['other', 'ring/a', 'ring/a/x', 'ring/b']);
      expect(await peer.list('none')).toEqual([]);
    });

    it('loses no update when two clients cas the same key concurrently', async () => {
      const increment = (client: KV): Promise<void> =>
        client.cas('counter', (cur) => b(String(Number(s(cur) ?? '0') + 1)));
      const ops: Promise<void>[] = [];
      for (let i = 0; i < 5; i++) ops.push(increment(kv), increment(peer));
      await Promise.all(ops);
      expect(s(await kv.get('counter'))).toBe('10');
    });

    it('copies values: mutating a passed or returned buffer never changes the stored value', async () => {
      const v = b('abc');
      await kv.cas('k', () => v);
      v[0] = 0x7a;
      const got = await kv.get('k');
      expect(s(got)).toBe('abc');
      got![0] = 0x7a;
      expect(s(await kv.get('k'))).toBe('abc');
    });

    it('rejects operations whose signal already aborted', async () => {
      const ac = new AbortController();
      ac.abort();
      await expect(kv.get('k', ac.signal)).rejects.toThrow();
      await expect(kv.cas('k', () => b('x'), ac.signal)).rejects.toThrow();
      expect(await kv.get('k')).toBeUndefined();
    });

    it(
      'watchKey reports the current value first, then every change (possibly coalesced) until onChange returns false',
      async () => {
        await kv.cas('w', () => b('0'));
        const rec = new WatchRecorder<string | undefined>();
        const ac = new AbortController();
        const watch = kv.watchKey('w', ac.signal, (v) => {
          rec.record(s(v));
          return s(v) !== 'stop';
        });
        await rec.until((seen) => seen.length >= 1);
        expect(rec.seen[0]).toBe('0');
        await peer.cas('w', () => b('1'));
        await rec.until((seen) => seen.at(-1) === '1');
        await peer.cas('w', () => b('2'));
        await peer.cas('w', () => b('3'));
        await rec.until((seen) => seen.at(-1) === '3');
        await peer.delete('w');
        await rec.until((seen) => seen.length > 0 && seen.at(-1) === undefined);
        await peer.cas('w', () => b('stop'));
        await watch; // resolves because onChange returned false
        expect(rec.seen.at(-1)).toBe('stop');
        // Coalescing may drop intermediate values, never reorder them.
        const order = ['0', '1', '2', '3', undefined, 'stop'];
        const positions = rec.seen.map((v) => order.indexOf(v));
        expect([...positions].sort((x, y) => x - y)).toEqual(positions);
      },
      WATCH_TEST_TIMEOUT_MS,
    );

    it(
      'watchKey of a missing key reports undefined first and ignores other keys',
      async () => {
        const rec = new WatchRecorder<string | undefined>();
        const ac = new AbortController();
        const watch = kv.watchKey('x', ac.signal, (v) => {
          rec.record(s(v));
          return true;
        });
        await rec.until((seen) => seen.length >= 1);
        expect(rec.seen).toEqual([undefined]);
        await peer.cas('y', () => b('other key'));
        await peer.cas('x', () => b('mine'));
        await rec.until((seen) => seen.at(-1) === 'mine');
        expect(rec.seen.includes('other key')).toBe(false);
        ac.abort();
        await watch;
      },
      WATCH_TEST_TIMEOUT_MS,
    );

    it(
      'watchPrefix reports existing keys first, then changes and deletions under the prefix only',
      async () => {
        await kv.cas('ring/a', () => b('a0'));
        await kv.cas('ring/b', () => b('b0'));
        await kv.cas('other', () => b('o'));
        const rec = new WatchRecorder<[string, string | undefined]>();
        const ac = new AbortController();
        const watch = kv.watchPrefix('ring/', ac.signal, (key, v) => {
          rec.record([key, s(v)]);
          return true;
        });
        await rec.until((seen) => seen.length >= 2);
        expect(rec.seen.slice(0, 2)).toEqual([
          ['ring/a', 'a0'],
          ['ring/b', 'b0'],
        ]);
        await peer.cas('ring/c', () => b('c0'));
        await peer.cas('other', () => b('o2'));
        await peer.delete('ring/a');
        await rec.until((seen) => seen.some(([k, v]) => k === 'ring/a' && v === undefined));
        await rec.until((seen) => seen.some(([k, v]) => k === 'ring/c' && v === 'c0'));
        expect(rec.seen.some(([k]) => k === 'other')).toBe(false);
        ac.abort();
        await watch;
      },
      WATCH_TEST_TIMEOUT_MS,
    );

    it(
      'ends watches when the signal aborts and when the client closes',
      async () => {
        const rec = new WatchRecorder<string | undefined>();
        const ac = new AbortController();
        const byAbort = kv.watchKey('k', ac.signal, (v) => {
          rec.record(s(v));
          return true;
        });
        await rec.until((seen) => seen.length >= 1);
        ac.abort();
        await byAbort;

        const rec2 = new WatchRecorder<string>();
        const byClose = kv.watchPrefix('', new AbortController().signal, (k) => {
          rec2.record(k);
          return true;
        });
        await kv.cas('k2', () => b('v'));
        await rec2.until((seen) => seen.includes('k2'));
        await kv.close();
        await byClose;
      },
      WATCH_TEST_TIMEOUT_MS,
    );

    it('does not call onChange for a watch whose signal already aborted', async () => {
      const ac = new AbortController();
      ac.abort();
      let calls = 0;
      await kv.watchKey('k', ac.signal, () => {
        calls++;
        return true;
      });
      expect(calls).toBe(0);
    });
  });
}
