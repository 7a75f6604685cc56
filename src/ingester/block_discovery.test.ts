import { describe, expect, it } from 'vitest';
import { bucketIndexPath, writeBucketIndex, type BucketIndex } from '../bucket/index.js';
import { RecordingBucket, testUlid } from '../bucket/testing.js';
import { MemoryBucket } from '../runtime/memory/index.js';
import { CapturingLogger, ManualClock } from '../runtime/testing/index.js';
import {
  BlockDiscovery,
  QUERIER_INDEX_CHECK_MS,
  type BlockDiscoveryConfig,
} from './block_discovery.js';

const T0 = 1_700_000_000_000;
const SYNC = 60_000;
const A = testUlid(T0 - 3_600_000, 1);
const B = testUlid(T0 - 3_600_000, 2);

function setup(config: Partial<BlockDiscoveryConfig> = {}) {
  const clock = new ManualClock(T0);
  const bucket = new RecordingBucket(new MemoryBucket({ clock }));
  const logger = new CapturingLogger();
  const discovery = new BlockDiscovery(
    {
      bucketIndexEnabled: true,
      syncIntervalMs: SYNC,
      consistencyDelayMs: 0,
      updateOnErrorIntervalMs: 30_000,
      ...config,
    },
    { bucket, clock, logger },
  );
  return { clock, bucket, logger, discovery };
}

function index(...blocks: string[]): BucketIndex {
  return {
    version: 1,
    blocks: blocks.map((id) => ({ block_id: id, min_time: 0, max_time: 1, uploaded_at: 0 })),
    block_deletion_marks: [],
    updated_at: T0 / 1000,
  };
}

describe('BlockDiscovery', () => {
  it('finds a block only once the bucket index has listed it for 3 sync intervals plus the consistency delay', async () => {
    const { clock, bucket, discovery } = setup({ consistencyDelayMs: 5_000 });
    expect(discovery.graceMs).toBe(3 * SYNC + 5_000 + 30_000 + QUERIER_INDEX_CHECK_MS);
    // No index yet (no compactor ran): shipped blocks are not findable, however long.
    await discovery.refresh('t', new Set([A, B]));
    await clock.advance(10 * SYNC);
    expect(discovery.isDiscoverable('t', A)).toBe(false);
    await writeBucketIndex(bucket, 't', index(A));
    await discovery.refresh('t', new Set([A, B]));
    await clock.advance(discovery.graceMs - 1);
    await discovery.refresh('t', new Set([A, B]));
    expect(discovery.isDiscoverable('t', A)).toBe(false);
    await clock.advance(1);
    expect(discovery.isDiscoverable('t', A)).toBe(true);
    expect(discovery.isDiscoverable('t', B)).toBe(false);
  });

  it('reads the index only while a shipped block is not yet listed', async () => {
    const { bucket, discovery } = setup();
    await writeBucketIndex(bucket, 't', index(A));
    bucket.calls.length = 0;
    await discovery.refresh('t', new Set([A]));
    await discovery.refresh('t', new Set([A]));
    expect(
      bucket.calls.filter((c) => c.op === 'get' && c.name === bucketIndexPath('t')),
    ).toHaveLength(1);
  });

  it('without the bucket index counts from the shipping it was told of', async () => {
    const { clock, bucket, discovery } = setup({ bucketIndexEnabled: false });
    await discovery.refresh('t', new Set([A]));
    expect(bucket.calls).toEqual([]);
    await clock.advance(discovery.graceMs);
    expect(discovery.isDiscoverable('t', A)).toBe(true);
  });

  it('keeps blocks when the index cannot be read, saying why', async () => {
    const { clock, bucket, logger, discovery } = setup();
    await bucket.upload(bucketIndexPath('t'), new Uint8Array([1, 2, 3]));
    await discovery.refresh('t', new Set([A]));
    await clock.advance(100 * SYNC);
    expect(discovery.isDiscoverable('t', A)).toBe(false);
    expect(logger.find('failed to read the bucket index', 'warn')).toHaveLength(1);
  });
});
