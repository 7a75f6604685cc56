import { describe, expect, it } from 'vitest';
import {
  bucketIndexPath,
  bucketIndexSyncStatusPath,
  legacyTenantDeletionMarkPath,
  markBlockForDeletion,
  markBlockForNoCompact,
  readBucketIndex,
  readTenantDeletionMark,
  scanTenants,
  tenantDeletionMarkPath,
  writeTenantDeletionMark,
} from '../bucket/index.js';
import { uploadTestBlock } from '../bucket/testing.js';
import { HOUR, T0, id, metric, signal, world, type World } from './cleaner_harness.testing.js';

const text = (s: string): Uint8Array => new TextEncoder().encode(s);

/** Tenant `t` with blocks of every kind, leftovers of Thanos tools, and tenant `keep`. */
async function populated(w: World): Promise<void> {
  await uploadTestBlock(w.inner, 't', id(1));
  await uploadTestBlock(w.inner, 't', id(2));
  await markBlockForDeletion(w.inner, 't', id(2), w.clock, 'compacted');
  await uploadTestBlock(w.inner, 't', id(3), { partial: true });
  await uploadTestBlock(w.inner, 't', id(4));
  await markBlockForNoCompact(w.inner, 't', id(4), w.clock, 'manual', '');
  await w.inner.upload(`t/debug/metas/${id(1)}.json`, text('{}'));
  await w.inner.upload('t/markers/cleaner-visit-marker.json', text('{}'));
  await uploadTestBlock(w.inner, 'keep', id(1));
  await w.cleaner.runCleanup(signal(), true);
}

async function objectsOf(w: World, tenant: string): Promise<string[]> {
  const all = await w.inner.list('', { recursive: true });
  return all.filter((o) => o.startsWith(`${tenant}/`) || o.startsWith(`__markers__/${tenant}/`));
}

describe('BlocksCleaner, tenant deletion', () => {
  it('deletes blocks, index and status, sets finished_time, then after the cleanup delay removes everything else', async () => {
    const w = world({ tenantCleanupDelayMs: 6 * HOUR });
    await populated(w);
    const keepBefore = await objectsOf(w, 'keep');
    await writeTenantDeletionMark(w.inner, 't', { deletion_time: T0 / 1000 });
    await w.clock.advance(60_000);

    // Pass 1: blocks and the index go, the mark records when.
    expect(await w.cleaner.deleteTenant('t')).toBe('blocks-deleted');
    expect(await objectsOf(w, 't')).toEqual([
      '__markers__/t/tenant-deletion-mark.json',
      `t/debug/metas/${id(1)}.json`,
      't/markers/cleaner-visit-marker.json',
    ]);
    expect(await readTenantDeletionMark(w.inner, 't')).toEqual({
      deletion_time: T0 / 1000,
      finished_time: T0 / 1000 + 60,
    });
    expect(await metric(w.metrics, 'cortex_compactor_blocks_cleaned_total')).toBe(4);

    // Before the delay: nothing more happens, finished_time stays.
    await w.clock.advance(6 * HOUR - 1_000);
    expect(await w.cleaner.deleteTenant('t')).toBe('waiting');
    expect(await objectsOf(w, 't')).toHaveLength(3);
    expect((await readTenantDeletionMark(w.inner, 't'))?.finished_time).toBe(T0 / 1000 + 60);

    // Delay reached: debug/metas, markers/ and the mark itself go; nothing of t is left.
    await w.clock.advance(1_000);
    const result = await w.cleaner.runCleanup(signal(), false);
    expect(result?.deleted).toEqual({ tenants: ['t'], failed: [] });
    expect(await objectsOf(w, 't')).toEqual([]);
    expect(await scanTenants(w.inner)).toEqual({ active: ['keep'], deleting: [] });
    expect(w.logger.find('deleted marker files for tenant marked for deletion')).toHaveLength(1);

    // The other tenant is untouched.
    expect(await objectsOf(w, 'keep')).toEqual(keepBefore);
    expect((await readBucketIndex(w.inner, 'keep')).blocks).toHaveLength(1);
    for (const gauge of [
      'cortex_bucket_blocks_count',
      'cortex_bucket_blocks_marked_for_deletion_count',
      'cortex_bucket_blocks_marked_for_no_compaction_count',
      'cortex_bucket_blocks_partials_count',
      'cortex_bucket_index_last_successful_update_timestamp_seconds',
    ]) {
      expect(await metric(w.metrics, gauge, { user: 't' }), gauge).toBeUndefined();
      expect(await metric(w.metrics, gauge, { user: 'keep' }), gauge).toBeDefined();
    }

    // The next cleanup no longer knows the tenant.
    const next = await w.cleaner.runCleanup(signal(), false);
    expect(next?.deleted.tenants).toEqual([]);
    expect(next?.active.tenants).toEqual(['keep']);
  });

  it('deletes the index and sync status before any block', async () => {
    const w = world();
    await populated(w);
    expect(await w.inner.exists(bucketIndexPath('t'))).toBe(true);
    expect(await w.inner.exists(bucketIndexSyncStatusPath('t'))).toBe(true);
    await writeTenantDeletionMark(w.inner, 't', { deletion_time: T0 / 1000 });
    w.bucket.calls.length = 0;
    await w.cleaner.deleteTenant('t');
    const deletes = w.bucket.calls.filter((c) => c.op === 'delete').map((c) => c.name);
    expect(deletes.slice(0, 2)).toEqual([bucketIndexPath('t'), bucketIndexSyncStatusPath('t')]);
    expect(await w.inner.exists(bucketIndexPath('t'))).toBe(false);
  });

  it('a block shipped after finished_time is deleted and restarts the cleanup delay', async () => {
    const w = world({ tenantCleanupDelayMs: 6 * HOUR });
    await uploadTestBlock(w.inner, 't', id(1));
    await writeTenantDeletionMark(w.inner, 't', { deletion_time: T0 / 1000 });
    await w.cleaner.deleteTenant('t');
    await w.clock.advance(5 * HOUR);
    // An ingester that had not seen the mark yet ships one more block.
    await uploadTestBlock(w.inner, 't', id(2));
    expect(await w.cleaner.deleteTenant('t')).toBe('blocks-deleted');
    expect((await readTenantDeletionMark(w.inner, 't'))?.finished_time).toBe(T0 / 1000 + 5 * 3600);
    await w.clock.advance(2 * HOUR);
    expect(await w.cleaner.deleteTenant('t')).toBe('waiting');
    await w.clock.advance(4 * HOUR);
    expect(await w.cleaner.deleteTenant('t')).toBe('finished');
    expect(await objectsOf(w, 't')).toEqual([]);
  });

  it('with a cleanup delay of 0 finishes at the pass after the blocks went', async () => {
    const w = world({ tenantCleanupDelayMs: 0 });
    await uploadTestBlock(w.inner, 't', id(1));
    await writeTenantDeletionMark(w.inner, 't', { deletion_time: T0 / 1000 });
    expect(await w.cleaner.deleteTenant('t')).toBe('blocks-deleted');
    expect(await w.cleaner.deleteTenant('t')).toBe('finished');
    expect(await w.inner.list('', { recursive: true })).toEqual([]);
  });

  it('removes a legacy mark (under the tenant’s markers/) as well', async () => {
    const w = world({ tenantCleanupDelayMs: 0 });
    await uploadTestBlock(w.inner, 't', id(1));
    await w.inner.upload(legacyTenantDeletionMarkPath('t'), text('{"deletion_time":1}'));
    expect((await scanTenants(w.inner)).deleting).toEqual(['t']);
    await w.cleaner.runCleanup(signal(), true);
    await w.cleaner.runCleanup(signal(), false);
    expect(await w.inner.list('', { recursive: true })).toEqual([]);
  });

  it('a tenant with nothing but its mark left gets finished_time, then loses the mark', async () => {
    const w = world({ tenantCleanupDelayMs: HOUR });
    await writeTenantDeletionMark(w.inner, 't', { deletion_time: 1 });
    await w.cleaner.runCleanup(signal(), true);
    expect(await readTenantDeletionMark(w.inner, 't')).toEqual({
      deletion_time: 1,
      finished_time: T0 / 1000,
    });
    await w.clock.advance(HOUR);
    await w.cleaner.runCleanup(signal(), false);
    expect(await w.inner.exists(tenantDeletionMarkPath('t'))).toBe(false);
  });

  it('a mark gone from under the pass ends it without failing the tenant', async () => {
    const w = world();
    await uploadTestBlock(w.inner, 't', id(1));
    expect(await w.cleaner.deleteTenant('t')).toBe('mark-gone');
    expect(w.logger.find('cannot find tenant deletion mark anymore', 'warn')).toHaveLength(1);
  });

  it('a failure in the final cleanup fails the tenant and the next pass finishes it', async () => {
    const w = world({ tenantCleanupDelayMs: 0 });
    await uploadTestBlock(w.inner, 't', id(1));
    await w.inner.upload('t/markers/cleaner-visit-marker.json', text('{}'));
    await writeTenantDeletionMark(w.inner, 't', { deletion_time: 1 });
    await w.cleaner.runCleanup(signal(), true);
    w.bucket.failWhen = (c) =>
      c.op === 'delete' && c.name === 't/markers/cleaner-visit-marker.json';
    const failed = await w.cleaner.runCleanup(signal(), false);
    expect(failed?.deleted.failed.map((f) => f.item)).toEqual(['t']);
    expect(await w.inner.exists(tenantDeletionMarkPath('t'))).toBe(true);
    w.bucket.failWhen = undefined;
    await w.cleaner.runCleanup(signal(), false);
    expect(await w.inner.list('', { recursive: true })).toEqual([]);
  });
});
