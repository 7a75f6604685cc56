import { describe, expect, it } from 'vitest';
import {
  blockMetaPath,
  bucketIndexPath,
  bucketIndexSyncStatusPath,
  deletionMarkPath,
  globalDeletionMarkPath,
  markBlockForDeletion,
  readBucketIndex,
  readSyncStatus,
  readTenantDeletionMark,
  writeTenantDeletionMark,
} from '../bucket/index.js';
import { testUlid, uploadTestBlock } from '../bucket/testing.js';
import { HOUR, T0, blockIds, id, metric, signal, world } from './cleaner_harness.testing.js';

describe('BlocksCleaner, active tenants', () => {
  it('builds the index of a new tenant, writes the sync status and the gauges', async () => {
    const w = world();
    await uploadTestBlock(w.inner, 't', id(1));
    await uploadTestBlock(w.inner, 't', id(2));
    await markBlockForDeletion(w.inner, 't', id(2), w.clock, 'test');
    const result = await w.cleaner.runCleanup(signal(), true);
    expect(result?.active).toEqual({ tenants: ['t'], failed: [] });
    expect(await blockIds(w, 't')).toEqual([id(1), id(2)]);
    expect(await readSyncStatus(w.inner, 't')).toMatchObject({ status: 'Ok', sync_ime: T0 / 1000 });
    expect(await metric(w.metrics, 'cortex_bucket_blocks_count', { user: 't' })).toBe(2);
    expect(
      await metric(w.metrics, 'cortex_bucket_blocks_marked_for_deletion_count', { user: 't' }),
    ).toBe(1);
    expect(await metric(w.metrics, 'cortex_bucket_blocks_partials_count', { user: 't' })).toBe(0);
    expect(
      await metric(w.metrics, 'cortex_bucket_index_last_successful_update_timestamp_seconds', {
        user: 't',
      }),
    ).toBe(T0 / 1000);
    expect(
      await metric(w.metrics, 'cortex_compactor_block_cleanup_completed_total', {
        user_status: 'active',
      }),
    ).toBe(1);
    expect(
      await metric(w.metrics, 'cortex_compactor_block_cleanup_started_total', {
        user_status: 'deleted',
      }),
    ).toBe(1);
  });

  it('honours the deletion delay: kept one second before it, deleted after', async () => {
    const w = world();
    await uploadTestBlock(w.inner, 't', id(1));
    await uploadTestBlock(w.inner, 't', id(2));
    await markBlockForDeletion(w.inner, 't', id(1), w.clock, 'test');
    await w.clock.advance(12 * HOUR - 1_000);
    await w.cleaner.runCleanup(signal(), true);
    expect(await w.inner.exists(blockMetaPath('t', id(1)))).toBe(true);
    expect(await blockIds(w, 't')).toEqual([id(1), id(2)]);
    await w.clock.advance(2_000);
    await w.cleaner.runCleanup(signal(), false);
    expect(await w.inner.list(`t/${id(1)}/`, { recursive: true })).toEqual([]);
    expect(await w.inner.exists(globalDeletionMarkPath('t', id(1)))).toBe(false);
    expect(await readBucketIndex(w.inner, 't')).toMatchObject({
      blocks: [{ block_id: id(2) }],
      block_deletion_marks: [],
    });
    expect(await metric(w.metrics, 'cortex_compactor_blocks_cleaned_total')).toBe(1);
  });

  it('with no deletion delay deletes a marked block at the next cleanup', async () => {
    const w = world({ deletionDelayMs: 0 });
    await uploadTestBlock(w.inner, 't', id(1));
    await uploadTestBlock(w.inner, 't', id(2));
    await markBlockForDeletion(w.inner, 't', id(1), w.clock, 'test');
    await w.cleaner.runCleanup(signal(), true);
    expect(await blockIds(w, 't')).toEqual([id(2)]);
    expect(await w.inner.exists(blockMetaPath('t', id(1)))).toBe(false);
  });

  it('rebuilds a corrupted index, logging and counting it', async () => {
    const w = world();
    await uploadTestBlock(w.inner, 't', id(1));
    await w.inner.upload(bucketIndexPath('t'), new TextEncoder().encode('garbage'));
    const result = await w.cleaner.runCleanup(signal(), true);
    expect(result?.active.failed).toEqual([]);
    expect(await blockIds(w, 't')).toEqual([id(1)]);
    expect(w.logger.find('found a corrupted bucket index', 'warn')[0]?.fields).toMatchObject({
      user: 't',
    });
    expect(await metric(w.metrics, 'strata_bucket_index_corrupted_total', { user: 't' })).toBe(1);
  });

  it('skips a block with a corrupted meta.json: logged, counted, not deleted, tenant fine', async () => {
    const w = world();
    await uploadTestBlock(w.inner, 't', id(1));
    await uploadTestBlock(w.inner, 't', id(2), { metaText: '{"version": 1' });
    const result = await w.cleaner.runCleanup(signal(), true);
    expect(result?.active.failed).toEqual([]);
    expect(await blockIds(w, 't')).toEqual([id(1)]);
    expect(w.logger.find('corrupted meta.json', 'error')[0]?.fields).toMatchObject({
      user: 't',
      block: id(2),
    });
    expect(
      await metric(w.metrics, 'strata_bucket_index_corrupted_block_metas_total', { user: 't' }),
    ).toBe(1);
    expect(await metric(w.metrics, 'cortex_bucket_blocks_partials_count', { user: 't' })).toBe(1);
    expect(await w.inner.exists(blockMetaPath('t', id(2)))).toBe(true);
  });

  it('deletes partial blocks only when marked or holding nothing but visit markers', async () => {
    const w = world();
    await uploadTestBlock(w.inner, 't', id(1), { partial: true }); // upload in progress: kept
    await uploadTestBlock(w.inner, 't', id(2), { partial: true });
    await w.inner.upload(
      deletionMarkPath('t', id(2)),
      new TextEncoder().encode(`{"id":"${id(2)}","version":1,"deletion_time":${T0 / 1000}}`),
    );
    await w.inner.upload(`t/${id(3)}/visit-mark.json`, new TextEncoder().encode('{}'));
    await uploadTestBlock(w.inner, 't', id(4));
    await w.cleaner.runCleanup(signal(), true);
    expect(await w.inner.list(`t/${id(1)}/`, { recursive: true })).toHaveLength(2);
    expect(await w.inner.list(`t/${id(2)}/`, { recursive: true })).toEqual([]);
    expect(await w.inner.list(`t/${id(3)}/`, { recursive: true })).toEqual([]);
    expect(await metric(w.metrics, 'cortex_bucket_blocks_partials_count', { user: 't' })).toBe(1);
    expect(await metric(w.metrics, 'cortex_compactor_blocks_cleaned_total')).toBe(2);
  });

  it('with a partial-block delay (opt-in) marks and deletes long-untouched partial blocks', async () => {
    const w = world({ partialBlockDeletionDelayMs: 24 * HOUR });
    await uploadTestBlock(w.inner, 't', id(1), { partial: true });
    await w.clock.advance(24 * HOUR);
    await w.cleaner.runCleanup(signal(), true);
    expect(await w.inner.list(`t/${id(1)}/`, { recursive: true })).toHaveLength(2);
    await w.clock.advance(1);
    await w.cleaner.runCleanup(signal(), false);
    expect(await w.inner.list(`t/${id(1)}/`, { recursive: true })).toEqual([]);
    expect(
      await metric(w.metrics, 'cortex_compactor_blocks_marked_for_deletion_total', {
        user: 't',
        reason: 'partial',
      }),
    ).toBe(1);
  });

  it('abandons a partial block only once both its ID and its newest object are old', async () => {
    const w = world({ partialBlockDeletionDelayMs: 24 * HOUR });
    // Cut 48h ago but uploading now (an ingester shipping late): kept.
    await uploadTestBlock(w.inner, 't', id(1), { partial: true });
    // Objects as old as id(1)'s, but an ID minted 2h after them: kept longer.
    const later = testUlid(w.clock.now() + 2 * HOUR, 9);
    await uploadTestBlock(w.inner, 't', later, { partial: true });
    await w.clock.advance(HOUR);
    await w.cleaner.runCleanup(signal(), true);
    expect(await w.inner.list(`t/${id(1)}/`, { recursive: true })).toHaveLength(2);
    await w.clock.advance(23 * HOUR + 1);
    await w.cleaner.runCleanup(signal(), false);
    expect(await w.inner.list(`t/${id(1)}/`, { recursive: true })).toEqual([]);
    expect(await w.inner.list(`t/${later}/`, { recursive: true })).toHaveLength(2);
    await w.clock.advance(2 * HOUR);
    await w.cleaner.runCleanup(signal(), false);
    expect(await w.inner.list(`t/${later}/`, { recursive: true })).toEqual([]);
  });

  it('deletes the index and the status once the tenant has no blocks left', async () => {
    const w = world({ deletionDelayMs: 0 });
    await uploadTestBlock(w.inner, 't', id(1));
    await w.cleaner.runCleanup(signal(), true);
    expect(await w.inner.exists(bucketIndexSyncStatusPath('t'))).toBe(true);
    await markBlockForDeletion(w.inner, 't', id(1), w.clock, 'test');
    await w.cleaner.runCleanup(signal(), false);
    expect(await w.inner.list('', { recursive: true })).toEqual([]);
  });

  it('applies retention by marking blocks that ended before now - retention', async () => {
    const w = world({}, { retentionPeriodMs: (t) => (t === 't' ? 24 * HOUR : 0) });
    await uploadTestBlock(w.inner, 't', id(1), { minTime: 0, maxTime: T0 - 25 * HOUR });
    await uploadTestBlock(w.inner, 't', id(2), { minTime: 0, maxTime: T0 - 23 * HOUR });
    await w.cleaner.runCleanup(signal(), true); // builds the index; retention needs one
    await w.cleaner.runCleanup(signal(), false);
    const idx = await readBucketIndex(w.inner, 't');
    expect(idx.block_deletion_marks.map((m) => m.block_id)).toEqual([id(1)]);
    expect(
      await metric(w.metrics, 'cortex_compactor_blocks_marked_for_deletion_total', {
        user: 't',
        reason: 'retention',
      }),
    ).toBe(1);
  });

  it('mirrors block-only marks and removes global marks of vanished blocks', async () => {
    const w = world();
    await uploadTestBlock(w.inner, 't', id(1));
    await w.inner.upload(
      deletionMarkPath('t', id(1)),
      new TextEncoder().encode(`{"id":"${id(1)}","version":1,"deletion_time":${T0 / 1000}}`),
    );
    await w.inner.upload(
      globalDeletionMarkPath('t', id(9)),
      new TextEncoder().encode(`{"id":"${id(9)}","version":1,"deletion_time":1}`),
    );
    await w.cleaner.runCleanup(signal(), true);
    expect(await w.inner.exists(globalDeletionMarkPath('t', id(1)))).toBe(true);
    expect(await w.inner.exists(globalDeletionMarkPath('t', id(9)))).toBe(false);
  });

  it('a failing tenant is logged and counted and does not stop the others', async () => {
    const w = world({ cleanupConcurrency: 1 });
    for (const t of ['a', 'bad', 'c']) await uploadTestBlock(w.inner, t, id(1));
    w.bucket.failWhen = (c) => c.op === 'list' && c.name === 'bad/';
    const result = await w.cleaner.runCleanup(signal(), true);
    expect(result?.active.failed.map((f) => f.item)).toEqual(['bad']);
    expect(await blockIds(w, 'a')).toEqual([id(1)]);
    expect(await blockIds(w, 'c')).toEqual([id(1)]);
    expect(await w.inner.exists(bucketIndexPath('bad'))).toBe(false);
    expect((await readSyncStatus(w.inner, 'bad')).status).toBe('GenericError');
    expect(w.logger.find('failed blocks cleanup and maintenance', 'warn')[0]?.fields).toMatchObject(
      { user: 'bad' },
    );
    expect(
      await metric(w.metrics, 'cortex_compactor_block_cleanup_failed_total', {
        user_status: 'active',
      }),
    ).toBe(1);
    expect(
      await metric(w.metrics, 'cortex_compactor_block_cleanup_completed_total', {
        user_status: 'active',
      }),
    ).toBeUndefined();
  });

  it('a block that cannot be deleted is counted and the rest of the tenant goes on', async () => {
    const w = world({ deletionDelayMs: 0 });
    await uploadTestBlock(w.inner, 't', id(1));
    await uploadTestBlock(w.inner, 't', id(2));
    await markBlockForDeletion(w.inner, 't', id(1), w.clock, 'x');
    await markBlockForDeletion(w.inner, 't', id(2), w.clock, 'x');
    w.bucket.failWhen = (c) => c.op === 'delete' && c.name === blockMetaPath('t', id(1));
    const result = await w.cleaner.runCleanup(signal(), true);
    expect(result?.active.failed).toEqual([]);
    expect(await blockIds(w, 't')).toEqual([id(1)]);
    expect(await metric(w.metrics, 'cortex_compactor_block_cleanup_failures_total')).toBe(1);
  });

  it('only cleans owned tenants and forgets the series of tenants it lost', async () => {
    let owned = new Set(['a', 'b']);
    const w = world(
      {},
      {
        isOwned: (t) => {
          if (t === 'broken') throw new Error('ring says no');
          return owned.has(t);
        },
      },
    );
    for (const t of ['a', 'b', 'c', 'broken']) await uploadTestBlock(w.inner, t, id(1));
    await w.cleaner.runCleanup(signal(), true);
    expect(await w.inner.exists(bucketIndexPath('c'))).toBe(false);
    expect(await w.inner.exists(bucketIndexPath('broken'))).toBe(false);
    expect(w.logger.find('unable to check if user is owned', 'warn')).toHaveLength(1);
    owned = new Set(['a']);
    await w.cleaner.runCleanup(signal(), false);
    expect(await metric(w.metrics, 'cortex_bucket_blocks_count', { user: 'a' })).toBe(1);
    expect(await metric(w.metrics, 'cortex_bucket_blocks_count', { user: 'b' })).toBeUndefined();
  });

  it('an aborted run stops without counting a failure or writing a status', async () => {
    const w = world();
    await uploadTestBlock(w.inner, 't', id(1));
    const ac = new AbortController();
    ac.abort();
    expect(await w.cleaner.runCleanup(ac.signal, true)).toBeUndefined();
    expect(await w.inner.exists(bucketIndexSyncStatusPath('t'))).toBe(false);
    expect(
      await metric(w.metrics, 'cortex_compactor_block_cleanup_failed_total', {
        user_status: 'active',
      }),
    ).toBeUndefined();
  });
});

describe('BlocksCleaner, tenants marked for deletion', () => {
  it('deletes every block, the index and the status, then sets finished_time once', async () => {
    const w = world();
    await uploadTestBlock(w.inner, 't', id(1));
    await uploadTestBlock(w.inner, 't', id(2), { partial: true });
    await uploadTestBlock(w.inner, 'keep', id(1));
    await w.cleaner.runCleanup(signal(), true);
    await writeTenantDeletionMark(w.inner, 't', { deletion_time: T0 / 1000 });
    await w.clock.advance(60_000);
    const result = await w.cleaner.runCleanup(signal(), false);
    expect(result?.deleted).toEqual({ tenants: ['t'], failed: [] });
    expect(await w.inner.list('t/', { recursive: true })).toEqual([]);
    expect(await readTenantDeletionMark(w.inner, 't')).toEqual({
      deletion_time: T0 / 1000,
      finished_time: T0 / 1000 + 60,
    });
    expect(await blockIds(w, 'keep')).toEqual([id(1)]);
    expect(await metric(w.metrics, 'cortex_bucket_blocks_count', { user: 't' })).toBeUndefined();
    await w.clock.advance(60_000);
    await w.cleaner.runCleanup(signal(), false);
    expect((await readTenantDeletionMark(w.inner, 't'))?.finished_time).toBe(T0 / 1000 + 60);
  });

  it('reports blocks it could not delete and fails the tenant', async () => {
    const w = world();
    await uploadTestBlock(w.inner, 't', id(1));
    await writeTenantDeletionMark(w.inner, 't', { deletion_time: 1 });
    w.bucket.failWhen = (c) => c.op === 'delete' && c.name === blockMetaPath('t', id(1));
    const result = await w.cleaner.runCleanup(signal(), true);
    expect(result?.deleted.failed.map((f) => f.item)).toEqual(['t']);
    expect(await metric(w.metrics, 'cortex_bucket_blocks_count', { user: 't' })).toBe(1);
    expect(
      await metric(w.metrics, 'cortex_compactor_block_cleanup_failed_total', {
        user_status: 'deleted',
      }),
    ).toBe(1);
    expect((await readTenantDeletionMark(w.inner, 't'))?.finished_time).toBeUndefined();
  });
});
