import { describe, expect, it } from 'vitest';
import { describeKVContract } from '../testing/index.js';
import { MemoryKV } from './memory_kv.js';
import { MemoryKVStore } from './memory_kv_store.js';

const enc = new TextEncoder();
const dec = new TextDecoder();

describeKVContract('MemoryKV', () => {
  const store = new MemoryKVStore();
  return Promise.resolve({
    kv: new MemoryKV({ prefix: 'collectors/' }, { store }),
    peer: new MemoryKV({ prefix: 'collectors/' }, { store }),
    cleanup: () => Promise.resolve(),
  });
});

describe('MemoryKV', () => {
  it('gives up after the retry bound when every attempt conflicts, naming the key', async () => {
    const store = new MemoryKVStore();
    const kv = new MemoryKV({ prefix: 'ring/' }, { store });
    let attempts = 0;
    const err: unknown = await kv
      .cas('ingester', (cur) => {
        attempts++;
        // Another writer changes the key between our read and our write, every time.
        store.put('ring/ingester', enc.encode(`interloper ${attempts}`));
        return enc.encode(`mine after ${cur === undefined ? 'nothing' : dec.decode(cur)}`);
      })
      .catch((e: unknown) => e);
    expect(attempts).toBe(10);
    expect(String(err)).toMatch(/"ingester".*"ring\/ingester".*10 attempts/);
    expect(dec.decode(store.read('ring/ingester')!.value)).toBe('interloper 10');
  });

  it('succeeds when a conflict clears before the bound, passing the newest value to update', async () => {
    const store = new MemoryKVStore();
    const kv = new MemoryKV({ maxCasRetries: 3 }, { store });
    const seen: (string | undefined)[] = [];
    await kv.cas('k', (cur) => {
      seen.push(cur && dec.decode(cur));
      if (seen.length < 3) store.put('k', enc.encode(`other ${seen.length}`));
      return enc.encode('mine');
    });
    expect(seen).toEqual([undefined, 'other 1', 'other 2']);
    expect(await kv.get('k')).toEqual(enc.encode('mine'));
  });

  it('keeps prefixes apart on a shared store', async () => {
    const store = new MemoryKVStore();
    const ingesters = new MemoryKV({ prefix: 'collectors/' }, { store });
    const compactors = new MemoryKV({ prefix: 'compactor/' }, { store });
    await ingesters.cas('ring', () => enc.encode('i'));
    await compactors.cas('ring', () => enc.encode('c'));
    expect(await ingesters.get('ring')).toEqual(enc.encode('i'));
    expect(await compactors.list('')).toEqual(['ring']);
    expect(store.keys('')).toEqual(['collectors/ring', 'compactor/ring']);
  });

  it('rejects calls after close, naming the client', async () => {
    const kv = new MemoryKV({ prefix: 'p/' }, { store: new MemoryKVStore() });
    await kv.close();
    await expect(kv.get('k')).rejects.toThrow(/"p\/".*closed/);
  });

  it('coalesces a burst of changes into reports that end at the latest value', async () => {
    const store = new MemoryKVStore();
    const kv = new MemoryKV({}, { store });
    const seen: string[] = [];
    const ac = new AbortController();
    const watch = kv.watchKey('k', ac.signal, (v) => {
      seen.push(v === undefined ? '-' : dec.decode(v));
      return true;
    });
    for (let i = 1; i <= 100; i++) store.put('k', enc.encode(String(i)));
    await Promise.resolve();
    await Promise.resolve();
    ac.abort();
    await watch;
    // The initial report is synchronous; the 100 changes after it coalesce into one report.
    expect(seen).toEqual(['-', '100']);
  });

  it('rejects a non-positive retry bound', () => {
    expect(() => new MemoryKV({ maxCasRetries: 0 }, { store: new MemoryKVStore() })).toThrow(
      /got 0/,
    );
  });
});

describe('MemoryKVStore', () => {
  it('writes only when the expected version matches, with versions increasing across keys', () => {
    const store = new MemoryKVStore();
    expect(store.compareAndSwap('a', 0, enc.encode('1'))).toBe(true);
    const v1 = store.read('a')!.version;
    expect(store.compareAndSwap('a', 0, enc.encode('x'))).toBe(false);
    expect(store.compareAndSwap('b', 0, enc.encode('1'))).toBe(true);
    expect(store.read('b')!.version).toBeGreaterThan(v1);
    expect(store.compareAndSwap('a', v1, null)).toBe(true);
    expect(store.read('a')).toBeUndefined();
  });

  it('notifies subscribers of changes but not of deleting a missing key', () => {
    const store = new MemoryKVStore();
    const changes: string[] = [];
    const unsubscribe = store.subscribe((k) => changes.push(k));
    store.put('x', enc.encode('1'));
    store.put('missing', null);
    store.put('x', null);
    unsubscribe();
    store.put('y', enc.encode('1'));
    expect(changes).toEqual(['x', 'x']);
  });
});
