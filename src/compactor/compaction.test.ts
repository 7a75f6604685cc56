import { describe, expect, it } from 'vitest';
import {
  blockChunkPath,
  blockIndexPath,
  blockMetaPath,
  deletionMarkPath,
  globalDeletionMarkPath,
  readDeletionMark,
  uploadBlock,
} from '../bucket/index.js';
import { compactBlocksStreaming, type BlockMeta } from '../tsdb/index.js';
import { downloadBlocks } from './block_download.js';
import {
  DAY,
  DAY0,
  HOUR,
  compactionWorld,
  liveBlocks,
  loopFor,
  metric,
  readBucketBlock,
  settle,
  shipBlock,
  signal,
  testSeries,
  type CompactionWorld,
} from './compaction_harness.testing.js';

/** Three ingesters ship the same samples for [from, from + 2h). */
async function replicas(w: CompactionWorld, tenant: string, from: number): Promise<BlockMeta[]> {
  const out: BlockMeta[] = [];
  for (const ing of ['ingester-0', 'ingester-1', 'ingester-2']) {
    const input = testSeries(10, from, from + 2 * HOUR);
    out.push(await shipBlock(w, tenant, ing, input, { minTime: from, maxTime: from + 2 * HOUR }));
  }
  return out;
}

describe('compaction: vertical', () => {
  it('merges three replicas into one block holding each sample once, then marks the sources', async () => {
    const w = compactionWorld();
    const sources = await replicas(w, 'team-a', DAY0);
    w.bucket.calls.length = 0;
    const result = await loopFor(w).runOnce(signal());
    expect(result).toEqual({ succeeded: ['team-a'], failed: [], skipped: [], interrupted: false });

    const live = await liveBlocks(w, 'team-a');
    expect(live).toHaveLength(1);
    const out = live[0] as BlockMeta;
    const ids = sources.map((s) => s.ulid).sort();
    expect(out.compaction.level).toBe(2);
    expect(out.compaction.sources).toEqual(ids);
    expect(out.compaction.parents?.map((p) => p.ulid).sort()).toEqual(ids);
    expect([out.minTime, out.maxTime]).toEqual([DAY0, DAY0 + 2 * HOUR]);
    expect(out.thanos?.labels).toEqual({ __org_id__: 'team-a' });
    expect(out.thanos?.source).toBe('compactor');
    expect(out.stats.numSamples).toBe((sources[0] as BlockMeta).stats.numSamples);
    expect(out.stats.numSeries).toBe(10);
    expect(out.thanos?.index_stats?.series_max_size).toBeGreaterThan(0);
    expect(out.thanos?.index_stats?.chunk_max_size).toBeGreaterThan(0);
    const samples = await readBucketBlock(w, 'team-a', out);
    expect(samples).toHaveLength(out.stats.numSamples);
    expect(new Set(samples).size).toBe(samples.length);
    expect(samples).toEqual(await readBucketBlock(w, 'team-a', sources[0] as BlockMeta));

    // The output's files, meta.json last; only then the sources' deletion marks.
    const uploads = w.bucket.names('upload');
    const metaAt = uploads.indexOf(blockMetaPath('team-a', out.ulid));
    expect(uploads.indexOf(blockIndexPath('team-a', out.ulid))).toBeLessThan(metaAt);
    expect(uploads.indexOf(blockChunkPath('team-a', out.ulid, 1))).toBeLessThan(metaAt);
    for (const s of sources) {
      const markAt = uploads.indexOf(globalDeletionMarkPath('team-a', s.ulid));
      expect(markAt).toBeGreaterThan(metaAt);
      expect(uploads.indexOf(deletionMarkPath('team-a', s.ulid))).toBeGreaterThan(markAt);
      const mark = await readDeletionMark(w.inner, 'team-a', s.ulid);
      expect(mark?.details).toBe('source of compacted block');
    }
    expect(
      await metric(w.metrics, 'cortex_compactor_blocks_marked_for_deletion_total', {
        user: 'team-a',
        reason: 'compaction',
      }),
    ).toBe(3);
    expect(await metric(w.metrics, 'cortex_compactor_group_vertical_compactions_total')).toBe(1);
    expect(await metric(w.metrics, 'cortex_compactor_group_compactions_total')).toBe(1);
    expect(await metric(w.metrics, 'cortex_compactor_runs_completed_total')).toBe(1);
    expect(await metric(w.metrics, 'cortex_compactor_last_successful_run_timestamp_seconds')).toBe(
      w.clock.now() / 1000,
    );
    // Nothing of the work is left on disk.
    expect(await w.fs.exists('/data/compact/team-a')).toBe(false);
  });

  it('a second run finds nothing to do', async () => {
    const w = compactionWorld();
    await replicas(w, 'team-a', DAY0);
    const loop = loopFor(w);
    await loop.runOnce(signal());
    w.bucket.calls.length = 0;
    await loop.runOnce(signal());
    expect(w.bucket.names('upload')).toEqual([]);
  });
});

describe('compaction: horizontal', () => {
  it('compacts aligned 12h ranges, then the 24h range, and leaves the newest block alone', async () => {
    const w = compactionWorld();
    const blocks: BlockMeta[] = [];
    for (let t = DAY0; t <= DAY0 + 24 * HOUR; t += 2 * HOUR) {
      blocks.push(
        await shipBlock(w, 't', 'ingester-0', testSeries(3, t, t + 2 * HOUR, 60_000), {
          minTime: t,
          maxTime: t + 2 * HOUR,
        }),
      );
    }
    await loopFor(w).runOnce(signal());
    const live = await liveBlocks(w, 't');
    expect(live.map((b) => [b.minTime - DAY0, b.maxTime - DAY0, b.compaction.level])).toEqual([
      [0, 24 * HOUR, 3],
      [24 * HOUR, 26 * HOUR, 1],
    ]);
    const day = live[0] as BlockMeta;
    expect(day.compaction.sources).toEqual(
      blocks
        .slice(0, 12)
        .map((b) => b.ulid)
        .sort(),
    );
    expect(day.stats.numSamples).toBe(3 * 24 * 60);
    expect(await metric(w.metrics, 'cortex_compactor_group_vertical_compactions_total')).toBe(0);
    expect(await metric(w.metrics, 'cortex_compactor_group_compactions_total')).toBe(3);
  });

  it('compacts an incomplete range only once it lies before the newest block', async () => {
    const w = compactionWorld();
    const ship = (from: number): Promise<BlockMeta> =>
      shipBlock(w, 't', 'ingester-0', testSeries(2, from, from + 2 * HOUR, 60_000), {
        minTime: from,
        maxTime: from + 2 * HOUR,
      });
    await ship(DAY0);
    await ship(DAY0 + 2 * HOUR);
    await ship(DAY0 + 4 * HOUR);
    const loop = loopFor(w);
    await loop.runOnce(signal());
    // [0h, 6h) is not a full 12h range and a block may still land in it.
    expect(await liveBlocks(w, 't')).toHaveLength(3);
    await ship(DAY0 + 12 * HOUR);
    await ship(DAY0 + 14 * HOUR);
    await loop.runOnce(signal());
    const live = await liveBlocks(w, 't');
    expect(live.map((b) => [b.minTime - DAY0, b.maxTime - DAY0])).toEqual([
      [0, 6 * HOUR],
      [12 * HOUR, 14 * HOUR],
      [14 * HOUR, 16 * HOUR],
    ]);
  });
});

describe('compaction: duplicates', () => {
  it('marks the duplicate output of a second compactor of the same sources for deletion', async () => {
    const w = compactionWorld();
    const sources = await replicas(w, 'team-a', DAY0);
    await loopFor(w).runOnce(signal());
    const [first] = await liveBlocks(w, 'team-a');
    // Another compactor compacted the same sources (a ring change): an identical-sources block.
    await downloadBlocks('team-a', sources, '/other', 2, { bucket: w.inner, fs: w.src });
    const other = await compactBlocksStreaming(
      sources.map((s) => `/other/${s.ulid}`),
      '/other-out',
      { thanos: { labels: { __org_id__: 'team-a' }, source: 'compactor' } },
      { fs: w.src, clock: w.clock, random: w.random.stream('other-compactor') },
    );
    const second = other.meta as BlockMeta;
    await uploadBlock(
      w.inner,
      'team-a',
      `/other-out/${second.ulid}`,
      {
        labels: { __org_id__: 'team-a' },
        source: 'compactor',
      },
      { fs: w.src },
    );
    await loopFor(w).runOnce(signal());
    const ids = [(first as BlockMeta).ulid, second.ulid].sort();
    const live = await liveBlocks(w, 'team-a');
    expect(live.map((b) => b.ulid)).toEqual([ids[0]]);
    const mark = await readDeletionMark(w.inner, 'team-a', ids[1] as string);
    expect(mark?.details).toBe('outdated block');
    expect(await metric(w.metrics, 'cortex_compactor_garbage_collected_blocks_total')).toBe(4);
  });

  it('after an upload whose source marks failed, the sources are marked as duplicates on retry', async () => {
    const w = compactionWorld();
    const sources = await replicas(w, 'team-a', DAY0);
    let failures = 1;
    w.bucket.failWhen = (c) =>
      c.op === 'upload' && c.name.includes('deletion-mark') && failures-- > 0;
    const run = await settle(w.clock, loopFor(w).runOnce(signal()));
    expect(run.succeeded).toEqual(['team-a']);
    const live = await liveBlocks(w, 'team-a');
    expect(live).toHaveLength(1);
    expect(live[0]?.compaction.sources).toEqual(sources.map((s) => s.ulid).sort());
    for (const s of sources) {
      expect(await w.inner.exists(deletionMarkPath('team-a', s.ulid))).toBe(true);
    }
    expect(
      await metric(w.metrics, 'cortex_compactor_compaction_error_total', { type: 'retriable' }),
    ).toBe(1);
  });
});

describe('compaction: a day of replicated blocks', () => {
  it('ends with one 24h block per tenant from 3 × 12 replicas and the newest range untouched', async () => {
    const w = compactionWorld();
    for (let t = DAY0; t <= DAY0 + DAY; t += 2 * HOUR) await replicas(w, 'x', t);
    await loopFor(w).runOnce(signal());
    const live = await liveBlocks(w, 'x');
    // The newest range's replicas overlap: vertical compaction merges them as well.
    expect(live.map((b) => [b.minTime - DAY0, b.maxTime - DAY0])).toEqual([
      [0, DAY],
      [DAY, DAY + 2 * HOUR],
    ]);
    expect(live[0]?.stats.numSamples).toBe(10 * 24 * 240);
  });
});

describe('compaction: compaction_concurrency', () => {
  /** Two groups (different external labels), three replicas each; the order of the work logged. */
  async function twoGroups(concurrency: number): Promise<string[]> {
    const w = compactionWorld('concurrency');
    for (const shard of ['a', 'b']) {
      for (const ing of ['ingester-0', 'ingester-1', 'ingester-2']) {
        await shipBlock(
          w,
          't',
          ing,
          testSeries(4, DAY0, DAY0 + 2 * HOUR),
          { minTime: DAY0, maxTime: DAY0 + 2 * HOUR },
          { shard },
        );
      }
    }
    const run = await loopFor(w, { compactionConcurrency: concurrency }).runOnce(signal());
    expect(run.succeeded).toEqual(['t']);
    const live = await liveBlocks(w, 't');
    expect(live.map((b) => [b.compaction.level, b.thanos?.labels.shard])).toEqual(
      expect.arrayContaining([
        [2, 'a'],
        [2, 'b'],
      ]),
    );
    expect(live).toHaveLength(2);
    return w.logger.lines
      .filter((l) => l.msg.startsWith('compaction available') || l.msg === 'uploaded block')
      .map((l) => (l.msg === 'uploaded block' ? 'uploaded' : 'planned'));
  }

  it('compacts one group at a time with 1', async () => {
    expect(await twoGroups(1)).toEqual(['planned', 'uploaded', 'planned', 'uploaded']);
  });

  it('compacts groups side by side with 2', async () => {
    expect(await twoGroups(2)).toEqual(['planned', 'planned', 'uploaded', 'uploaded']);
  });
});

describe('compaction: upload order', () => {
  it('marks no source while the output meta.json is not uploaded; the next run finishes', async () => {
    const w = compactionWorld();
    const sources = await replicas(w, 'team-a', DAY0);
    const ids = new Set(sources.map((s) => s.ulid));
    // Every upload of a meta.json that is not a source's fails: the output never lands.
    w.bucket.failWhen = (c) =>
      c.op === 'upload' && c.name.endsWith('/meta.json') && !ids.has(c.name.split('/')[1] ?? '');
    const loop = loopFor(w);
    w.bucket.calls.length = 0;
    const failed = await settle(w.clock, loop.runOnce(signal()));
    expect(failed.failed).toEqual(['team-a']);
    // Three attempts, each uploading an output's files but never its meta.json.
    const outputs = new Set(
      w.bucket
        .names('upload')
        .filter((n) => n.endsWith('/index'))
        .map((n) => n.split('/')[1]),
    );
    expect(outputs.size).toBe(3);
    for (const s of sources) {
      expect(await w.inner.exists(deletionMarkPath('team-a', s.ulid))).toBe(false);
      expect(await w.inner.exists(globalDeletionMarkPath('team-a', s.ulid))).toBe(false);
    }
    expect((await liveBlocks(w, 'team-a')).map((b) => b.ulid).sort()).toEqual([...ids].sort());

    // The partial outputs (no meta.json) are invisible to the next run, which completes.
    w.bucket.failWhen = undefined;
    expect((await loop.runOnce(signal())).succeeded).toEqual(['team-a']);
    const live = await liveBlocks(w, 'team-a');
    expect(live).toHaveLength(1);
    expect(live[0]?.compaction.sources).toEqual([...ids].sort());
    expect(await metric(w.metrics, 'cortex_compactor_meta_synced', { state: 'no-meta-json' })).toBe(
      3,
    );
  });
});
