import { describe, expect, it } from 'vitest';
import { blockMetaPath, markBlockForDeletion, markBlockForNoCompact } from '../bucket/index.js';
import { testBlockMeta, testUlid, uploadTestBlock } from '../bucket/testing.js';
import { serializeBlockMeta } from '../tsdb/index.js';
import { compactionMetrics } from './compaction_metrics.js';
import { compactionWorld, metric, type CompactionWorld } from './compaction_harness.testing.js';
import { MetaSyncer } from './meta_sync.js';

const MINUTE = 60_000;

function syncer(w: CompactionWorld, consistencyDelayMs = 0): MetaSyncer {
  return new MetaSyncer(
    't',
    { metaSyncConcurrency: 3, consistencyDelayMs },
    { bucket: w.bucket, clock: w.clock, logger: w.logger, metrics: compactionMetrics(w.metrics) },
  );
}

describe('MetaSyncer', () => {
  it('applies the filters in order and reports duplicates and no-compact marks', async () => {
    const w = compactionWorld();
    const old = w.clock.now() - 60 * MINUTE;
    const id = (n: number, at = old): string => testUlid(at, n);
    const upload = async (
      block: string,
      edit: (m: ReturnType<typeof testBlockMeta>) => void = () => {},
    ) => {
      const m = testBlockMeta('t', block);
      m.thanos = {
        ...(m.thanos as NonNullable<typeof m.thanos>),
        labels: { __org_id__: 't', __ingester_id__: 'i-1' },
      };
      edit(m);
      await uploadTestBlock(w.inner, 't', block, { metaText: serializeBlockMeta(m) });
    };
    await upload(id(1));
    await upload(id(2), (m) => (m.compaction = { level: 2, sources: [id(1), id(9)] }));
    await upload(id(3));
    await upload(id(4));
    await upload(id(5, w.clock.now() - MINUTE)); // too fresh
    await upload(id(6, w.clock.now() - MINUTE), (m) => {
      (m.thanos as { source: string }).source = 'compactor'; // fresh, but a compactor's
      m.compaction = { level: 2, sources: [id(6, w.clock.now() - MINUTE), id(10)] };
    });
    await uploadTestBlock(w.inner, 't', id(7), { partial: true });
    await uploadTestBlock(w.inner, 't', id(8), { metaText: '{"version": 1, "ulid": ' });
    await markBlockForDeletion(w.inner, 't', id(3), w.clock, 'retention');
    await markBlockForNoCompact(w.inner, 't', id(4), w.clock, 'manual', '');

    const s = syncer(w, 30 * MINUTE);
    const synced = await s.sync();
    expect([...synced.metas.keys()].sort()).toEqual(
      [id(2), id(4), id(6, w.clock.now() - MINUTE)].sort(),
    );
    expect(synced.duplicates).toEqual([id(1)]);
    expect([...synced.noCompact.keys()]).toEqual([id(4)]);
    for (const m of synced.metas.values()) expect(m.thanos?.labels).toEqual({ __org_id__: 't' });
    const synced_ = (state: string) => metric(w.metrics, 'cortex_compactor_meta_synced', { state });
    expect(await synced_('loaded')).toBe(3);
    expect(await synced_('too-fresh')).toBe(1);
    expect(await synced_('no-meta-json')).toBe(1);
    expect(await synced_('corrupted-meta-json')).toBe(1);
    expect(await synced_('marked-for-deletion')).toBe(1);
    expect(await synced_('duplicate')).toBe(1);
    expect(await synced_('marked-for-no-compact')).toBe(1);
    expect(
      await metric(w.metrics, 'strata_compactor_corrupted_block_metas_total', { user: 't' }),
    ).toBe(1);
    expect(w.logger.find('corrupted meta.json', 'error')).toHaveLength(1);

    await s.garbageCollect(synced.duplicates);
    expect(await metric(w.metrics, 'cortex_compactor_garbage_collection_total')).toBe(1);
    expect(await metric(w.metrics, 'cortex_compactor_garbage_collected_blocks_total')).toBe(1);
    expect(await metric(w.metrics, 'cortex_compactor_garbage_collection_failures_total')).toBe(0);
    expect(await w.inner.exists(`t/${id(1)}/deletion-mark.json`)).toBe(true);
    expect(await w.inner.exists(`t/markers/${id(1)}-deletion-mark.json`)).toBe(true);
    expect(
      await metric(w.metrics, 'cortex_compactor_blocks_marked_for_deletion_total', {
        reason: 'compaction',
      }),
    ).toBe(1);
  });

  it('fails the sync, rather than plan on a partial view, when a meta.json cannot be read', async () => {
    const w = compactionWorld();
    const block = testUlid(w.clock.now() - 60 * MINUTE, 1);
    await uploadTestBlock(w.inner, 't', block);
    w.bucket.failWhen = (c) => c.op === 'get' && c.name === blockMetaPath('t', block);
    await expect(syncer(w).sync()).rejects.toThrow(
      /reading 1 meta.json file\(s\) of tenant t failed/,
    );
    expect(await metric(w.metrics, 'cortex_compactor_meta_sync_failures_total')).toBe(1);
  });
});
