import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { CapturingLogger, ManualClock } from '../testing/index.js';
import { MultiKV } from '../multi/index.js';
import { AzureBucket } from './azure_bucket.js';
import { EtcdKV } from './etcd_kv.js';
import { GcsBucket } from './gcs_bucket.js';
import { RealBucketProvider, RealCacheProvider, RealKVProvider } from './providers.js';
import { createRealEnv } from './real_env.js';
import { S3Bucket } from './s3_bucket.js';

const enc = new TextEncoder();

describe('RealBucketProvider', () => {
  it('opens filesystem buckets on disk and in-memory buckets', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'strata-provider-'));
    try {
      const provider = new RealBucketProvider({ clock: new ManualClock() });
      const fsBucket = provider.open({ backend: 'filesystem', dir });
      await fsBucket.upload('x/y', enc.encode('1'));
      expect((await stat(join(dir, 'x', 'y'))).isFile()).toBe(true);
      const mem = provider.open({ backend: 'inmemory' });
      await mem.upload('a', enc.encode('1'));
      expect(await mem.list('')).toEqual(['a']);
      expect(provider.open({ backend: 'inmemory' }).name).toBe('inmemory');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('opens the object-storage clients without contacting the store', () => {
    const provider = new RealBucketProvider({ clock: new ManualClock() });
    const s3 = provider.open({
      backend: 's3',
      endpoint: '127.0.0.1:9000',
      bucketName: 'blocks',
      accessKeyId: 'a',
      secretAccessKey: 's',
      insecure: true,
    });
    expect(s3).toBeInstanceOf(S3Bucket);
    expect(s3.name).toBe('s3:127.0.0.1:9000/blocks');
    const gcs = provider.open({ backend: 'gcs', bucketName: 'blocks', serviceAccount: '' });
    expect(gcs).toBeInstanceOf(GcsBucket);
    expect(gcs.name).toBe('gcs:blocks');
    const azure = provider.open({
      backend: 'azure',
      accountName: 'acct',
      accountKey: Buffer.from('key').toString('base64'),
      containerName: 'blocks',
      endpointSuffix: '',
      maxRetries: 20,
    });
    expect(azure).toBeInstanceOf(AzureBucket);
    expect(azure.name).toBe('azure:acct/blocks');
  });
});

describe('RealKVProvider', () => {
  it('shares one in-memory store between all clients, separated by prefix', async () => {
    const provider = new RealKVProvider();
    const a = provider.open({ store: 'inmemory' }, 'collectors/');
    const b = provider.open({ store: 'inmemory' }, 'collectors/');
    const other = provider.open({ store: 'inmemory' }, 'compactor/');
    await a.cas('ring', () => enc.encode('desc'));
    expect(await b.get('ring')).toEqual(enc.encode('desc'));
    expect(await other.get('ring')).toBeUndefined();
    const separate = new RealKVProvider().open({ store: 'inmemory' }, 'collectors/');
    expect(await separate.get('ring')).toBeUndefined();
  });

  it('says which stores are not supported yet', () => {
    const provider = new RealKVProvider({ logger: new CapturingLogger() });
    expect(() => provider.open({ store: 'consul', host: 'localhost:8500' }, 'p/')).toThrow(
      /"consul".*not supported yet/,
    );
    expect(() => provider.open({ store: 'memberlist' }, 'p/')).toThrow(/"memberlist"/);
  });

  it('opens etcd clients without connecting, rejecting unusable endpoint lists', async () => {
    const provider = new RealKVProvider({ logger: new CapturingLogger() });
    const kv = provider.open(
      { store: 'etcd', endpoints: ['127.0.0.1:2379'], dialTimeoutMs: 100 },
      'p/',
    );
    expect(kv).toBeInstanceOf(EtcdKV);
    await kv.close();
    expect(() => provider.open({ store: 'etcd', endpoints: [], dialTimeoutMs: 1 }, 'p/')).toThrow(
      /no endpoints/,
    );
    expect(() =>
      provider.open({ store: 'etcd', endpoints: ['https://etcd:2379'], dialTimeoutMs: 1 }, 'p/'),
    ).toThrow(/"https:\/\/etcd:2379" uses https; only http is supported/);
  });

  it('opens multi clients over the other stores and switches every open one at run time', async () => {
    const registry = new Registry();
    const provider = new RealKVProvider({
      logger: new CapturingLogger(),
      clock: new ManualClock(),
      registry,
    });
    const spec = {
      store: 'multi' as const,
      primary: { store: 'inmemory' as const },
      secondary: { store: 'etcd' as const, endpoints: ['127.0.0.1:1'], dialTimeoutMs: 100 },
    };
    const ring = provider.open(spec, 'collectors/');
    const other = provider.open(spec, 'compactor/');
    const closed = provider.open(spec, 'closed/');
    expect(ring).toBeInstanceOf(MultiKV);
    await closed.close();
    await ring.cas('ring', () => enc.encode('desc'));
    expect(await provider.open({ store: 'inmemory' }, 'collectors/').get('ring')).toEqual(
      enc.encode('desc'),
    );
    provider.applyMultiKVConfig({ primary: 'etcd', mirror_enabled: true });
    expect((ring as MultiKV).primaryName()).toBe('etcd');
    expect((other as MultiKV).isMirrorEnabled()).toBe(true);
    expect((closed as MultiKV).primaryName()).toBe('inmemory');
    provider.switchPrimary('inmemory');
    expect((other as MultiKV).primaryName()).toBe('inmemory');
    expect(await registry.getSingleMetricAsString('cortex_multikv_mirror_enabled')).toContain(
      'cortex_multikv_mirror_enabled{kv_name="compactor/"} 1',
    );
    expect(() =>
      provider.open({ store: 'multi', primary: spec, secondary: { store: 'inmemory' } }, 'p/'),
    ).toThrow(/cannot themselves be multi/);
    await Promise.all([ring.close(), other.close()]);
  });
});

describe('RealCacheProvider', () => {
  it('opens in-memory caches whose metrics carry the cache name', async () => {
    const registry = new Registry();
    const provider = new RealCacheProvider({
      clock: new ManualClock(),
      registry,
      logger: new CapturingLogger(),
    });
    const cache = provider.open('index-cache', { backend: 'inmemory', maxSizeBytes: 1024 });
    expect(cache.name).toBe('index-cache');
    await cache.getMulti(['k']);
    expect(await registry.metrics()).toContain(
      'thanos_cache_inmemory_requests_total{name="index-cache"} 1',
    );
  });

  it('opens memcached clients (a cache without servers is all misses)', async () => {
    const registry = new Registry();
    const provider = new RealCacheProvider({
      clock: new ManualClock(),
      registry,
      logger: new CapturingLogger(),
    });
    const spec = {
      backend: 'memcached' as const,
      addresses: [],
      timeoutMs: 100,
      maxIdleConnections: 1,
      maxAsyncConcurrency: 1,
      maxAsyncBufferSize: 1,
      maxGetMultiConcurrency: 1,
      maxGetMultiBatchSize: 1,
      maxItemSize: 1,
    };
    const cache = provider.open('chunks-cache', spec);
    expect(cache.name).toBe('chunks-cache');
    expect((await cache.getMulti(['k'])).size).toBe(0);
    await cache.close();
    expect(await registry.metrics()).toContain(
      'cortex_memcache_client_servers{name="chunks-cache"} 0',
    );
    expect(() => provider.open('bad', { ...spec, addresses: ['dns+nohost'] })).toThrow(
      /"dns\+nohost"/,
    );
  });
});

describe('createRealEnv', () => {
  it('wires a working real Env', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'strata-env-'));
    const env = createRealEnv({
      nodeName: 'node-1',
      logLevel: 'error',
      rpc: { host: '127.0.0.1', port: 0 },
      fsRoot: dir,
    });
    try {
      expect(env.nodeName).toBe('node-1');
      expect(Math.abs(env.clock.now() - Date.now())).toBeLessThan(1000);
      await env.fs.writeFile('f', 'x');
      expect((await stat(join(dir, 'f'))).size).toBe(1);
      const a = env.random.stream('a').uint32();
      expect(Number.isInteger(a)).toBe(true);
      env.transport.handle('ping', () =>
        Promise.resolve({ body: enc.encode('pong'), contentType: 'text/plain' }),
      );
      const address = await env.transport.listen();
      const res = await env.transport.call(address, {
        method: 'ping',
        body: new Uint8Array(),
        contentType: 'text/plain',
      });
      expect(new TextDecoder().decode(res.body)).toBe('pong');
      const kv1 = env.kvs.open({ store: 'inmemory' }, 'x/');
      await kv1.cas('k', () => enc.encode('v'));
      expect(await env.kvs.open({ store: 'inmemory' }, 'x/').get('k')).toEqual(enc.encode('v'));
      expect(await env.metrics.metrics()).toContain('process_cpu_user_seconds_total');
    } finally {
      await env.transport.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('seeds each process differently', () => {
    const opts = { nodeName: 'n', logLevel: 'error', rpc: { host: '127.0.0.1', port: 0 } } as const;
    const a = createRealEnv(opts).random.stream('s').bytes(16);
    const b = createRealEnv(opts).random.stream('s').bytes(16);
    expect(a).not.toEqual(b);
  });
});
