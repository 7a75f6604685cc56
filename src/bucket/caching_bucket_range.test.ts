import { describe, expect, it } from 'vitest';
import { CachingBucketConfig } from './caching_bucket_config.js';
import { counter, pattern, rig } from './caching_bucket.testing.js';
import { mergeRanges, planRequests } from './caching_bucket_range.js';

const SEG = 'tenant-1/01HZZZZZZZZZZZZZZZZZZZZZZZ/chunks/000001';
const HOUR = 3600_000;

function chunksRig(opts: { subrange?: number; maxRequests?: number; attrsTtl?: number } = {}) {
  return rig((cache) =>
    new CachingBucketConfig().cacheGetRange({
      name: 'chunks',
      cache,
      matches: (n) => /^.*\/chunks\/\d+$/.test(n),
      subrangeSize: opts.subrange ?? 10,
      maxSubRequests: opts.maxRequests ?? 3,
      attributesTtlMs: opts.attrsTtl ?? 168 * HOUR,
      subrangeTtlMs: 24 * HOUR,
    }),
  );
}

describe('sub-range planning', () => {
  it('merges adjacent ranges, then bridges gaps until the request limit holds', () => {
    const missing = [0, 10, 30, 50, 80].map((s) => ({ start: s, end: s + 10 }));
    expect(mergeRanges(missing, 0)).toEqual([
      { start: 0, end: 20 },
      { start: 30, end: 40 },
      { start: 50, end: 60 },
      { start: 80, end: 90 },
    ]);
    expect(planRequests(missing, 10, 3)).toEqual([
      { start: 0, end: 60 },
      { start: 80, end: 90 },
    ]);
    expect(planRequests(missing, 10, 1)).toEqual([{ start: 0, end: 90 }]);
    // ≤ 0: unlimited, adjacent ones still merged.
    expect(planRequests(missing, 10, 0)).toHaveLength(4);
  });
});

describe('CachingBucket getRange', () => {
  it('returns exact bytes for partial first and last sub-ranges and stores aligned keys', async () => {
    const r = chunksRig();
    const data = pattern(95);
    await r.store.upload(SEG, data);
    expect(await r.bucket.getRange(SEG, 13, 79)).toEqual(data.slice(13, 92));
    const keys = [...Array(10).keys()].map(
      (i) => `subrange:${SEG}:${i * 10}:${Math.min(95, i * 10 + 10)}`,
    );
    const cached = await r.memory.getMulti(keys);
    expect([...cached.keys()].sort()).toEqual(keys.slice(1).sort());
    expect(cached.get(`subrange:${SEG}:90:95`)).toEqual(data.slice(90, 95));
    const attrs = await r.memory.getMulti([`attrs:${SEG}`]);
    expect(JSON.parse(new TextDecoder().decode(attrs.get(`attrs:${SEG}`)))).toMatchObject({
      size: 95,
    });
    // One bucket request for the contiguous missing sub-ranges [10, 95).
    expect(r.log.calls.filter((c) => c.op === 'getRange')).toEqual([
      { op: 'getRange', name: SEG, offset: 10, length: 85 },
    ]);
  });

  it('reads past the end are cut to the object, like the bucket does', async () => {
    const r = chunksRig();
    const data = pattern(95);
    await r.store.upload(SEG, data);
    expect(await r.bucket.getRange(SEG, 88, 50)).toEqual(data.slice(88));
    expect(await r.bucket.getRange(SEG, 95, 10)).toEqual(new Uint8Array(0));
  });

  it('serves an object smaller than one sub-range', async () => {
    const r = chunksRig({ subrange: 16000 });
    const data = pattern(700);
    await r.store.upload(SEG, data);
    expect(await r.bucket.getRange(SEG, 100, 200)).toEqual(data.slice(100, 300));
    expect(await r.memory.getMulti([`subrange:${SEG}:0:700`])).toHaveProperty('size', 1);
    r.log.calls.length = 0;
    expect(await r.bucket.getRange(SEG, 0, 700)).toEqual(data);
    expect(r.log.calls).toEqual([]);
  });

  it('serves hits without touching the bucket and fetches only missing sub-ranges', async () => {
    const r = chunksRig({ maxRequests: 0 });
    const data = pattern(100);
    await r.store.upload(SEG, data);
    await r.bucket.getRange(SEG, 20, 10); // caches [20, 30)
    await r.bucket.getRange(SEG, 60, 10); // caches [60, 70)
    r.log.calls.length = 0;
    expect(await r.bucket.getRange(SEG, 20, 10)).toEqual(data.slice(20, 30));
    expect(r.log.calls).toEqual([]);
    expect(await r.bucket.getRange(SEG, 0, 100)).toEqual(data);
    expect(r.log.calls.map((c) => [c.offset, c.length])).toEqual([
      [0, 20],
      [30, 30],
      [70, 30],
    ]);
    const labels = { operation: 'get_range', config: 'chunks' };
    expect(
      await counter(r.registry, 'thanos_store_bucket_cache_operation_requests_total', labels),
    ).toBe(4);
    expect(
      await counter(r.registry, 'thanos_store_bucket_cache_getrange_requested_bytes_total', {
        config: 'chunks',
      }),
    ).toBe(130);
    expect(
      await counter(r.registry, 'thanos_store_bucket_cache_getrange_fetched_bytes_total', {
        origin: 'bucket',
        config: 'chunks',
      }),
    ).toBe(100);
  });

  it('bridges cached sub-ranges to stay within max_get_range_requests', async () => {
    const r = chunksRig({ maxRequests: 1 });
    const data = pattern(100);
    await r.store.upload(SEG, data);
    await r.bucket.getRange(SEG, 40, 10);
    r.log.calls.length = 0;
    expect(await r.bucket.getRange(SEG, 0, 100)).toEqual(data);
    expect(r.log.calls.map((c) => [c.offset, c.length])).toEqual([[0, 100]]);
    expect(
      await counter(r.registry, 'thanos_store_bucket_cache_getrange_refetched_bytes_total', {
        origin: 'cache',
        config: 'chunks',
      }),
    ).toBe(10);
  });

  it('expires sub-ranges after subrange_ttl on the Env clock', async () => {
    const r = chunksRig();
    await r.store.upload(SEG, pattern(50));
    await r.bucket.getRange(SEG, 0, 50);
    await r.clock.advance(24 * HOUR - 1);
    r.log.calls.length = 0;
    await r.bucket.getRange(SEG, 0, 50);
    expect(r.log.count('getRange')).toBe(0);
    await r.clock.advance(2);
    await r.bucket.getRange(SEG, 0, 50);
    expect(r.log.count('getRange')).toBe(1);
    expect(r.log.count('attributes')).toBe(0); // attributes live 168h
  });

  it('ignores a cached sub-range of the wrong length and refetches it', async () => {
    const r = chunksRig();
    const data = pattern(30);
    await r.store.upload(SEG, data);
    r.memory.setMulti(new Map([[`subrange:${SEG}:10:20`, new Uint8Array([1, 2, 3])]]), 0);
    expect(await r.bucket.getRange(SEG, 0, 30)).toEqual(data);
    expect(
      (await r.memory.getMulti([`subrange:${SEG}:10:20`])).get(`subrange:${SEG}:10:20`),
    ).toEqual(data.slice(10, 20));
  });

  it('does not let a wrong cached size change the bytes returned', async () => {
    const r = chunksRig();
    const data = pattern(95);
    await r.store.upload(SEG, data);
    const attrs = (size: number) =>
      new TextEncoder().encode(JSON.stringify({ size, last_modified: '2024-01-01T00:00:00Z' }));
    r.memory.setMulti(new Map([[`attrs:${SEG}`, attrs(40)]]), 0);
    expect(await r.bucket.getRange(SEG, 30, 60)).toEqual(data.slice(30, 90));
    r.memory.setMulti(new Map([[`attrs:${SEG}`, attrs(500)]]), 0);
    await r.memory.delete(`subrange:${SEG}:90:95`);
    expect(await r.bucket.getRange(SEG, 85, 400)).toEqual(data.slice(85));
    r.memory.setMulti(new Map([[`attrs:${SEG}`, new TextEncoder().encode('garbage')]]), 0);
    expect(await r.bucket.getRange(SEG, 0, 95)).toEqual(data);
  });

  it('answers from the bucket while the cache is down', async () => {
    const r = chunksRig();
    const data = pattern(64);
    await r.store.upload(SEG, data);
    r.cache.failing = true;
    expect(await r.bucket.getRange(SEG, 5, 50)).toEqual(data.slice(5, 55));
    r.cache.failing = false;
    r.log.calls.length = 0;
    expect(await r.bucket.getRange(SEG, 5, 50)).toEqual(data.slice(5, 55));
    expect(r.log.count('getRange')).toBe(1); // nothing was cached while down
  });

  it('passes through objects no config matches and open-ended reads', async () => {
    const r = chunksRig();
    const index = 'tenant-1/01HZZZZZZZZZZZZZZZZZZZZZZZ/index';
    await r.store.upload(index, pattern(40));
    await r.store.upload(SEG, pattern(40));
    await r.bucket.getRange(index, 0, 10);
    await r.bucket.getRange(index, 0, 10);
    await r.bucket.getRange(SEG, 0, -1);
    expect(r.log.count('getRange')).toBe(3);
    expect(r.memory.usedBytes).toBe(0);
  });

  it('does not cache attributes when attributes_ttl is 0, still caches sub-ranges', async () => {
    const r = chunksRig({ attrsTtl: 0 });
    await r.store.upload(SEG, pattern(40));
    await r.bucket.getRange(SEG, 0, 40);
    await r.bucket.getRange(SEG, 0, 40);
    expect(r.log.count('attributes')).toBe(2);
    expect(r.log.count('getRange')).toBe(1);
  });
});
