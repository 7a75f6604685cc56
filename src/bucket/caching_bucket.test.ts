import { compress } from 'snappyjs';
import { describe, expect, it } from 'vitest';
import type { MetadataCacheConfig } from '../config/index.js';
import { ObjectNotFoundError } from '../runtime/index.js';
import { CachingBucket } from './caching_bucket.js';
import { cortexCachingBucketConfig, cortexMatchers } from './caching_bucket_config.js';
import { counter, rig } from './caching_bucket.testing.js';

const MIN = 60_000;
const HOUR = 60 * MIN;
const B = '01HZZZZZZZZZZZZZZZZZZZZZZZ';
const META = `t1/${B}/meta.json`;
const MARK = `t1/${B}/deletion-mark.json`;
const INDEX = 't1/bucket-index.json.gz';
const enc = (s: string): Uint8Array => new TextEncoder().encode(s);

function metadata(over: Partial<MetadataCacheConfig> = {}): MetadataCacheConfig {
  return {
    backend: 'memcached',
    memcached: {} as MetadataCacheConfig['memcached'],
    tenants_list_ttl: 15 * MIN,
    tenant_blocks_list_ttl: 15 * MIN,
    chunks_list_ttl: 24 * HOUR,
    metafile_exists_ttl: 2 * HOUR,
    metafile_doesnt_exist_ttl: 15 * MIN,
    metafile_content_ttl: 24 * HOUR,
    metafile_max_size_bytes: 1024,
    ...over,
  };
}

function metaRig(over: Partial<MetadataCacheConfig> = {}, forCompactor = false) {
  return rig((cache) =>
    cortexCachingBucketConfig({ metadata: { config: metadata(over), cache }, forCompactor }),
  );
}

async function seed(r: ReturnType<typeof metaRig>): Promise<void> {
  await r.store.upload(META, enc('{"ulid":"x"}'));
  await r.store.upload(`t1/${B}/index`, new Uint8Array(10));
  await r.store.upload(`t1/${B}/chunks/000001`, new Uint8Array(10));
  await r.store.upload('t2/x/meta.json', enc('{}'));
}

describe("Cortex's name matchers", () => {
  it('match the objects and directories Cortex caches', () => {
    expect(cortexMatchers.chunks(`t1/${B}/chunks/000001`)).toBe(true);
    expect(cortexMatchers.chunks(`t1/${B}/chunks/00000a`)).toBe(false);
    expect(cortexMatchers.metafile(META)).toBe(true);
    expect(cortexMatchers.metafile(MARK)).toBe(true);
    expect(cortexMatchers.metafile('__markers__/t1/tenant-deletion-mark.json')).toBe(true);
    expect(cortexMatchers.metafile(`t1/markers/${B}-deletion-mark.json`)).toBe(false);
    expect(cortexMatchers.blockIndex(`t1/${B}/index`)).toBe(true);
    expect(cortexMatchers.blockIndex('t1/not-a-block/index')).toBe(false);
    expect(cortexMatchers.tenantsDir('')).toBe(true);
    expect(cortexMatchers.tenantBlocksDir('t1/')).toBe(true);
    expect(cortexMatchers.tenantBlocksDir('t1')).toBe(true);
    expect(cortexMatchers.tenantBlocksDir(`t1/${B}/`)).toBe(false);
    expect(cortexMatchers.chunksDir(`t1/${B}/chunks`)).toBe(true);
  });
});

describe('CachingBucket metadata', () => {
  it('caches listings as snappy JSON under iter:<dir>: and serves them until the TTL', async () => {
    const r = metaRig();
    await seed(r);
    const first = await r.bucket.list('');
    expect(first).toEqual(['t1/', 't2/']);
    const raw = (await r.memory.getMulti(['iter::'])).get('iter::');
    expect(raw).toEqual(compress(enc('["t1/","t2/"]')));
    await r.store.upload('t3/x/meta.json', enc('{}'));
    expect(await r.bucket.list('')).toEqual(first); // within tenants_list_ttl
    await r.clock.advance(15 * MIN);
    expect(await r.bucket.list('')).toEqual(['t1/', 't2/', 't3/']);
    expect(r.log.count('list')).toBe(2);
    expect(await r.bucket.list('t1/')).toEqual([`t1/${B}/`]);
    expect(await r.memory.getMulti(['iter:t1/:'])).toHaveProperty('size', 1);
    // Not matched (a block directory): never cached.
    await r.bucket.list(`t1/${B}/`);
    await r.bucket.list(`t1/${B}/`);
    expect(r.log.calls.filter((c) => c.name === `t1/${B}/`)).toHaveLength(2);
    const labels = { operation: 'iter', config: 'tenants-iter' };
    expect(
      await counter(r.registry, 'thanos_store_bucket_cache_operation_requests_total', labels),
    ).toBe(3);
    expect(
      await counter(r.registry, 'thanos_store_bucket_cache_operation_hits_total', labels),
    ).toBe(1);
  });

  it('ignores a garbage or foreign listing', async () => {
    const r = metaRig();
    await seed(r);
    r.memory.setMulti(new Map([['iter:t1/:', enc('not snappy')]]), 0);
    expect(await r.bucket.list('t1/')).toEqual([`t1/${B}/`]);
    r.memory.setMulti(new Map([['iter:t1/:', compress(enc('["t2/x/"]'))]]), 0);
    expect(await r.bucket.list('t1/')).toEqual([`t1/${B}/`]);
    expect(r.log.count('list')).toBe(2);
  });

  it('caches exists as true/false with their own TTLs', async () => {
    const r = metaRig();
    await seed(r);
    expect(await r.bucket.exists(META)).toBe(true);
    expect(await r.bucket.exists(MARK)).toBe(false);
    const hits = await r.memory.getMulti([`exists:${META}`, `exists:${MARK}`]);
    expect(new TextDecoder().decode(hits.get(`exists:${META}`))).toBe('true');
    expect(new TextDecoder().decode(hits.get(`exists:${MARK}`))).toBe('false');
    await r.store.upload(MARK, enc('{}'));
    expect(await r.bucket.exists(MARK)).toBe(false); // cached negative
    await r.clock.advance(15 * MIN);
    expect(await r.store.exists(MARK)).toBe(true);
    expect(await r.bucket.exists(MARK)).toBe(true);
    expect(await r.bucket.exists(META)).toBe(true);
    expect(r.log.count('exists')).toBe(3);
  });

  it('caches meta file contents (up to the max size) and answers not-found from exists:false', async () => {
    const r = metaRig({ metafile_max_size_bytes: 20 });
    await seed(r);
    expect(await r.bucket.get(META)).toEqual(enc('{"ulid":"x"}'));
    expect(await r.bucket.get(META)).toEqual(enc('{"ulid":"x"}'));
    await expect(r.bucket.get(MARK)).rejects.toBeInstanceOf(ObjectNotFoundError);
    await expect(r.bucket.get(MARK)).rejects.toBeInstanceOf(ObjectNotFoundError);
    expect(r.log.count('get')).toBe(2);
    const big = `{"pad":"${'x'.repeat(40)}"}`;
    await r.store.upload('t2/x/meta.json', enc(big));
    await r.bucket.get('t2/x/meta.json');
    await r.bucket.get('t2/x/meta.json');
    expect(r.log.count('get')).toBe(4);
  });

  it('treats truncated cached content as a miss', async () => {
    const r = metaRig();
    await seed(r);
    r.memory.setMulti(new Map([[`content:${META}`, enc('{"ulid":')]]), 0);
    expect(await r.bucket.get(META)).toEqual(enc('{"ulid":"x"}'));
    r.memory.setMulti(new Map([[`content:${INDEX}`, enc('{}')]]), 0);
    await r.store.upload(INDEX, new Uint8Array([0x1f, 0x8b, ...new Uint8Array(30)]));
    expect((await r.bucket.get(INDEX))[0]).toBe(0x1f);
  });

  it('drops what it cached about an object this process writes or deletes', async () => {
    const r = metaRig();
    await seed(r);
    expect(await r.bucket.exists(MARK)).toBe(false);
    await r.bucket.upload(MARK, enc('{"a":1}'));
    expect(await r.bucket.exists(MARK)).toBe(true);
    expect(await r.bucket.get(MARK)).toEqual(enc('{"a":1}'));
    await r.bucket.delete(MARK);
    await expect(r.bucket.get(MARK)).rejects.toBeInstanceOf(ObjectNotFoundError);
  });

  it('caches the bucket index content for 5m but never whether it exists', async () => {
    const r = metaRig();
    await expect(r.bucket.get(INDEX)).rejects.toBeInstanceOf(ObjectNotFoundError);
    const gz = new Uint8Array([0x1f, 0x8b, ...new Uint8Array(30)]);
    await r.store.upload(INDEX, gz);
    expect(await r.bucket.get(INDEX)).toEqual(gz);
    expect(await r.bucket.get(INDEX)).toEqual(gz);
    expect(r.log.count('get')).toBe(2);
    await r.clock.advance(5 * MIN);
    await r.bucket.get(INDEX);
    expect(r.log.count('get')).toBe(3);
  });

  it('caches attributes of meta files and block indexes as Go JSON', async () => {
    const r = metaRig();
    await seed(r);
    const a = await r.bucket.attributes(`t1/${B}/index`);
    expect(await r.bucket.attributes(`t1/${B}/index`)).toEqual(a);
    expect(r.log.count('attributes')).toBe(1);
    const raw = (await r.memory.getMulti([`attrs:t1/${B}/index`])).get(`attrs:t1/${B}/index`);
    expect(JSON.parse(new TextDecoder().decode(raw))).toEqual({
      size: 10,
      last_modified: '2023-11-14T22:13:20Z',
    });
  });

  it('disables an item type whose TTL is 0', async () => {
    const r = metaRig({ tenants_list_ttl: 0, metafile_doesnt_exist_ttl: 0 });
    await seed(r);
    await r.bucket.list('');
    await r.bucket.list('');
    expect(r.log.count('list')).toBe(2);
    await r.bucket.exists(MARK);
    await r.bucket.exists(MARK);
    expect(r.log.count('exists')).toBe(2);
    await r.bucket.exists(META);
    await r.bucket.exists(META);
    expect(r.log.count('exists')).toBe(3);
    expect(
      r.registry.getSingleMetric('thanos_store_bucket_cache_operation_requests_total'),
    ).toBeDefined();
  });

  it('for the compactor, caches neither existence nor deletion marks nor block lists', async () => {
    const r = metaRig({}, true);
    await seed(r);
    await r.bucket.exists(META);
    await r.bucket.exists(META);
    await r.bucket.list('t1/');
    await r.bucket.list('t1/');
    await expect(r.bucket.get(MARK)).rejects.toBeInstanceOf(ObjectNotFoundError);
    await expect(r.bucket.get(MARK)).rejects.toBeInstanceOf(ObjectNotFoundError);
    expect([r.log.count('exists'), r.log.count('list'), r.log.count('get')]).toEqual([2, 2, 2]);
    await r.bucket.get(META);
    await r.bucket.get(META);
    expect(r.log.count('get')).toBe(3);
  });

  it('answers every call from the bucket while the cache fails', async () => {
    const r = metaRig();
    await seed(r);
    r.cache.failing = true;
    expect(await r.bucket.list('')).toEqual(['t1/', 't2/']);
    expect(await r.bucket.exists(META)).toBe(true);
    expect(await r.bucket.get(META)).toEqual(enc('{"ulid":"x"}'));
    await expect(r.bucket.get(MARK)).rejects.toBeInstanceOf(ObjectNotFoundError);
  });

  it('shares its metrics between caching buckets of one registry', async () => {
    const r = metaRig();
    await seed(r);
    const other = new CachingBucket(
      r.store,
      cortexCachingBucketConfig({ metadata: { config: metadata(), cache: r.cache } }),
      { clock: r.clock, registry: r.registry },
    );
    await other.list('');
    await r.bucket.list('');
    const labels = { operation: 'iter', config: 'tenants-iter' };
    expect(
      await counter(r.registry, 'thanos_store_bucket_cache_operation_requests_total', labels),
    ).toBe(2);
    expect(
      await counter(r.registry, 'thanos_store_bucket_cache_operation_hits_total', labels),
    ).toBe(1);
  });
});
