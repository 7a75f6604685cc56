// The bucket-index blocks finder over a MemoryBucket holding hand-written, gzipped indexes:
// range selection, deletion marks, missing / stale / corrupted indexes, the background
// refresh, idle unloading, the loader metrics, and readiness after the startup pass.
import { afterEach, describe, expect, it } from 'vitest';
import { writeTenantDeletionMark, type BucketIndex } from '../bucket/index.js';
import { uploadTestBlock } from '../bucket/testing.js';
import { BlocksCleaner } from '../compactor/index.js';
import {
  MemoryBucket,
  newMetricsRegistry,
  type Bucket,
  type MetricsRegistry,
} from '../runtime/index.js';
import { CapturingLogger, ManualClock } from '../runtime/testing/index.js';
import {
  BUCKET_INDEX_TOO_OLD_MESSAGE,
  BucketIndexBlocksFinder,
  type BucketIndexBlocksFinderConfig,
} from './blocks_finder_bucket_index.js';
import { blockId, writeIndex } from './blocks_fakes.testing.js';

const NOW = 1_700_000_000_000;
const MIN = 60_000;
const HOUR = 60 * MIN;
const H2 = 2 * HOUR;
const BASE = NOW - 10 * HOUR;
const sec = (ms: number): number => Math.floor(ms / 1000);

const B1 = blockId(BASE, 1);
const B2 = blockId(BASE, 2);
const B3 = blockId(BASE, 3);

const CONFIG: BucketIndexBlocksFinderConfig = {
  checkIntervalMs: MIN,
  syncIntervalMs: 15 * MIN,
  updateOnErrorIntervalMs: MIN,
  idleTimeoutMs: HOUR,
  maxStalePeriodMs: HOUR,
  ignoreDeletionMarksDelayMs: 6 * HOUR,
};

function index(clock: ManualClock, extra: Partial<BucketIndex> = {}): BucketIndex {
  return {
    version: 1,
    blocks: [
      { block_id: B1, min_time: BASE, max_time: BASE + H2, uploaded_at: sec(BASE + H2) },
      {
        block_id: B2,
        min_time: BASE + H2,
        max_time: BASE + 2 * H2,
        uploaded_at: sec(BASE + 2 * H2),
      },
      {
        block_id: B3,
        min_time: BASE + 2 * H2,
        max_time: BASE + 3 * H2,
        uploaded_at: sec(BASE + 3 * H2),
      },
    ],
    block_deletion_marks: [],
    updated_at: sec(clock.now()),
    ...extra,
  };
}

interface Setup {
  clock: ManualClock;
  bucket: Bucket;
  finder: BucketIndexBlocksFinder;
  metrics: MetricsRegistry;
}

const running: BucketIndexBlocksFinder[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((f) => f.stop()));
});

async function setup(
  opts: { start?: boolean; bucket?: Bucket; clock?: ManualClock } = {},
): Promise<Setup> {
  const clock = opts.clock ?? new ManualClock(NOW);
  const bucket = opts.bucket ?? new MemoryBucket({ clock });
  const metrics = newMetricsRegistry();
  const finder = new BucketIndexBlocksFinder(CONFIG, {
    bucket,
    clock,
    logger: new CapturingLogger(),
    metrics,
  });
  if (opts.start !== false) {
    running.push(finder);
    await finder.start(new AbortController().signal);
    await clock.advance(0);
  }
  return { clock, bucket, finder, metrics };
}

async function metric(metrics: MetricsRegistry, name: string): Promise<number> {
  const m = metrics.getSingleMetric(name);
  const value = await m?.get();
  return value?.values[0]?.value ?? 0;
}

const ids = (found: { blocks: readonly { block_id: string }[] }): string[] =>
  found.blocks.map((b) => b.block_id);

describe('BucketIndexBlocksFinder', () => {
  it('is not running before start', async () => {
    const { finder } = await setup({ start: false });
    await expect(finder.getBlocks('t', 0, 1)).rejects.toThrow(
      'bucket index blocks finder is not running',
    );
  });

  it('selects blocks with minT <= qMax && qMin < maxT, newest first', async () => {
    const { finder, bucket, clock } = await setup();
    await writeIndex(bucket, 't', index(clock));
    expect(ids(await finder.getBlocks('t', BASE + H2, BASE + H2))).toEqual([B2]);
    expect(ids(await finder.getBlocks('t', BASE + H2 - 1, BASE + H2))).toEqual([B2, B1]);
    expect(ids(await finder.getBlocks('t', 0, NOW))).toEqual([B3, B2, B1]);
    expect(ids(await finder.getBlocks('t', BASE + 3 * H2, NOW))).toEqual([]);
    await expect(finder.getBlocks('t', 10, 5)).rejects.toThrow('invalid blocks time range');
  });

  it('returns recent deletion marks and drops blocks marked long ago', async () => {
    const { finder, bucket, clock } = await setup();
    await writeIndex(
      bucket,
      't',
      index(clock, {
        block_deletion_marks: [
          { block_id: B1, deletion_time: sec(NOW - 7 * HOUR) },
          { block_id: B2, deletion_time: sec(NOW - HOUR) },
        ],
      }),
    );
    const found = await finder.getBlocks('t', 0, NOW);
    expect(ids(found)).toEqual([B3, B2]);
    expect([...found.deletionMarks.keys()]).toEqual([B2]);
  });

  it('has no blocks for a tenant without an index, and counts the failed load', async () => {
    const { finder, metrics } = await setup();
    expect(ids(await finder.getBlocks('new-tenant', 0, NOW))).toEqual([]);
    expect(await metric(metrics, 'cortex_bucket_index_loads_total')).toBe(1);
    expect(await metric(metrics, 'cortex_bucket_index_load_failures_total')).toBe(1);
    // Cached: a second query does not read the bucket again.
    await finder.getBlocks('new-tenant', 0, NOW);
    expect(await metric(metrics, 'cortex_bucket_index_loads_total')).toBe(1);
  });

  it('fails queries on an index older than the max stale period', async () => {
    const { finder, bucket, clock } = await setup();
    await writeIndex(bucket, 't', index(clock, { updated_at: sec(NOW - HOUR - MIN) }));
    await expect(finder.getBlocks('t', 0, NOW)).rejects.toThrow(BUCKET_INDEX_TOO_OLD_MESSAGE);
  });

  it('fails on a corrupted index and retries it after update_on_error_interval', async () => {
    const { finder, bucket, clock, metrics } = await setup();
    await bucket.upload('t/bucket-index.json.gz', new TextEncoder().encode('not gzip'));
    await expect(finder.getBlocks('t', 0, NOW)).rejects.toThrow(/bucket index corrupted/);
    await writeIndex(bucket, 't', index(clock));
    await clock.advance(MIN);
    expect(ids(await finder.getBlocks('t', 0, NOW))).toEqual([B3, B2, B1]);
    expect(await metric(metrics, 'cortex_bucket_index_loads_total')).toBe(2);
    expect(await metric(metrics, 'cortex_bucket_index_loaded')).toBe(1);
  });

  it('re-reads a loaded index once it is older than the sync interval', async () => {
    const { finder, bucket, clock } = await setup();
    await writeIndex(bucket, 't', index(clock, { blocks: [] }));
    expect(ids(await finder.getBlocks('t', 0, NOW))).toEqual([]);
    await writeIndex(bucket, 't', index(clock));
    await clock.advance(10 * MIN);
    expect(ids(await finder.getBlocks('t', 0, NOW))).toEqual([]);
    await clock.advance(6 * MIN);
    expect(ids(await finder.getBlocks('t', 0, NOW))).toEqual([B3, B2, B1]);
  });

  it('unloads an index unused for the idle timeout', async () => {
    const { finder, bucket, clock, metrics } = await setup();
    await writeIndex(bucket, 't', index(clock));
    await finder.getBlocks('t', 0, NOW);
    expect(await metric(metrics, 'cortex_bucket_index_loaded')).toBe(1);
    await clock.advance(HOUR);
    expect(await metric(metrics, 'cortex_bucket_index_loaded')).toBe(0);
    expect(finder.loadedCount()).toBe(0);
  });

  it('forgets an index deleted from the bucket at the next refresh', async () => {
    const { finder, bucket, clock } = await setup();
    await writeIndex(bucket, 't', index(clock));
    await finder.getBlocks('t', 0, NOW);
    await bucket.delete('t/bucket-index.json.gz');
    await clock.advance(16 * MIN);
    expect(ids(await finder.getBlocks('t', 0, NOW))).toEqual([]);
  });

  it('loads every tenant index at startup and is ready after that pass only', async () => {
    const clock = new ManualClock(NOW);
    const inner = new MemoryBucket({ clock });
    await writeIndex(inner, 'a', index(clock));
    await writeIndex(inner, 'b', index(clock));
    let release = (): void => {};
    const gate = new Promise<void>((r) => (release = r));
    // Listing the tenants waits for the test, so the pass is observably in progress.
    const slow: Bucket = Object.assign(Object.create(inner) as Bucket, {
      list: async (dir: string, opts?: { recursive?: boolean }) => {
        await gate;
        return inner.list(dir, opts);
      },
    });
    const { finder, metrics } = await setup({ bucket: slow, clock });
    expect(finder.isReady()).toMatch(/blocks discovery has not completed/);
    release();
    await clock.advance(0);
    expect(finder.isReady()).toBeUndefined();
    expect(await metric(metrics, 'cortex_bucket_index_loads_total')).toBe(2);
    expect(await metric(metrics, 'cortex_bucket_index_loaded')).toBe(2);
  });

  it('retries the startup pass when listing the bucket fails', async () => {
    const clock = new ManualClock(NOW);
    const inner = new MemoryBucket({ clock });
    let failures = 1;
    const flaky: Bucket = Object.assign(Object.create(inner) as Bucket, {
      list: (dir: string) => {
        if (failures-- > 0) return Promise.reject(new Error('listing failed'));
        return inner.list(dir);
      },
    });
    const { finder } = await setup({ bucket: flaky, clock });
    expect(finder.isReady()).toBeDefined();
    await clock.advance(MIN);
    expect(finder.isReady()).toBeUndefined();
  });
});

describe('BucketIndexBlocksFinder, tenants marked for deletion (Cortex)', () => {
  it('serves a deleting tenant until the cleaner deleted its index, then finds no blocks', async () => {
    const { finder, bucket, clock } = await setup();
    const cleaner = new BlocksCleaner(
      { deletionDelayMs: 12 * HOUR, cleanupConcurrency: 2 },
      { bucket, clock, logger: new CapturingLogger(), metrics: newMetricsRegistry() },
    );
    await uploadTestBlock(bucket, 't', B1, { minTime: BASE, maxTime: BASE + H2 });
    await uploadTestBlock(bucket, 'keep', B2, { minTime: BASE, maxTime: BASE + H2 });
    await cleaner.runCleanup(new AbortController().signal, true);
    expect(ids(await finder.getBlocks('t', 0, NOW))).toEqual([B1]);

    // Marked: the finder does not look at tenant deletion marks; the index still lists B1.
    await writeTenantDeletionMark(bucket, 't', { deletion_time: sec(NOW) });
    await clock.advance(16 * MIN);
    expect(ids(await finder.getBlocks('t', 0, NOW))).toEqual([B1]);

    // The cleaner deletes the index first, then the blocks: at the next refresh, nothing.
    await cleaner.runCleanup(new AbortController().signal, false);
    expect(await bucket.exists('t/bucket-index.json.gz')).toBe(false);
    await clock.advance(16 * MIN);
    expect(ids(await finder.getBlocks('t', 0, NOW))).toEqual([]);
    expect(ids(await finder.getBlocks('keep', 0, NOW))).toEqual([B2]);
  });
});
