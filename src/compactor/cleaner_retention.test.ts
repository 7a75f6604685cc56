import { describe, expect, it } from 'vitest';
import {
  blockMetaPath,
  deletionMarkPath,
  globalDeletionMarkPath,
  markBlockForDeletion,
  readBucketIndex,
  readDeletionMark,
} from '../bucket/index.js';
import { uploadTestBlock } from '../bucket/testing.js';
import { defaultConfig } from '../config/index.js';
import { Overrides, parseRuntimeConfig, type RuntimeConfig } from '../overrides/index.js';
import { HOUR, T0, blockIds, id, metric, signal, world } from './cleaner_harness.testing.js';

const DAY = 24 * HOUR;

/** Overrides as the compactor wires them: defaults from the config, tenants from the YAML. */
function overridesFrom(
  yaml: string,
  defaultRetentionMs = 0,
): {
  overrides: Overrides;
  reload: (yaml: string) => void;
} {
  const limits = {
    ...defaultConfig().limits,
    compactor_blocks_retention_period: defaultRetentionMs,
  };
  let current: RuntimeConfig = parseRuntimeConfig(yaml);
  return {
    overrides: new Overrides(limits, { current: () => current }),
    reload: (text) => {
      current = parseRuntimeConfig(text);
    },
  };
}

async function marked(w: ReturnType<typeof world>, tenant: string): Promise<string[]> {
  return (await readBucketIndex(w.inner, tenant)).block_deletion_marks.map((m) => m.block_id);
}

describe('BlocksCleaner retention (compactor_blocks_retention_period)', () => {
  it('marks, per tenant, the blocks that ended before now - retention; 0 keeps everything', async () => {
    const { overrides } = overridesFrom(
      'overrides:\n  short:\n    compactor_blocks_retention_period: 1d\n  off:\n    compactor_blocks_retention_period: 0s\n',
      2 * DAY,
    );
    const w = world({}, { retentionPeriodMs: (t) => overrides.compactorBlocksRetentionPeriod(t) });
    for (const tenant of ['short', 'off', 'default']) {
      await uploadTestBlock(w.inner, tenant, id(1), { minTime: 0, maxTime: T0 - 3 * DAY });
      await uploadTestBlock(w.inner, tenant, id(2), { minTime: 0, maxTime: T0 - DAY - 1_000 });
      await uploadTestBlock(w.inner, tenant, id(3), { minTime: 0, maxTime: T0 - DAY + 1_000 });
    }
    // Retention needs an index to read (Cortex): the first cleanup builds it.
    await w.cleaner.runCleanup(signal(), true);
    expect(await marked(w, 'short')).toEqual([]);
    await w.cleaner.runCleanup(signal(), false);
    expect(await marked(w, 'short')).toEqual([id(1), id(2)]);
    expect(await marked(w, 'off')).toEqual([]);
    expect(await marked(w, 'default')).toEqual([id(1)]);
    expect(await readDeletionMark(w.inner, 'short', id(1))).toMatchObject({
      id: id(1),
      deletion_time: T0 / 1000,
      details: 'block exceeding retention of 24h0m0s',
    });
    expect(await w.inner.exists(globalDeletionMarkPath('short', id(2)))).toBe(true);
    expect(
      await metric(w.metrics, 'cortex_compactor_blocks_marked_for_deletion_total', {
        user: 'short',
        reason: 'retention',
      }),
    ).toBe(2);
    expect(
      await metric(w.metrics, 'cortex_compactor_blocks_marked_for_deletion_total', {
        user: 'off',
      }),
    ).toBeUndefined();
  });

  it('deletes the blocks it marked once the deletion delay has passed, like any marked block', async () => {
    const w = world({ deletionDelayMs: 12 * HOUR }, { retentionPeriodMs: () => DAY });
    await uploadTestBlock(w.inner, 't', id(1), { minTime: 0, maxTime: T0 - 2 * DAY });
    await uploadTestBlock(w.inner, 't', id(2), { minTime: 0, maxTime: T0 });
    await w.cleaner.runCleanup(signal(), true);
    await w.cleaner.runCleanup(signal(), false);
    expect(await marked(w, 't')).toEqual([id(1)]);
    await w.clock.advance(12 * HOUR);
    await w.cleaner.runCleanup(signal(), false);
    expect(await w.inner.exists(blockMetaPath('t', id(1)))).toBe(true);
    await w.clock.advance(1_000);
    await w.cleaner.runCleanup(signal(), false);
    expect(await w.inner.list(`t/${id(1)}/`, { recursive: true })).toEqual([]);
    expect(await w.inner.exists(globalDeletionMarkPath('t', id(1)))).toBe(false);
    expect(await blockIds(w, 't')).toEqual([id(2)]);
    expect(await marked(w, 't')).toEqual([]);
    expect(await metric(w.metrics, 'cortex_compactor_blocks_cleaned_total')).toBe(1);
  });

  it('compares whole seconds of max_time: a block ending exactly at the threshold stays', async () => {
    const w = world({}, { retentionPeriodMs: () => DAY });
    await uploadTestBlock(w.inner, 't', id(1), { minTime: 0, maxTime: T0 - DAY });
    await uploadTestBlock(w.inner, 't', id(2), { minTime: 0, maxTime: T0 - DAY - 1 });
    await w.cleaner.runCleanup(signal(), true);
    await w.cleaner.runCleanup(signal(), false);
    expect(await marked(w, 't')).toEqual([id(2)]);
  });

  it('leaves blocks already marked alone (no second mark, no count)', async () => {
    const w = world({}, { retentionPeriodMs: () => DAY });
    await uploadTestBlock(w.inner, 't', id(1), { minTime: 0, maxTime: T0 - 2 * DAY });
    await w.cleaner.runCleanup(signal(), true);
    await markBlockForDeletion(w.inner, 't', id(1), w.clock, 'compacted');
    await w.clock.advance(60_000);
    await w.cleaner.runCleanup(signal(), false);
    await w.cleaner.runCleanup(signal(), false);
    expect((await readDeletionMark(w.inner, 't', id(1)))?.details).toBe('compacted');
    expect(
      await metric(w.metrics, 'cortex_compactor_blocks_marked_for_deletion_total', { user: 't' }),
    ).toBeUndefined();
  });

  it('follows a runtime-config reload at the next cleanup', async () => {
    const { overrides, reload } = overridesFrom('overrides: {}\n');
    const w = world({}, { retentionPeriodMs: (t) => overrides.compactorBlocksRetentionPeriod(t) });
    await uploadTestBlock(w.inner, 't', id(1), { minTime: 0, maxTime: T0 - 10 * DAY });
    await w.cleaner.runCleanup(signal(), true);
    await w.cleaner.runCleanup(signal(), false);
    expect(await marked(w, 't')).toEqual([]);
    reload('overrides:\n  t:\n    compactor_blocks_retention_period: 168h\n');
    await w.cleaner.runCleanup(signal(), false);
    expect(await marked(w, 't')).toEqual([id(1)]);
  });

  it('a failure to mark one block is logged and the tenant goes on', async () => {
    const w = world({}, { retentionPeriodMs: () => DAY });
    await uploadTestBlock(w.inner, 't', id(1), { minTime: 0, maxTime: T0 - 2 * DAY });
    await uploadTestBlock(w.inner, 't', id(2), { minTime: 0, maxTime: T0 - 2 * DAY });
    await w.cleaner.runCleanup(signal(), true);
    w.bucket.failWhen = (c) => c.op === 'upload' && c.name === globalDeletionMarkPath('t', id(1));
    const result = await w.cleaner.runCleanup(signal(), false);
    expect(result?.active.failed).toEqual([]);
    expect(await marked(w, 't')).toEqual([id(2)]);
    expect(w.logger.find('failed to mark block for deletion', 'warn')[0]?.fields).toMatchObject({
      user: 't',
      block: id(1),
    });
  });
});

describe('BlocksCleaner, deletion marks without their block (bad input)', () => {
  it('removes a global mark whose block is gone: counted, logged, not fatal', async () => {
    const w = world();
    await uploadTestBlock(w.inner, 't', id(1));
    await w.inner.upload(
      globalDeletionMarkPath('t', id(9)),
      new TextEncoder().encode(`{"id":"${id(9)}","version":1,"deletion_time":1}`),
    );
    const result = await w.cleaner.runCleanup(signal(), true);
    expect(result?.active.failed).toEqual([]);
    expect(await w.inner.exists(globalDeletionMarkPath('t', id(9)))).toBe(false);
    expect(await blockIds(w, 't')).toEqual([id(1)]);
    expect(await marked(w, 't')).toEqual([]);
    expect(await metric(w.metrics, 'strata_compactor_orphan_deletion_marks_removed_total')).toBe(1);
    expect(
      w.logger.find('deleted deletion mark of a block no longer in the bucket', 'info')[0]?.fields,
    ).toMatchObject({ user: 't', block: id(9) });
  });

  it('deletes a block directory holding nothing but its deletion mark', async () => {
    const w = world();
    await w.inner.upload(
      deletionMarkPath('t', id(2)),
      new TextEncoder().encode(`{"id":"${id(2)}","version":1,"deletion_time":1}`),
    );
    await uploadTestBlock(w.inner, 't', id(1));
    const result = await w.cleaner.runCleanup(signal(), true);
    expect(result?.active.failed).toEqual([]);
    expect(await w.inner.list(`t/${id(2)}/`, { recursive: true })).toEqual([]);
    expect(await w.inner.exists(globalDeletionMarkPath('t', id(2)))).toBe(false);
    expect(await metric(w.metrics, 'cortex_compactor_blocks_cleaned_total')).toBe(1);
  });
});
