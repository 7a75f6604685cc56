// The shuffle-sharding grouper, planner and visit markers, driven through the compaction loop
// the way several compactors of one tenant's shard run it.
import { describe, expect, it } from 'vitest';
import { DiskFileSystem } from '../../sim/testing/index.js';
import { RecordingBucket } from '../bucket/testing.js';
import type { BlockMeta } from '../tsdb/index.js';
import {
  DAY0,
  HOUR,
  compactionWorld,
  liveBlocks,
  loopFor,
  metric,
  readBucketBlock,
  signal,
  type CompactionWorld,
} from './compaction_harness.testing.js';
import type { CompactionLoop } from './compaction_loop.js';
import { groupBlocksByCompactableRanges } from './shuffle_sharding_grouper.js';
import { shuffleShardingCompactionStrategy } from './shuffle_sharding_planner.js';
import {
  GatedBucket,
  downloadedBlocks,
  shipReplicatedRanges,
  MANUAL_COMPACTION,
} from './shuffle_sharding.testing.js';
import { blockVisitMarkerPath, readBlockVisitMarker, visitMarkerMetrics } from './visit_marker.js';

const MINUTE = 60_000;

function shuffleLoop(
  w: CompactionWorld,
  compactorId: string,
  bucket: RecordingBucket = new RecordingBucket(w.inner),
): CompactionLoop {
  const strategy = shuffleShardingCompactionStrategy(
    {
      ...MANUAL_COMPACTION,
      compactorId,
      visitMarkerTimeoutMs: 5 * MINUTE,
      visitMarkerFileUpdateIntervalMs: MINUTE,
    },
    { bucket, clock: w.clock, logger: w.logger, metrics: w.metrics },
  );
  // Each compactor has its own disk.
  return loopFor(w, MANUAL_COMPACTION, { bucket, fs: new DiskFileSystem(), strategy });
}

async function writeMarker(
  w: CompactionWorld,
  block: string,
  compactorID: string,
  ageMs: number,
): Promise<void> {
  const visitTime = Math.floor((w.clock.now() - ageMs) / 1000);
  await w.inner.upload(
    blockVisitMarkerPath('t', block),
    new TextEncoder().encode(JSON.stringify({ compactorID, visitTime, version: 1 })),
  );
}

const ids = (metas: readonly BlockMeta[]): string[] => metas.map((m) => m.ulid).sort();

describe('groupBlocksByCompactableRanges', () => {
  const meta = (ulid: string, minTime: number, maxTime: number): BlockMeta =>
    ({ ulid, minTime, maxTime }) as BlockMeta;

  it('groups smaller ranges first and keeps larger ranges off them', () => {
    const ranges = [20, 60];
    const groups = groupBlocksByCompactableRanges(
      [
        meta('a', 0, 20),
        meta('b', 0, 20),
        meta('c', 20, 40),
        meta('d', 60, 80),
        meta('e', 80, 100),
        meta('f', 200, 220),
      ],
      ranges,
      1_000,
    );
    // [0,20) has two blocks; [0,60) overlaps it; [60,120) is the next compactable range.
    expect(groups.map((g) => [g.rangeStart, g.rangeEnd, g.metas.map((m) => m.ulid)])).toEqual([
      [0, 20, ['a', 'b']],
      [60, 120, ['d', 'e']],
    ]);
  });

  it('keeps a group reaching the newest block only if complete or a range old', () => {
    const blocks = [meta('a', 0, 20), meta('b', 20, 40)];
    expect(groupBlocksByCompactableRanges(blocks, [20, 60], 90)).toEqual([]);
    expect(groupBlocksByCompactableRanges(blocks, [20, 60], 101)).toHaveLength(1);
    const complete = [meta('a', 0, 20), meta('b', 20, 40), meta('c', 40, 60)];
    expect(groupBlocksByCompactableRanges(complete, [20, 60], 0)).toHaveLength(1);
  });
});

describe('shuffle-sharding compaction with visit markers', () => {
  it('writes Cortex-format markers and compacts what no other compactor visits', async () => {
    const w = compactionWorld();
    const [a, b] = await shipReplicatedRanges(w, 't', [DAY0, DAY0 + 2 * HOUR]);
    const bucket = new RecordingBucket(w.inner);
    const run = await shuffleLoop(w, 'compactor-1', bucket).runOnce(signal());
    expect(run.succeeded).toEqual(['t']);
    const marker = new TextDecoder().decode(
      await w.inner.get(blockVisitMarkerPath('t', (a as BlockMeta[])[0]?.ulid ?? '')),
    );
    expect(marker).toBe(
      `{"compactorID":"compactor-1","visitTime":${Math.floor(w.clock.now() / 1000)},"version":1}`,
    );
    // Both ranges, then the 12h range over the two outputs: one block with every sample.
    const live = await liveBlocks(w, 't');
    expect(live).toHaveLength(1);
    expect(live[0]?.compaction.sources.sort()).toEqual(ids([...(a ?? []), ...(b ?? [])]));
    expect(await readBucketBlock(w, 't', live[0] as BlockMeta)).toHaveLength(3 * 120 * 2);
  });

  it("respects another compactor's fresh marker and takes over a stale one", async () => {
    const w = compactionWorld();
    const [a, b] = (await shipReplicatedRanges(w, 't', [DAY0, DAY0 + 2 * HOUR])) as [
      BlockMeta[],
      BlockMeta[],
    ];
    // Range A was visited 4m ago (fresh), range B 6m ago (stale: the timeout is 5m).
    await writeMarker(w, (a[0] as BlockMeta).ulid, 'compactor-2', 4 * MINUTE);
    await writeMarker(w, (b[1] as BlockMeta).ulid, 'compactor-2', 6 * MINUTE);
    const bucket = new RecordingBucket(w.inner);
    expect((await shuffleLoop(w, 'compactor-1', bucket).runOnce(signal())).succeeded).toEqual([
      't',
    ]);
    expect([...downloadedBlocks(bucket)].sort()).toEqual(ids(b));
    const live = await liveBlocks(w, 't');
    expect(live.map((m) => m.compaction.sources.sort())).toEqual([
      ids([a[0] as BlockMeta]),
      ids([a[1] as BlockMeta]),
      ids(b),
    ]);
    const taken = await readBlockVisitMarker(
      w.inner,
      't',
      (b[1] as BlockMeta).ulid,
      visitMarkerMetrics(w.metrics),
    );
    expect(taken?.compactorID).toBe('compactor-1');
    const kept = await readBlockVisitMarker(
      w.inner,
      't',
      (a[0] as BlockMeta).ulid,
      visitMarkerMetrics(w.metrics),
    );
    expect(kept?.compactorID).toBe('compactor-2');
  });

  it('lets two compactors work on disjoint groups, heartbeating markers while compacting', async () => {
    const w = compactionWorld();
    const [a, b] = (await shipReplicatedRanges(w, 't', [DAY0, DAY0 + 2 * HOUR])) as [
      BlockMeta[],
      BlockMeta[],
    ];
    const slow = new GatedBucket(w.inner);
    const fast = new RecordingBucket(w.inner);
    slow.hold();
    const slowRun = shuffleLoop(w, 'compactor-slow', slow).runOnce(signal());
    await slow.reached;
    // The slow compactor is uploading range A's output. Its markers would be stale after 5m
    // without the heartbeat; 7 minutes pass.
    for (let i = 0; i < 7; i++) await w.clock.advance(MINUTE);
    const writes = slow
      .names('upload')
      .filter((n) => n === blockVisitMarkerPath('t', (a[0] as BlockMeta).ulid));
    expect(writes.length).toBeGreaterThanOrEqual(8);
    expect((await shuffleLoop(w, 'compactor-fast', fast).runOnce(signal())).succeeded).toEqual([
      't',
    ]);
    slow.release();
    expect((await slowRun).succeeded).toEqual(['t']);

    const sources = new Set([...ids(a), ...ids(b)]);
    const slowGot = [...downloadedBlocks(slow)].filter((id) => sources.has(id)).sort();
    const fastGot = [...downloadedBlocks(fast)].filter((id) => sources.has(id)).sort();
    expect(slowGot).toEqual(ids(a));
    expect(fastGot).toEqual(ids(b));
    // The slow one, done with A, merged both outputs; its heartbeats stopped with the run.
    const live = await liveBlocks(w, 't');
    expect(live).toHaveLength(1);
    expect(live[0]?.compaction.sources.sort()).toEqual([...sources].sort());
    const before = slow.names('upload').length;
    await w.clock.advance(10 * MINUTE);
    expect(slow.names('upload').length).toBe(before);
    expect(await metric(w.metrics, 'cortex_compactor_block_visit_marker_write_failed')).toBe(0);
  });

  it('plans nothing when another compactor overwrote a marker after grouping', async () => {
    const w = compactionWorld();
    const [a] = (await shipReplicatedRanges(w, 't', [DAY0])) as [BlockMeta[]];
    const bucket = new RecordingBucket(w.inner);
    // The other compactor's write lands between this one's grouping and its planning.
    const racing = new (class extends RecordingBucket {
      override async upload(name: string, data: Uint8Array): Promise<void> {
        await super.upload(name, data);
        if (name === blockVisitMarkerPath('t', (a[1] as BlockMeta).ulid)) {
          await writeMarker(w, (a[1] as BlockMeta).ulid, 'compactor-2', 0);
        }
      }
    })(bucket);
    expect((await shuffleLoop(w, 'compactor-1', racing).runOnce(signal())).succeeded).toEqual([
      't',
    ]);
    expect(downloadedBlocks(bucket).size).toBe(0);
    expect(await liveBlocks(w, 't')).toHaveLength(2);
  });

  it('leaves the default strategy without visit markers', async () => {
    const w = compactionWorld();
    await shipReplicatedRanges(w, 't', [DAY0, DAY0 + 2 * HOUR]);
    expect((await loopFor(w).runOnce(signal())).succeeded).toEqual(['t']);
    const objects = await w.inner.list('t/', { recursive: true });
    expect(objects.filter((o) => o.endsWith('/visit-mark.json'))).toEqual([]);
    // Thanos's planner: replicas merged, the newest block left out of the 12h merge.
    expect(await liveBlocks(w, 't')).toHaveLength(2);
  });
});
