import { describe, expect, it } from 'vitest';
import { DiskFileSystem } from '../../sim/testing/index.js';
import { createSeededRandom, newMetricsRegistry } from '../runtime/index.js';
import { BucketStores } from './bucket_stores.js';
import { fakeBlockLoader, uploadFakeBlock, writeIndexFromBucket } from './fake_blocks.testing.js';
import { HOUR, T0, newWorld, storesConfig, type World } from './gateway_harness.testing.js';
import { BucketIndexMetaFetcher, BucketScanMetaFetcher, metaFromIndex } from './meta_fetcher.js';
import { StoreGatewayMetrics } from './metrics.js';
import { NO_SHARDING } from './sharding.js';

function deps(world: World) {
  return {
    bucket: world.bucket,
    logger: world.logger,
    metrics: new StoreGatewayMetrics(newMetricsRegistry()),
    filters: [],
    owned: () => true,
  };
}

const upload = (world: World, tenant: string, seq: number) =>
  uploadFakeBlock(world.bucket, {
    tenant,
    ulidTime: T0 - HOUR,
    seq,
    minTime: T0 - 3 * HOUR,
    maxTime: T0 - HOUR,
  });

describe('BucketScanMetaFetcher', () => {
  it('reads each meta.json once, skips partial blocks and non-block entries', async () => {
    const world = newWorld();
    const a = await upload(world, 't', 1);
    const partial = await upload(world, 't', 2);
    await world.bucket.delete(`t/${partial.ulid}/meta.json`);
    await world.bucket.upload('t/markers/x-deletion-mark.json', new Uint8Array([1]));
    const fetcher = new BucketScanMetaFetcher('t', { concurrency: 2 }, deps(world));
    const first = await fetcher.fetch();
    expect([...first.metas.keys()]).toEqual([a.ulid]);
    expect(first.synced.get('no-meta-json')).toBe(1);
    expect(first.error).toBeUndefined();
    const b = await upload(world, 't', 3);
    const second = await fetcher.fetch();
    expect([...second.metas.keys()].sort()).toEqual([a.ulid, b.ulid].sort());
    const metaReads = (id: string) => world.bucket.count('get', (n) => n === `t/${id}/meta.json`);
    expect(metaReads(a.ulid)).toBe(1);
    expect(metaReads(b.ulid)).toBe(1);
  });

  it('returns nothing for a tenant outside the shard, without touching the bucket', async () => {
    const world = newWorld();
    await upload(world, 't', 1);
    const fetcher = new BucketScanMetaFetcher(
      't',
      { concurrency: 2 },
      { ...deps(world), owned: () => false },
    );
    expect((await fetcher.fetch()).metas.size).toBe(0);
    expect(world.bucket.calls).toEqual([]);
  });
});

describe('BucketIndexMetaFetcher', () => {
  it('builds metas from the index: times, tenant label and segment files', async () => {
    const world = newWorld();
    const a = await upload(world, 't', 1);
    await writeIndexFromBucket(world.bucket, 't', T0);
    const res = await new BucketIndexMetaFetcher('t', deps(world)).fetch();
    const meta = res.metas.get(a.ulid);
    expect(meta).toMatchObject({ ulid: a.ulid, minTime: a.minTime, maxTime: a.maxTime });
    expect(meta?.thanos?.labels).toEqual({ __org_id__: 't' });
    expect(meta?.thanos?.segment_files).toEqual(['000001']);
    expect(
      metaFromIndex({ block_id: a.ulid, min_time: 1, max_time: 2, uploaded_at: 0 }, 't').thanos
        ?.segment_files,
    ).toBeUndefined();
  });
});

describe('incomplete views', () => {
  it.each([
    ['a failed tenant listing', false],
    ['a failed bucket index read', true],
  ])('%s fails the sync but drops no block', async (_, bucketIndexEnabled) => {
    const world = newWorld();
    const a = await upload(world, 't', 1);
    if (bucketIndexEnabled) await writeIndexFromBucket(world.bucket, 't', T0);
    const fs = new DiskFileSystem();
    const stores = new BucketStores(storesConfig({ bucketIndexEnabled }), {
      bucket: world.bucket,
      fs,
      clock: world.clock,
      random: createSeededRandom('s'),
      logger: world.logger,
      metrics: new StoreGatewayMetrics(newMetricsRegistry()),
      blockLoader: fakeBlockLoader({ bucket: world.bucket, fs, clock: world.clock }),
      sharding: NO_SHARDING,
    });
    await stores.initialSync();
    const list = world.bucket.list.bind(world.bucket);
    const get = world.bucket.get.bind(world.bucket);
    world.bucket.list = (dir, opts) =>
      dir === 't/' ? Promise.reject(new Error('listing timed out')) : list(dir, opts);
    world.bucket.get = (name, opts) =>
      name.endsWith('bucket-index.json.gz')
        ? Promise.reject(new Error('read timed out'))
        : get(name, opts);
    const sync = stores.syncBlocks();
    const done = sync.catch((e: unknown) => e);
    // Retries back off 1s then 2s (with jitter).
    await world.clock.advance(10_000);
    expect(String(await done)).toMatch(/timed out/);
    expect(stores.blocks('t').map((b) => b.meta.ulid)).toEqual([a.ulid]);
  });
});
