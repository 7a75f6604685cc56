// The acceptance's bad input, all in one bucket beside a healthy tenant, through the whole
// compactor (the cleanup pass while starting, then a compaction run): a block overlapping its
// replicas with a different value at one timestamp, a block missing a chunk file, a garbage
// meta.json, and deletion marks of blocks that no longer exist. Each gets a counted, logged
// outcome with that block skipped or marked, and every tenant is still compacted.
import { describe, expect, it } from 'vitest';
import { DiskFileSystem } from '../../sim/testing/index.js';
import {
  blockChunkPath,
  blockMetaPath,
  deletionMarkPath,
  globalDeletionMarkPath,
  markBlockForDeletion,
  readNoCompactMark,
} from '../bucket/index.js';
import { testUlid } from '../bucket/testing.js';
import { createSeededRandom, newMetricsRegistry } from '../runtime/index.js';
import { CapturingLogger } from '../runtime/testing/index.js';
import type { BlockMeta, BlockSeriesInput } from '../tsdb/index.js';
import {
  DAY0,
  DEFAULT_COMPACTION,
  HOUR,
  compactionWorld,
  liveBlocks,
  metric,
  readBucketBlock,
  shipBlock,
  signal,
  testSeries,
  type CompactionWorld,
} from './compaction_harness.testing.js';
import { Compactor } from './compactor.js';

const RANGE = { minTime: DAY0, maxTime: DAY0 + 2 * HOUR };

async function replicas(w: CompactionWorld, tenant: string, n = 3): Promise<BlockMeta[]> {
  const out: BlockMeta[] = [];
  for (let i = 0; i < n; i++) {
    out.push(
      await shipBlock(
        w,
        tenant,
        `ingester-${i}`,
        testSeries(5, RANGE.minTime, RANGE.maxTime),
        RANGE,
      ),
    );
  }
  return out;
}

function compactorFor(w: CompactionWorld) {
  const metrics = newMetricsRegistry();
  const logger = new CapturingLogger();
  const c = new Compactor(
    {
      dataDir: '/data',
      cleanupIntervalMs: 15 * 60_000,
      cleanupConcurrency: 4,
      deletionDelayMs: 12 * HOUR,
      shardingEnabled: false,
      ring: {
        instanceId: 'c',
        instanceAddr: 'c:9095',
        heartbeatPeriodMs: 5_000,
        heartbeatTimeoutMs: 60_000,
        numTokens: 512,
      },
      compaction: DEFAULT_COMPACTION,
    },
    {
      bucket: w.bucket,
      clock: w.clock,
      random: createSeededRandom('bad-input'),
      logger,
      metrics,
      fs: new DiskFileSystem(),
    },
  );
  return { c, metrics, logger };
}

/** The one level-2 block of a tenant, and that it was made from `sources`. */
async function compactedFrom(
  w: CompactionWorld,
  tenant: string,
  sources: readonly BlockMeta[],
): Promise<BlockMeta> {
  const compacted = (await liveBlocks(w, tenant)).filter((b) => b.compaction.level === 2);
  expect(compacted).toHaveLength(1);
  const out = compacted[0] as BlockMeta;
  expect(out.compaction.sources).toEqual(sources.map((s) => s.ulid).sort());
  return out;
}

describe('compaction: bad input', () => {
  it('counts, logs and steps around each bad block; every tenant is compacted', async () => {
    const w = compactionWorld('bad-input');

    // 1. Two replicas and a later block over their second hour; one of its samples differs.
    const agreeing = await replicas(w, 'conflict', 2);
    const lateInput: BlockSeriesInput[] = testSeries(5, DAY0 + HOUR, RANGE.maxTime);
    const differing = lateInput[0] as BlockSeriesInput;
    const values = Float64Array.from(differing.values);
    const original = values[0] as number;
    values[0] = original + 1000;
    lateInput[0] = { ...differing, values };
    const late = await shipBlock(w, 'conflict', 'ingester-2', lateInput, {
      minTime: DAY0 + HOUR,
      maxTime: RANGE.maxTime,
    });

    // 2. A replica whose only chunk segment is gone.
    const missing = await replicas(w, 'missing-chunk');
    await w.inner.delete(blockChunkPath('missing-chunk', (missing[1] as BlockMeta).ulid, 1));

    // 3. A replica whose meta.json is garbage.
    const garbage = await replicas(w, 'garbage-meta');
    const garbled = garbage[0] as BlockMeta;
    await w.inner.upload(
      blockMetaPath('garbage-meta', garbled.ulid),
      new TextEncoder().encode('{"ulid": nonsense'),
    );

    // 4. Deletion marks of blocks that are gone: a global mark alone, and a block's own mark
    // left in an otherwise empty block directory.
    const orphans = await replicas(w, 'orphan-marks');
    const goneGlobal = testUlid(DAY0, 1);
    const goneLocal = testUlid(DAY0, 2);
    for (const id of [goneGlobal, goneLocal]) {
      await markBlockForDeletion(w.inner, 'orphan-marks', id, w.clock, 'manual');
    }
    await w.inner.delete(deletionMarkPath('orphan-marks', goneGlobal));
    await w.inner.delete(globalDeletionMarkPath('orphan-marks', goneLocal));

    const good = await replicas(w, 'good');

    const { c, metrics, logger } = compactorFor(w);
    await c.start(signal());
    const run = await c.runCompaction(signal());
    expect(run?.failed).toEqual([]);
    expect(run?.skipped).toEqual([]);
    expect([...(run?.succeeded ?? [])].sort()).toEqual([
      'conflict',
      'garbage-meta',
      'good',
      'missing-chunk',
      'orphan-marks',
    ]);
    await compactedFrom(w, 'good', good);

    // 1. Merged; of the two values at that timestamp the earliest block's (by minTime) stays.
    const merged = await compactedFrom(w, 'conflict', [...agreeing, late]);
    const samples = await readBucketBlock(w, 'conflict', merged);
    expect(samples).toEqual(await readBucketBlock(w, 'conflict', agreeing[0] as BlockMeta));
    expect(samples).toContain(`${differing.labels.toString()} ${DAY0 + HOUR} ${original}`);
    expect(
      await metric(metrics, 'strata_compactor_vertical_compaction_conflicting_samples_total', {
        user: 'conflict',
      }),
    ).toBe(1);
    expect(
      await metric(metrics, 'strata_compactor_vertical_compactions_with_conflicts_total', {
        user: 'conflict',
      }),
    ).toBe(1);
    const conflictLogs = logger.find('hold different values at the same timestamp', 'warn');
    expect(conflictLogs).toHaveLength(1);
    expect(conflictLogs[0]?.fields).toMatchObject({
      user: 'conflict',
      conflicting_samples: 1,
      conflicting_series: 1,
      example_series: differing.labels.toString(),
      example_timestamp: DAY0 + HOUR,
      kept_value: original,
      kept_block: (agreeing[0] as BlockMeta).ulid,
      dropped_value: original + 1000,
      dropped_block: late.ulid,
    });

    // 2. Marked no-compact and left in place; its replicas compacted without it.
    const bad = missing[1] as BlockMeta;
    expect((await readNoCompactMark(w.inner, 'missing-chunk', bad.ulid))?.reason).toBe(
      'block-corrupted',
    );
    await compactedFrom(
      w,
      'missing-chunk',
      missing.filter((m) => m !== bad),
    );
    expect(
      await metric(metrics, 'strata_compactor_corrupted_blocks_total', {
        user: 'missing-chunk',
        reason: 'corrupted',
      }),
    ).toBe(1);
    expect(await metric(metrics, 'cortex_compactor_blocks_marked_for_no_compaction_total')).toBe(1);
    expect(logger.find('source block failed verification', 'error')).toHaveLength(1);

    // 3. Skipped by the cleaner and by compaction, each counting and logging it; not marked.
    await compactedFrom(w, 'garbage-meta', garbage.slice(1));
    expect(await w.inner.exists(blockMetaPath('garbage-meta', garbled.ulid))).toBe(true);
    expect(await w.inner.exists(deletionMarkPath('garbage-meta', garbled.ulid))).toBe(false);
    expect(
      await metric(metrics, 'strata_compactor_corrupted_block_metas_total', {
        user: 'garbage-meta',
      }),
    ).toBeGreaterThanOrEqual(1);
    expect(logger.find('corrupted meta.json', 'error').length).toBeGreaterThanOrEqual(1);
    expect(
      await metric(metrics, 'strata_bucket_index_corrupted_block_metas_total', {
        user: 'garbage-meta',
      }),
    ).toBe(1);

    // 4. The cleaner removed the orphan global mark and the marked leftover; compaction went on.
    await compactedFrom(w, 'orphan-marks', orphans);
    expect(await w.inner.exists(globalDeletionMarkPath('orphan-marks', goneGlobal))).toBe(false);
    expect(await metric(metrics, 'strata_compactor_orphan_deletion_marks_removed_total')).toBe(1);
    expect(await w.inner.list(`orphan-marks/${goneLocal}/`)).toEqual([]);

    await c.stop();
  });
});
