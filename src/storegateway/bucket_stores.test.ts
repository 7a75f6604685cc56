import { describe, expect, it } from 'vitest';
import { DiskFileSystem } from '../../sim/testing/index.js';
import { writeTenantDeletionMark } from '../bucket/index.js';
import {
  deleteBlockObjects,
  markDeleted,
  uploadFakeBlock,
  writeIndexFromBucket,
} from './fake_blocks.testing.js';
import {
  HOUR,
  MINUTE,
  T0,
  buildStores,
  heldIds,
  metricValue,
  newWorld,
  twoSeriesBlock,
} from './gateway_harness.testing.js';
import { Matcher } from '../model/index.js';

const ALL = [Matcher.regex('__name__', '.+')];

describe('BucketStores sync', () => {
  it('loads every block of every tenant, builds index-headers under sync_dir/<tenant>/<block>', async () => {
    const world = newWorld();
    const a = await twoSeriesBlock(world, 'team-a', 1, T0 - 6 * HOUR);
    const b = await twoSeriesBlock(world, 'team-b', 2, T0 - 6 * HOUR);
    await world.bucket.upload('user-index.json.gz', new Uint8Array([1]));
    const { stores, registry, fs } = buildStores(world);
    await stores.initialSync();
    expect(stores.tenants()).toEqual(['team-a', 'team-b']);
    expect(heldIds(stores, 'team-a')).toEqual([a.ulid]);
    expect(await fs.exists(`/data/tsdb-sync/team-a/${a.ulid}/index-header`)).toBe(true);
    expect(await fs.exists(`/data/tsdb-sync/team-b/${b.ulid}/index-header`)).toBe(true);
    expect(await metricValue(registry, 'cortex_bucket_store_blocks_loaded')).toBe(2);
    expect(await metricValue(registry, 'cortex_bucket_store_block_loads_total')).toBe(2);
    expect(await metricValue(registry, 'cortex_bucket_stores_tenants_discovered')).toBe(2);
    expect(await metricValue(registry, 'cortex_bucket_stores_tenants_synced')).toBe(2);
    expect(await metricValue(registry, 'cortex_blocks_meta_synced', { state: 'loaded' })).toBe(2);
  });

  it('adds a block uploaded later and drops a deleted one, removing its local dir', async () => {
    const world = newWorld();
    const first = await twoSeriesBlock(world, 'team-a', 1, T0 - 6 * HOUR);
    const { stores, registry, fs } = buildStores(world);
    await stores.initialSync();
    const second = await twoSeriesBlock(world, 'team-a', 2, T0 - 4 * HOUR);
    await stores.syncBlocks();
    expect(heldIds(stores, 'team-a')).toEqual([first.ulid, second.ulid]);
    await deleteBlockObjects(world.bucket, 'team-a', first.ulid);
    await stores.syncBlocks();
    expect(heldIds(stores, 'team-a')).toEqual([second.ulid]);
    expect(await fs.exists(`/data/tsdb-sync/team-a/${first.ulid}`)).toBe(false);
    expect(world.layer.closes).toBe(1);
    expect(await metricValue(registry, 'cortex_bucket_store_block_drops_total')).toBe(1);
    expect(await metricValue(registry, 'cortex_bucket_store_blocks_loaded')).toBe(1);
  });

  it.each([
    ['a bucket scan', false],
    ['the bucket index', true],
  ])(
    'drops blocks deletion-marked longer ago than the delay, keeps younger marks (%s)',
    async (_, bucketIndexEnabled) => {
      const world = newWorld();
      const old = await twoSeriesBlock(world, 't', 1, T0 - 8 * HOUR);
      const young = await twoSeriesBlock(world, 't', 2, T0 - 6 * HOUR);
      const kept = await twoSeriesBlock(world, 't', 3, T0 - 4 * HOUR);
      await markDeleted(world.bucket, 't', old.ulid, T0 - 7 * HOUR);
      await markDeleted(world.bucket, 't', young.ulid, T0 - 1 * HOUR);
      if (bucketIndexEnabled) await writeIndexFromBucket(world.bucket, 't', T0);
      const { stores, registry } = buildStores(world, { bucketIndexEnabled });
      await stores.initialSync();
      expect(heldIds(stores, 't')).toEqual([young.ulid, kept.ulid]);
      expect(
        await metricValue(registry, 'cortex_blocks_meta_synced', { state: 'marked-for-deletion' }),
      ).toBe(1);
      // The young mark ages past the delay.
      await world.clock.advance(5 * HOUR + MINUTE);
      await stores.syncBlocks();
      expect(heldIds(stores, 't')).toEqual([kept.ulid]);
      expect(
        await metricValue(registry, 'cortex_blocks_meta_synced', { state: 'marked-for-deletion' }),
      ).toBe(2);
    },
  );

  it('waits consistency_delay before loading fresh ingester blocks but not compactor blocks', async () => {
    const world = newWorld();
    const fresh = await uploadFakeBlock(world.bucket, {
      tenant: 't',
      ulidTime: T0 - 10 * MINUTE,
      seq: 1,
      minTime: T0 - 3 * HOUR,
      maxTime: T0 - HOUR,
    });
    const compacted = await uploadFakeBlock(world.bucket, {
      tenant: 't',
      ulidTime: T0 - 10 * MINUTE,
      seq: 2,
      minTime: T0 - 5 * HOUR,
      maxTime: T0 - 3 * HOUR,
      source: 'compactor',
      level: 2,
    });
    const { stores, registry } = buildStores(world, { consistencyDelayMs: 30 * MINUTE });
    await stores.initialSync();
    expect(heldIds(stores, 't')).toEqual([compacted.ulid]);
    expect(await metricValue(registry, 'cortex_blocks_meta_synced', { state: 'too-fresh' })).toBe(
      1,
    );
    await world.clock.advance(21 * MINUTE);
    await stores.syncBlocks();
    expect(heldIds(stores, 't').sort()).toEqual([fresh.ulid, compacted.ulid].sort());
  });

  it('strips __org_id__ and __ingester_id__ from held metas', async () => {
    const world = newWorld();
    await twoSeriesBlock(world, 't', 1, T0 - 6 * HOUR);
    const { stores } = buildStores(world);
    await stores.initialSync();
    expect(stores.blocks('t')[0]?.meta.thanos?.labels).toEqual({});
  });

  it('a missing or corrupted bucket index means no blocks for that tenant only', async () => {
    const world = newWorld();
    await twoSeriesBlock(world, 'no-index', 1, T0 - 6 * HOUR);
    const ok = await twoSeriesBlock(world, 'ok', 2, T0 - 6 * HOUR);
    await twoSeriesBlock(world, 'corrupt', 3, T0 - 6 * HOUR);
    await writeIndexFromBucket(world.bucket, 'ok', T0);
    await world.bucket.upload('corrupt/bucket-index.json.gz', new TextEncoder().encode('not gzip'));
    const { stores, registry } = buildStores(world, { bucketIndexEnabled: true });
    await stores.initialSync();
    expect(heldIds(stores, 'ok')).toEqual([ok.ulid]);
    expect(heldIds(stores, 'no-index')).toEqual([]);
    expect(heldIds(stores, 'corrupt')).toEqual([]);
    expect(
      await metricValue(registry, 'cortex_blocks_meta_synced', { state: 'corrupted-bucket-index' }),
    ).toBe(1);
    expect(
      await metricValue(registry, 'cortex_blocks_meta_synced', { state: 'no-bucket-index' }),
    ).toBe(1);
    expect(await metricValue(registry, 'cortex_bucket_index_loads_total')).toBe(3);
    expect(await metricValue(registry, 'cortex_bucket_index_load_failures_total')).toBe(1);
    expect(world.logger.lines.some((l) => l.msg.includes('corrupted bucket index'))).toBe(true);
  });

  it('a corrupted meta.json, a truncated index or a missing chunk file affects only that block', async () => {
    const world = newWorld();
    const good = await twoSeriesBlock(world, 't', 1, T0 - 8 * HOUR);
    const badMeta = await twoSeriesBlock(world, 't', 2, T0 - 6 * HOUR);
    const truncated = await twoSeriesBlock(world, 't', 3, T0 - 4 * HOUR);
    const noChunks = await twoSeriesBlock(world, 't', 4, T0 - 2 * HOUR);
    await world.bucket.upload(`t/${badMeta.ulid}/meta.json`, new TextEncoder().encode('{"ulid": '));
    const index = await world.bucket.get(`t/${truncated.ulid}/index`);
    await world.bucket.upload(`t/${truncated.ulid}/index`, index.subarray(0, 10));
    await world.bucket.delete(`t/${noChunks.ulid}/chunks/000001`);
    const { stores, registry, fs } = buildStores(world);
    await stores.initialSync();
    expect(heldIds(stores, 't')).toEqual([good.ulid, noChunks.ulid]);
    expect(
      await metricValue(registry, 'cortex_blocks_meta_synced', { state: 'corrupted-meta-json' }),
    ).toBe(1);
    expect(await metricValue(registry, 'cortex_bucket_store_block_load_failures_total')).toBe(1);
    expect(await fs.exists(`/data/tsdb-sync/t/${truncated.ulid}`)).toBe(false);
    const res = await stores.series('t', {
      start: T0 - 10 * HOUR,
      end: T0,
      matchers: ALL,
      blockIds: [good.ulid, noChunks.ulid, truncated.ulid],
    });
    expect(res.queriedBlocks).toEqual([good.ulid]);
    expect(res.series).toHaveLength(2);
    expect(await metricValue(registry, 'strata_bucket_store_block_query_failures_total')).toBe(1);
    // The failed load is retried on the next sync (and fails again, counted again).
    await stores.syncBlocks();
    expect(await metricValue(registry, 'cortex_bucket_store_block_load_failures_total')).toBe(2);
  });

  it('restarting reuses index-headers on disk: no index read from the bucket', async () => {
    const world = newWorld();
    const ids = [];
    for (let i = 1; i <= 3; i++)
      ids.push((await twoSeriesBlock(world, 't', i, T0 - 2 * i * HOUR)).ulid);
    const fs = new DiskFileSystem();
    const first = buildStores(world, {}, fs);
    await first.stores.initialSync();
    await first.stores.close();
    const isIndex = (n: string) => n.endsWith('/index');
    expect(world.bucket.count('getRange', isIndex)).toBe(3);
    expect(world.layer.headerBuilds).toBe(3);
    const second = buildStores(world, {}, new DiskFileSystem(fs.disk));
    await second.stores.initialSync();
    expect(heldIds(second.stores, 't').sort()).toEqual([...ids].sort());
    expect(world.bucket.count('getRange', isIndex)).toBe(3);
    expect(world.layer.headerBuilds).toBe(3);
  });

  it('removes local dirs of blocks and tenants no longer in the bucket at startup', async () => {
    const world = newWorld();
    const kept = await twoSeriesBlock(world, 't', 1, T0 - 6 * HOUR);
    const fs = new DiskFileSystem();
    await fs.mkdir('/data/tsdb-sync/t/01ARZ3NDEKTSV4RRFFQ69G5FAV', { recursive: true });
    await fs.mkdir('/data/tsdb-sync/gone-tenant/01ARZ3NDEKTSV4RRFFQ69G5FAV', { recursive: true });
    const { stores } = buildStores(world, {}, fs);
    await stores.initialSync();
    expect(await fs.readdir('/data/tsdb-sync')).toEqual(['t']);
    expect(await fs.readdir('/data/tsdb-sync/t')).toEqual([kept.ulid]);
  });

  it('drops a tenant that disappeared from the bucket, from memory and disk', async () => {
    const world = newWorld();
    const a = await twoSeriesBlock(world, 'a', 1, T0 - 6 * HOUR);
    await twoSeriesBlock(world, 'b', 2, T0 - 6 * HOUR);
    const { stores, fs } = buildStores(world);
    await stores.initialSync();
    await deleteBlockObjects(world.bucket, 'a', a.ulid);
    await stores.syncBlocks();
    expect(stores.tenants()).toEqual(['b']);
    expect(await fs.exists('/data/tsdb-sync/a')).toBe(false);
  });
});

describe('BucketStores, tenants marked for deletion (Cortex: served while blocks are left)', () => {
  it('keeps serving a deleting tenant until its index and blocks go; a tenant with only its mark is not discovered', async () => {
    const world = newWorld();
    const doomed = await twoSeriesBlock(world, 'deleting', 1, T0 - 6 * HOUR);
    const kept = await twoSeriesBlock(world, 'keep', 2, T0 - 6 * HOUR);
    await writeIndexFromBucket(world.bucket, 'deleting', T0);
    await writeIndexFromBucket(world.bucket, 'keep', T0);
    await writeTenantDeletionMark(world.bucket, 'deleting', { deletion_time: T0 / 1000 });
    await writeTenantDeletionMark(world.bucket, 'gone', { deletion_time: T0 / 1000 });
    const { stores, registry, fs } = buildStores(world, { bucketIndexEnabled: true });
    await stores.initialSync();
    expect(stores.tenants()).toEqual(['deleting', 'keep']);
    expect(heldIds(stores, 'deleting')).toEqual([doomed.ulid]);
    expect(await metricValue(registry, 'cortex_bucket_stores_tenants_discovered')).toBe(2);

    // The cleaner deletes the index first: the tenant is still served, with no blocks.
    await world.bucket.delete('deleting/bucket-index.json.gz');
    await stores.syncBlocks();
    expect(stores.tenants()).toEqual(['deleting', 'keep']);
    expect(heldIds(stores, 'deleting')).toEqual([]);

    // Then its blocks: nothing is left under its prefix, the gateway drops it.
    await deleteBlockObjects(world.bucket, 'deleting', doomed.ulid);
    await stores.syncBlocks();
    expect(stores.tenants()).toEqual(['keep']);
    expect(await fs.exists('/data/tsdb-sync/deleting')).toBe(false);
    expect(heldIds(stores, 'keep')).toEqual([kept.ulid]);
  });
});
