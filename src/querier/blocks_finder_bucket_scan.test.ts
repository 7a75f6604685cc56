// The bucket-scan blocks finder (bucket index disabled): blocks from meta.json, partial
// blocks skipped, deletion marks from `markers/`, periodic rescans, and no answers before
// the first scan.
import { afterEach, describe, expect, it } from 'vitest';
import { blockIndexPath, writeTenantDeletionMark } from '../bucket/index.js';
import { MemoryBucket, type Bucket } from '../runtime/index.js';
import { CapturingLogger, ManualClock } from '../runtime/testing/index.js';
import { BucketScanBlocksFinder } from './blocks_finder_bucket_scan.js';
import { blockId, writeDeletionMark, writeMeta } from './blocks_fakes.testing.js';

const NOW = 1_700_000_000_000;
const MIN = 60_000;
const HOUR = 60 * MIN;
const H2 = 2 * HOUR;
const BASE = NOW - 10 * HOUR;
const sec = (ms: number): number => Math.floor(ms / 1000);

const B1 = blockId(BASE, 1);
const B2 = blockId(BASE, 2);
const B3 = blockId(BASE, 3);

const running: BucketScanBlocksFinder[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((f) => f.stop()));
});

function newFinder(clock: ManualClock, bucket: Bucket): BucketScanBlocksFinder {
  const finder = new BucketScanBlocksFinder(
    {
      scanIntervalMs: 15 * MIN,
      retryIntervalMs: MIN,
      ignoreDeletionMarksDelayMs: 6 * HOUR,
      tenantsConcurrency: 4,
    },
    { bucket, clock, logger: new CapturingLogger() },
  );
  running.push(finder);
  return finder;
}

async function fixture(): Promise<{ clock: ManualClock; bucket: MemoryBucket }> {
  const clock = new ManualClock(NOW - HOUR);
  const bucket = new MemoryBucket({ clock });
  await writeMeta(bucket, 't', B1, BASE, BASE + H2);
  await writeMeta(bucket, 't', B2, BASE + H2, BASE + 2 * H2);
  // A partial upload: chunks and index, no meta.json yet.
  await bucket.upload(blockIndexPath('t', B3), new Uint8Array([1]));
  await clock.advance(HOUR);
  return { clock, bucket };
}

describe('BucketScanBlocksFinder', () => {
  it('refuses queries and is not ready before the first scan', async () => {
    const { clock, bucket } = await fixture();
    const finder = newFinder(clock, bucket);
    await expect(finder.getBlocks('t', 0, NOW)).rejects.toThrow(
      'bucket scan blocks finder is not running',
    );
    await finder.start(new AbortController().signal);
    expect(finder.isReady()).toMatch(/blocks discovery has not completed/);
    await clock.advance(0);
    expect(finder.isReady()).toBeUndefined();
  });

  it('finds complete blocks with their upload time, newest first', async () => {
    const { clock, bucket } = await fixture();
    const finder = newFinder(clock, bucket);
    await finder.start(new AbortController().signal);
    await clock.advance(0);
    const found = await finder.getBlocks('t', 0, NOW);
    expect(found.blocks).toEqual([
      { block_id: B2, min_time: BASE + H2, max_time: BASE + 2 * H2, uploaded_at: sec(NOW - HOUR) },
      { block_id: B1, min_time: BASE, max_time: BASE + H2, uploaded_at: sec(NOW - HOUR) },
    ]);
    expect((await finder.getBlocks('t', BASE + H2, NOW)).blocks.map((b) => b.block_id)).toEqual([
      B2,
    ]);
    expect((await finder.getBlocks('other', 0, NOW)).blocks).toEqual([]);
  });

  it('applies deletion marks from markers/', async () => {
    const { clock, bucket } = await fixture();
    await writeDeletionMark(bucket, 't', B1, sec(NOW - 7 * HOUR));
    await writeDeletionMark(bucket, 't', B2, sec(NOW - HOUR));
    const finder = newFinder(clock, bucket);
    await finder.start(new AbortController().signal);
    await clock.advance(0);
    const found = await finder.getBlocks('t', 0, NOW);
    expect(found.blocks.map((b) => b.block_id)).toEqual([B2]);
    expect(found.deletionMarks.get(B2)).toEqual({ block_id: B2, deletion_time: sec(NOW - HOUR) });
  });

  it('rescans every sync interval and forgets tenants gone from the bucket', async () => {
    const { clock, bucket } = await fixture();
    const finder = newFinder(clock, bucket);
    await finder.start(new AbortController().signal);
    await clock.advance(0);
    await writeMeta(bucket, 't', B3, BASE + 2 * H2, BASE + 3 * H2);
    await writeMeta(bucket, 'u', B1, BASE, BASE + H2);
    expect((await finder.getBlocks('t', 0, NOW)).blocks).toHaveLength(2);
    await clock.advance(15 * MIN);
    expect((await finder.getBlocks('t', 0, NOW)).blocks.map((b) => b.block_id)).toEqual([
      B3,
      B2,
      B1,
    ]);
    expect((await finder.getBlocks('u', 0, NOW)).blocks).toHaveLength(1);
    for (const name of await bucket.list('u/', { recursive: true })) await bucket.delete(name);
    await clock.advance(15 * MIN);
    expect((await finder.getBlocks('u', 0, NOW)).blocks).toEqual([]);
  });
});

describe('BucketScanBlocksFinder, tenants marked for deletion', () => {
  it('finds no blocks of a deleting tenant from the first scan after the mark (Cortex scans active tenants only)', async () => {
    const { clock, bucket } = await fixture();
    await writeMeta(bucket, 'keep', B1, BASE, BASE + H2);
    const finder = newFinder(clock, bucket);
    await finder.start(new AbortController().signal);
    await clock.advance(0);
    expect((await finder.getBlocks('t', 0, NOW)).blocks).toHaveLength(2);
    await writeTenantDeletionMark(bucket, 't', { deletion_time: sec(NOW) });
    await clock.advance(15 * MIN);
    expect(await finder.getBlocks('t', 0, NOW)).toEqual({ blocks: [], deletionMarks: new Map() });
    expect((await finder.getBlocks('keep', 0, NOW)).blocks).toHaveLength(1);
  });
});
