import { describe, expect, it } from 'vitest';
import {
  blockChunkPath,
  blockIndexPath,
  blockMetaPath,
  readNoCompactMark,
  writeTenantDeletionMark,
} from '../bucket/index.js';
import { parseBlockMeta, serializeBlockMeta, type BlockMeta } from '../tsdb/index.js';
import {
  DAY0,
  HOUR,
  compactionWorld,
  liveBlocks,
  loopFor,
  metric,
  overlapFirstChunks,
  settle,
  shipBlock,
  signal,
  testSeries,
  type CompactionWorld,
} from './compaction_harness.testing.js';

async function replicas(w: CompactionWorld, tenant: string): Promise<BlockMeta[]> {
  const out: BlockMeta[] = [];
  for (const ing of ['ingester-0', 'ingester-1', 'ingester-2']) {
    out.push(
      await shipBlock(w, tenant, ing, testSeries(5, DAY0, DAY0 + 2 * HOUR), {
        minTime: DAY0,
        maxTime: DAY0 + 2 * HOUR,
      }),
    );
  }
  return out;
}

/** The tenant ended with one compacted block of the other replicas and the bad one set aside. */
async function expectSetAside(
  w: CompactionWorld,
  tenant: string,
  sources: BlockMeta[],
  bad: BlockMeta,
  reason: string,
): Promise<void> {
  const mark = await readNoCompactMark(w.inner, tenant, bad.ulid);
  expect(mark?.reason).toBe(reason);
  const live = await liveBlocks(w, tenant);
  const compacted = live.filter((b) => b.compaction.level === 2);
  expect(compacted).toHaveLength(1);
  expect(compacted[0]?.compaction.sources).toEqual(
    sources
      .filter((s) => s !== bad)
      .map((s) => s.ulid)
      .sort(),
  );
  // The bad block stays, unmarked for deletion, for a human to look at.
  expect(live.map((b) => b.ulid)).toContain(bad.ulid);
}

describe('compaction: corrupt sources', () => {
  it('marks corrupt sources no-compact, counts them, and compacts the rest and the other tenants', async () => {
    const w = compactionWorld();
    const missing = await replicas(w, 'missing-chunks');
    const garbage = await replicas(w, 'garbage-index');
    const ooo = await replicas(w, 'out-of-order');
    const good = await replicas(w, 'good');
    await w.inner.delete(blockChunkPath('missing-chunks', (missing[0] as BlockMeta).ulid, 1));
    const indexName = blockIndexPath('garbage-index', (garbage[1] as BlockMeta).ulid);
    const size = (await w.inner.get(indexName)).length;
    await w.inner.upload(indexName, new Uint8Array(size).fill(0x5a));
    const oooIndex = blockIndexPath('out-of-order', (ooo[2] as BlockMeta).ulid);
    await w.inner.upload(oooIndex, await overlapFirstChunks(await w.inner.get(oooIndex)));

    const run = await loopFor(w, { skipBlocksWithOutOfOrderChunksEnabled: true }).runOnce(signal());
    expect(run.failed).toEqual([]);
    expect(run.succeeded.sort()).toEqual([
      'garbage-index',
      'good',
      'missing-chunks',
      'out-of-order',
    ]);
    await expectSetAside(w, 'missing-chunks', missing, missing[0] as BlockMeta, 'block-corrupted');
    await expectSetAside(w, 'garbage-index', garbage, garbage[1] as BlockMeta, 'block-corrupted');
    await expectSetAside(
      w,
      'out-of-order',
      ooo,
      ooo[2] as BlockMeta,
      'block-index-out-of-order-chunk',
    );
    expect((await liveBlocks(w, 'good')).map((b) => b.compaction.level)).toEqual([2]);
    expect(await metric(w.metrics, 'cortex_compactor_blocks_marked_for_no_compaction_total')).toBe(
      3,
    );
    for (const [user, reason] of [
      ['missing-chunks', 'corrupted'],
      ['garbage-index', 'corrupted'],
      ['out-of-order', 'out-of-order-chunks'],
    ] as const) {
      expect(
        await metric(w.metrics, 'strata_compactor_corrupted_blocks_total', { user, reason }),
      ).toBe(1);
    }
    expect(good).toHaveLength(3);
  });

  it('without the skip option, out-of-order chunks halt that tenant only, without retries', async () => {
    const w = compactionWorld();
    const ooo = await replicas(w, 'out-of-order');
    await replicas(w, 'good');
    const oooIndex = blockIndexPath('out-of-order', (ooo[0] as BlockMeta).ulid);
    await w.inner.upload(oooIndex, await overlapFirstChunks(await w.inner.get(oooIndex)));
    const run = await loopFor(w).runOnce(signal());
    expect(run.failed).toEqual(['out-of-order']);
    expect(run.succeeded).toEqual(['good']);
    expect(
      await readNoCompactMark(w.inner, 'out-of-order', (ooo[0] as BlockMeta).ulid),
    ).toBeUndefined();
    expect(await liveBlocks(w, 'out-of-order')).toHaveLength(3);
    expect(
      await metric(w.metrics, 'cortex_compactor_compaction_error_total', { user: 'out-of-order' }),
    ).toBe(1);
    expect(
      await metric(w.metrics, 'cortex_compactor_compaction_error_total', { type: 'halt' }),
    ).toBe(1);
    expect(await metric(w.metrics, 'cortex_compactor_runs_failed_total')).toBe(1);
    expect(await metric(w.metrics, 'cortex_compactor_runs_completed_total')).toBe(0);
  });
});

describe('compaction: chunk references', () => {
  it('marks a source whose index references chunks past the end of its segment no-compact', async () => {
    const w = compactionWorld();
    const sources = await replicas(w, 'truncated');
    const bad = sources[2] as BlockMeta;
    // The segment loses its second half and meta.json agrees, so only verification can tell.
    const segment = blockChunkPath('truncated', bad.ulid, 1);
    const data = await w.inner.get(segment);
    const cut = data.subarray(0, Math.floor(data.length / 2));
    await w.inner.upload(segment, cut);
    const meta = parseBlockMeta(
      new TextDecoder().decode(await w.inner.get(blockMetaPath('truncated', bad.ulid))),
    );
    for (const f of meta.thanos?.files ?? []) {
      if (f.rel_path === 'chunks/000001') f.size_bytes = cut.length;
    }
    await w.inner.upload(
      blockMetaPath('truncated', bad.ulid),
      new TextEncoder().encode(serializeBlockMeta(meta)),
    );
    const run = await loopFor(w).runOnce(signal());
    expect(run.succeeded).toEqual(['truncated']);
    await expectSetAside(w, 'truncated', sources, bad, 'block-corrupted');
    expect(
      await metric(w.metrics, 'strata_compactor_corrupted_blocks_total', {
        user: 'truncated',
        reason: 'corrupted',
      }),
    ).toBe(1);
    const [logged] = w.logger.find('source block failed verification', 'error');
    expect(logged?.fields.block).toBe(bad.ulid);
  });
});

describe('compaction: ownership', () => {
  it('uploads nothing when the tenant moved away before the upload', async () => {
    const w = compactionWorld();
    const sources = await replicas(w, 'team-a');
    let checks = 0;
    w.bucket.calls.length = 0;
    const run = await loopFor(w, {}, { ownsTenant: () => checks++ === 0 }).runOnce(signal());
    expect(checks).toBe(2);
    expect(run.skipped).toEqual(['team-a']);
    expect(w.bucket.names('upload')).toEqual([]);
    expect((await liveBlocks(w, 'team-a')).map((b) => b.ulid).sort()).toEqual(
      sources.map((s) => s.ulid).sort(),
    );
    expect(w.logger.find('abandoning')).toHaveLength(1);
    expect(await w.fs.exists('/data/compact/team-a')).toBe(false);
  });

  it('skips tenants it does not own, cannot check, or that are being deleted', async () => {
    const w = compactionWorld();
    for (const t of ['mine', 'theirs', 'unknown', 'deleted']) await replicas(w, t);
    await writeTenantDeletionMark(w.inner, 'deleted', { deletion_time: 1 });
    const ownsTenant = (t: string): boolean => {
      if (t === 'unknown') throw new Error('ring has no owner');
      return t !== 'theirs';
    };
    const run = await loopFor(w, {}, { ownsTenant }).runOnce(signal());
    expect(run.succeeded).toEqual(['mine']);
    expect(run.skipped.sort()).toEqual(['deleted', 'theirs', 'unknown']);
    expect(w.logger.find('unable to check if user is owned by this shard')).toHaveLength(1);
    expect(await liveBlocks(w, 'theirs')).toHaveLength(3);
  });
});

describe('compaction: retries', () => {
  it('retries a failing tenant with backoff (10s, then 20s, doubling) and succeeds', async () => {
    const w = compactionWorld();
    await replicas(w, 'team-a');
    let failures = 2;
    w.bucket.failWhen = (c) => c.op === 'list' && c.name === 'team-a/' && failures-- > 0;
    const started = w.clock.now();
    const run = await settle(w.clock, loopFor(w).runOnce(signal()));
    expect(run.succeeded).toEqual(['team-a']);
    const waited = w.clock.now() - started;
    expect(waited).toBeGreaterThanOrEqual(30_000);
    expect(waited).toBeLessThanOrEqual(61_000);
    expect(
      await metric(w.metrics, 'cortex_compactor_compaction_error_total', { type: 'retriable' }),
    ).toBe(2);
    expect(await metric(w.metrics, 'cortex_compactor_runs_completed_total')).toBe(1);
  });

  it('gives up after compaction_retries attempts; the run fails, other tenants are compacted', async () => {
    const w = compactionWorld();
    await replicas(w, 'broken');
    await replicas(w, 'fine');
    w.bucket.failWhen = (c) => c.op === 'list' && c.name === 'broken/';
    const run = await settle(w.clock, loopFor(w).runOnce(signal()));
    expect(run.failed).toEqual(['broken']);
    expect(run.succeeded).toEqual(['fine']);
    expect(w.bucket.names('list').filter((n) => n === 'broken/')).toHaveLength(3);
    expect(
      await metric(w.metrics, 'cortex_compactor_compaction_error_total', { user: 'broken' }),
    ).toBe(3);
    expect(await metric(w.metrics, 'cortex_compactor_runs_failed_total')).toBe(1);
    expect(w.logger.find('failed to compact user blocks', 'error')).toHaveLength(1);
  });
});
