import { describe, expect, it } from 'vitest';
import { RpcError, type Bucket, type KV } from '../../src/runtime/index.js';
import {
  describeBucketContract,
  describeCacheContract,
  describeKVContract,
} from '../../src/runtime/testing/index.js';
import { Incarnation } from '../kernel/index.js';
import { createTestWorld, type TestWorld } from '../testing/index.js';
import { ServiceLink } from './service_call.js';
import { SimBucket } from './sim_bucket.js';
import { SimCache, SimCacheServer } from './sim_cache.js';
import { SimKV } from './sim_kv.js';
import {
  KV_SERVICE,
  OBJECT_STORE_SERVICE,
  CACHE_SERVICE,
  type SimRuntimeConfig,
} from './sim_services.js';

const enc = new TextEncoder();
const dec = new TextDecoder();

function link(
  w: TestWorld,
  node: string,
  service: string,
  stream: string,
  c: { latency: SimRuntimeConfig['kv']['latency']; errorRate: number },
): ServiceLink {
  return new ServiceLink(
    { service, latency: c.latency, errorRate: c.errorRate },
    {
      kernel: w.kernel,
      network: w.services.network,
      health: w.services.health,
      owner: new Incarnation(node, 1),
      random: w.random.stream(stream),
    },
  );
}

function bucketFor(w: TestWorld, node: string): Bucket {
  return new SimBucket(
    w.services.objectStore({ backend: 'inmemory' }),
    link(w, node, OBJECT_STORE_SERVICE, 'bucket', w.services.config.objectStore),
    node,
  );
}

function kvFor(w: TestWorld, node: string, prefix = ''): KV {
  return new SimKV(
    { prefix },
    {
      kernel: w.kernel,
      store: w.services.kvStore({ store: 'inmemory' }),
      link: link(w, node, KV_SERVICE, 'kv', w.services.config.kv),
    },
  );
}

/** Runs `fn` as simulated code and the kernel until idle; returns what it resolved to. */
async function sim<T>(w: TestWorld, fn: () => Promise<T>): Promise<T> {
  let out: { v: T } | { e: unknown } | undefined;
  w.kernel.after(0, { kind: 'test' }, () => {
    fn().then(
      (v) => (out = { v }),
      (e: unknown) => (out = { e }),
    );
  });
  await w.kernel.run();
  if (out === undefined) throw new Error('simulated code did not finish');
  if ('e' in out) throw out.e;
  return out.v;
}

describe('simulated object store', () => {
  it('lists new objects only after the list delay, while get sees them at once', async () => {
    const w = createTestWorld({ configure: (c) => (c.objectStore.listDelayMs = 10_000) });
    const bucket = bucketFor(w, 'n');
    await sim(w, () => bucket.upload('blocks/01/meta.json', enc.encode('{}')));
    expect(await sim(w, () => bucket.list('blocks/'))).toEqual([]);
    expect(dec.decode(await sim(w, () => bucket.get('blocks/01/meta.json')))).toBe('{}');
    w.kernel.after(10_000, { kind: 'wait' }, () => {});
    await w.kernel.run();
    expect(await sim(w, () => bucket.list('blocks/'))).toEqual(['blocks/01/']);
    // Overwriting a listed object does not hide it again.
    await sim(w, () => bucket.upload('blocks/01/meta.json', enc.encode('{"v":2}')));
    expect(await sim(w, () => bucket.list('blocks/01/'))).toEqual(['blocks/01/meta.json']);
  });

  it('throttles beyond the configured rate with resource_exhausted, then recovers', async () => {
    const w = createTestWorld({
      configure: (c) => {
        c.objectStore.opsPerSecond = 10;
        c.objectStore.burst = 5;
        c.objectStore.latency = { distribution: 'constant', ms: 0 };
      },
    });
    const bucket = bucketFor(w, 'n');
    const results = await sim(w, () =>
      Promise.allSettled(
        Array.from({ length: 8 }, (_, i) => bucket.upload(`o${i}`, enc.encode('x'))),
      ),
    );
    const rejected = results.filter((r) => r.status === 'rejected');
    expect(results.length - rejected.length).toBe(5);
    expect(rejected.map((r) => (r.reason as RpcError).code)).toEqual([
      'resource_exhausted',
      'resource_exhausted',
      'resource_exhausted',
    ]);
    w.kernel.after(1_000, { kind: 'wait' }, () => {});
    await w.kernel.run();
    await sim(w, () => bucket.upload('later', enc.encode('x')));
  });

  it('injects transient errors at the configured rate without running the operation', async () => {
    const w = createTestWorld({ configure: (c) => (c.objectStore.errorRate = 0.5) });
    const bucket = bucketFor(w, 'n');
    const results = await sim(w, () =>
      Promise.allSettled(
        Array.from({ length: 100 }, (_, i) =>
          bucket.upload(`o${String(i).padStart(3, '0')}`, enc.encode('x')),
        ),
      ),
    );
    const failed = results.filter((r) => r.status === 'rejected').length;
    expect(failed).toBeGreaterThan(25);
    expect(failed).toBeLessThan(75);
    // Failed calls never reached the store.
    const stored = await w.services
      .objectStore({ backend: 'inmemory' })
      .memory.list('', { recursive: true });
    expect(stored).toHaveLength(100 - failed);
  });

  it('error bursts override the configured rate until they end or heal', async () => {
    const w = createTestWorld();
    const bucket = bucketFor(w, 'n');
    const burst = (prefix: string) =>
      sim(w, () =>
        Promise.allSettled(
          Array.from({ length: 40 }, (_, i) => bucket.upload(`${prefix}${i}`, enc.encode('x'))),
        ),
      );
    w.services.health.setErrorRate(OBJECT_STORE_SERVICE, 1);
    const during = await burst('a');
    expect(during.every((r) => r.status === 'rejected')).toBe(true);
    expect((during[0] as PromiseRejectedResult).reason).toMatchObject({ code: 'unavailable' });
    w.services.health.healAll();
    expect(w.services.health.errorRate(OBJECT_STORE_SERVICE)).toBeUndefined();
    expect((await burst('b')).every((r) => r.status === 'fulfilled')).toBe(true);
  });

  it('a throttling fault replaces the configured limit, also for stores opened later', async () => {
    const w = createTestWorld({
      configure: (c) => (c.objectStore.latency = { distribution: 'constant', ms: 0 }),
    });
    w.services.throttleObjectStores({ opsPerSecond: 1, burst: 2 });
    const bucket = bucketFor(w, 'n');
    const results = await sim(w, () =>
      Promise.allSettled(
        Array.from({ length: 5 }, (_, i) => bucket.upload(`o${i}`, enc.encode('x'))),
      ),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(2);
    w.services.throttleObjectStores(undefined);
    const after = await sim(w, () =>
      Promise.allSettled(
        Array.from({ length: 5 }, (_, i) => bucket.upload(`p${i}`, enc.encode('x'))),
      ),
    );
    expect(after.every((r) => r.status === 'fulfilled')).toBe(true);
  });

  it('keeps the history of uploads and deletes, with the content of markers', async () => {
    const w = createTestWorld();
    const bucket = bucketFor(w, 'n');
    await sim(w, () => bucket.upload('t/B/index', enc.encode('index')));
    await sim(w, () => bucket.upload('t/B/deletion-mark.json', enc.encode('{"id":"B"}')));
    await sim(w, () => bucket.delete('t/B/index'));
    await sim(w, () => bucket.delete('t/B/missing'));
    const history = w.services.objectStore({ backend: 'inmemory' }).history;
    expect(history.map((e) => [e.op, e.name, e.existed])).toEqual([
      ['upload', 't/B/index', false],
      ['upload', 't/B/deletion-mark.json', false],
      ['delete', 't/B/index', true],
      ['delete', 't/B/missing', false],
    ]);
    expect(history[0]!.content).toBeUndefined();
    expect(dec.decode(history[1]!.content)).toBe('{"id":"B"}');
    expect(history[1]!.at).toBeGreaterThan(history[0]!.at);
    // Who made each change, for checks that attribute writes to nodes.
    expect(history.map((e) => e.by)).toEqual(['n', 'n', 'n', 'n']);
  });

  it('tells upload listeners about each upload until they unsubscribe', async () => {
    const w = createTestWorld();
    const bucket = bucketFor(w, 'n');
    const seen: string[] = [];
    const store = w.services.objectStore({ backend: 'inmemory' });
    const off = store.onUpload((e) => seen.push(`${e.by}:${e.name}`));
    await sim(w, () => bucket.upload('t/B/meta.json', enc.encode('{}')));
    off();
    await sim(w, () => bucket.upload('t/C/meta.json', enc.encode('{}')));
    expect(seen).toEqual(['n:t/B/meta.json']);
    // meta.json content is kept (compaction sources are read from it).
    expect(dec.decode(store.history[0]!.content)).toBe('{}');
  });

  it("is 'unavailable' from a node partitioned from it, and for that node only", async () => {
    const w = createTestWorld();
    const cut = bucketFor(w, 'cut');
    const fine = bucketFor(w, 'fine');
    w.services.network.partition([['cut'], [OBJECT_STORE_SERVICE]]);
    const err = await sim(w, () => cut.exists('x')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RpcError);
    expect((err as RpcError).code).toBe('unavailable');
    expect(await sim(w, () => fine.exists('x'))).toBe(false);
    w.services.health.setDown(OBJECT_STORE_SERVICE, true);
    expect(((await sim(w, () => fine.exists('x')).catch((e: unknown) => e)) as RpcError).code).toBe(
      'unavailable',
    );
  });
});

describe('simulated KV store', () => {
  it('keeps CAS correct under concurrency from many nodes (conflicts retried, no lost update)', async () => {
    const w = createTestWorld({ seed: 'kv-cas' });
    const clients = Array.from({ length: 6 }, (_, i) => kvFor(w, `n${i}`, 'ring/'));
    let updateCalls = 0;
    await sim(w, () =>
      Promise.all(
        clients.flatMap((kv) =>
          Array.from({ length: 1 }, () =>
            kv.cas('counter', (cur) => {
              updateCalls++;
              const n = cur === undefined ? 0 : Number(dec.decode(cur));
              return enc.encode(String(n + 1));
            }),
          ),
        ),
      ),
    );
    const final = await sim(w, () => clients[0]!.get('counter'));
    expect(dec.decode(final)).toBe('6');
    // Concurrent round trips collided: some updates ran more than once.
    expect(updateCalls).toBeGreaterThan(6);
  });

  it('spreads colliding CAS retries over a drawn pause, so clients starting together all get through', async () => {
    // Eight clients update one key at the same instant with 4 attempts each: retrying at once,
    // they collide again round after round and some give up; with Consul's jittered pause
    // (one draw in [0, 1s) per cas) they all get through.
    const run = async (
      withPause: boolean,
    ): Promise<{ failed: number; value: string; ms: number }> => {
      const w = createTestWorld({ seed: 'kv-cas-pause' });
      const clients = Array.from(
        { length: 8 },
        (_, i) =>
          new SimKV(
            { prefix: '', maxCasRetries: 4 },
            {
              kernel: w.kernel,
              store: w.services.kvStore({ store: 'inmemory' }),
              link: link(w, `n${i}`, KV_SERVICE, 'kv', w.services.config.kv),
              ...(withPause ? { random: w.random.stream(`cas/n${i}`) } : {}),
            },
          ),
      );
      const results = await sim(w, () =>
        Promise.allSettled(
          clients.map((kv) =>
            kv.cas('ring', (cur) =>
              enc.encode(String((cur === undefined ? 0 : Number(dec.decode(cur))) + 1)),
            ),
          ),
        ),
      );
      const value = dec.decode(await sim(w, () => clients[0]!.get('ring')));
      const failed = results.filter((r) => r.status === 'rejected').length;
      return { failed, value, ms: w.kernel.now() };
    };
    const immediate = await run(false);
    expect(immediate.failed).toBeGreaterThan(0);
    const paused = await run(true);
    expect(paused).toMatchObject({ failed: 0, value: '8' });
    expect(paused.ms).toBeGreaterThan(immediate.ms);
  });

  it('gives up after the retry bound with an error naming the key', async () => {
    const w = createTestWorld({ seed: 'kv-bound' });
    const kv = new SimKV(
      { prefix: '', maxCasRetries: 3 },
      {
        kernel: w.kernel,
        store: w.services.kvStore({ store: 'inmemory' }),
        link: link(w, 'n', KV_SERVICE, 'kv', w.services.config.kv),
      },
    );
    const store = w.services.kvStore({ store: 'inmemory' });
    const err = await sim(w, () =>
      kv.cas('hot', () => {
        store.put('hot', enc.encode('someone else wrote')); // a writer that always wins
        return enc.encode('mine');
      }),
    ).catch((e: unknown) => e);
    expect((err as Error).message).toMatch(/failed to CAS key "hot".*3 attempts/);
  });

  it("is 'unavailable' under partition; watches resume after heal and see the latest value", async () => {
    const w = createTestWorld({ seed: 'kv-part' });
    const writer = kvFor(w, 'w');
    const watcher = kvFor(w, 'r');
    const seen: Array<string | undefined> = [];
    const errors: string[] = [];
    const controller = new AbortController();
    const t0 = w.kernel.now();
    const at = (ms: number, fn: () => void): void =>
      void w.kernel.after(t0 + ms - w.kernel.now(), { kind: 'step' }, fn);
    at(0, () => {
      void watcher.watchKey('k', controller.signal, (v) => {
        seen.push(v === undefined ? undefined : dec.decode(v));
        return true;
      });
    });
    at(100, () => void writer.cas('k', () => enc.encode('v1')));
    at(200, () => w.services.network.partition([['r'], [KV_SERVICE]]));
    at(300, () => void watcher.get('k').catch((e: unknown) => errors.push((e as RpcError).code)));
    at(400, () => void writer.cas('k', () => enc.encode('v2')));
    at(500, () => void writer.cas('k', () => enc.encode('v3')));
    at(3_000, () => w.services.network.heal());
    at(10_000, () => controller.abort());
    await w.kernel.run({ until: t0 + 20_000 });
    expect(errors).toEqual(['unavailable']);
    expect(seen[0]).toBe(undefined);
    expect(seen).toContain('v1');
    expect(seen.at(-1)).toBe('v3');
  });
});

describe('simulated cache', () => {
  it('expires entries in virtual time and loses everything on wipe', async () => {
    const w = createTestWorld();
    const server = w.services.cacheServer({
      backend: 'memcached',
      addresses: ['m:11211'],
      timeoutMs: 100,
      maxIdleConnections: 1,
      maxAsyncConcurrency: 1,
      maxAsyncBufferSize: 1,
      maxGetMultiConcurrency: 1,
      maxGetMultiBatchSize: 1,
      maxItemSize: 1 << 20,
    });
    const cache = new SimCache(
      server,
      link(w, 'n', CACHE_SERVICE, 'cache', w.services.config.cache),
    );
    await sim(w, async () => {
      cache.setMulti(
        new Map([
          ['a', enc.encode('1')],
          ['b', enc.encode('2')],
        ]),
        60_000,
      );
      await cache.flush();
    });
    expect([...(await sim(w, () => cache.getMulti(['a', 'b', 'c']))).keys()]).toEqual(['a', 'b']);
    w.kernel.after(60_000, { kind: 'wait' }, () => {});
    await w.kernel.run();
    expect((await sim(w, () => cache.getMulti(['a']))).size).toBe(0);
    await sim(w, async () => {
      cache.setMulti(new Map([['c', enc.encode('3')]]), 0);
      await cache.flush();
    });
    w.services.wipeCaches();
    expect((await sim(w, () => cache.getMulti(['c']))).size).toBe(0);
  });

  it('turns an unreachable server into misses and dropped stores, never errors', async () => {
    const w = createTestWorld();
    const server = w.services.cacheServer({ backend: 'inmemory', maxSizeBytes: 1 << 20 });
    const cache = new SimCache(
      server,
      link(w, 'n', CACHE_SERVICE, 'cache', w.services.config.cache),
    );
    w.services.health.setDown(CACHE_SERVICE, true);
    await sim(w, async () => {
      cache.setMulti(new Map([['a', enc.encode('1')]]), 0);
      await cache.flush();
    });
    expect((await sim(w, () => cache.getMulti(['a']))).size).toBe(0);
    expect(cache.failedCalls).toBe(2);
  });
});

// The shared contract suites, against the simulated clients. The kernel runs in the
// background and executes each call's events as the suite makes them.
describeBucketContract('simulated object store', () => {
  const w = createTestWorld({ seed: 'bucket-contract' });
  const bucket = bucketFor(w, 'client');
  const background = w.kernel.runInBackground();
  return Promise.resolve({ bucket, cleanup: async () => void (await background.stop()) });
});

describeKVContract('simulated KV', () => {
  const w = createTestWorld({ seed: 'kv-contract' });
  const kv = kvFor(w, 'one', 'collectors/');
  const peer = kvFor(w, 'two', 'collectors/');
  const background = w.kernel.runInBackground();
  return Promise.resolve({ kv, peer, cleanup: async () => void (await background.stop()) });
});

describeCacheContract('simulated cache server', ({ clock, maxSizeBytes }) => {
  const w = createTestWorld({ seed: 'cache-contract' });
  const server = new SimCacheServer({ name: 'contract', maxSizeBytes }, { clock });
  const cache = new SimCache(
    server,
    link(w, 'client', CACHE_SERVICE, 'cache', w.services.config.cache),
  );
  const background = w.kernel.runInBackground();
  return Promise.resolve({
    cache,
    flush: () => cache.flush(),
    cleanup: async () => void (await background.stop()),
  });
});
