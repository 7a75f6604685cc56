// The shipper inside the Ingester: retention never deletes an unshipped block, flush and
// shutdown ship, shipping can be off, and the metrics operators watch.
import { describe, expect, it } from 'vitest';
import { DiskFileSystem } from '../../sim/testing/index.js';
import { Matcher } from '../model/index.js';
import type { MemoryKVStore } from '../runtime/index.js';
import { CapturingLogger, ManualClock } from '../runtime/testing/index.js';
import { BucketIndexUpdater, writeBucketIndex } from '../bucket/index.js';
import { ulidTime } from '../tsdb/index.js';
import {
  INGESTER_ADDR,
  batch,
  buildHarness,
  lines,
  series,
  type Harness,
} from './ingester_harness.testing.js';
import {
  HOUR,
  START,
  metricValue,
  recordingBucket,
  type RecordingBucket,
} from './shipper_harness.testing.js';
import { toWireMatchers } from './wire.js';
import { QUERIER_INDEX_CHECK_MS } from './block_discovery.js';

const ALL = toWireMatchers([Matcher.regex('__name__', '.+')]);
const RETENTION = 6 * HOUR;
/** Queriers' bucket sync interval: a block in the bucket index is kept 3 of these and a minute. */
const SYNC_INTERVAL = 60_000;

interface Started extends Harness {
  clock: ManualClock;
  fs: DiskFileSystem;
  bucket: RecordingBucket;
  logger: CapturingLogger;
}

async function started(
  o: {
    clock?: ManualClock;
    fs?: DiskFileSystem;
    bucket?: RecordingBucket | null;
    store?: MemoryKVStore;
    shipInterval?: number;
    flushOnShutdown?: boolean;
  } = {},
): Promise<Started> {
  const clock = o.clock ?? new ManualClock(START);
  const fs = o.fs ?? new DiskFileSystem();
  const bucket = o.bucket ?? recordingBucket(clock);
  const logger = new CapturingLogger();
  const h = await buildHarness({
    clock,
    fs,
    logger,
    ...(o.bucket === null ? {} : { bucket }),
    ...(o.store === undefined ? {} : { store: o.store }),
    config: {
      tenantDBs: {
        dir: '/data/tsdb',
        blockRanges: [2 * HOUR],
        retention: RETENTION,
        headCompactionInterval: 60_000,
        headCompactionConcurrency: 2,
        openingConcurrency: 2,
        stripeSize: 16,
        walCompression: false,
        shipInterval: o.shipInterval ?? 60_000,
        shipConcurrency: 2,
        discovery: {
          bucketIndexEnabled: true,
          syncIntervalMs: SYNC_INTERVAL,
          consistencyDelayMs: 0,
          updateOnErrorIntervalMs: SYNC_INTERVAL,
        },
      },
      flushOnShutdown: o.flushOnShutdown ?? false,
    },
  });
  await h.ingester.start(new AbortController().signal);
  await clock.advance(0);
  return { ...h, clock, fs, bucket, logger };
}

async function push(h: Started, tenant: string, ...samples: [number, number][]): Promise<void> {
  await h.client.push(INGESTER_ADDR, tenant, batch(series('up', {}, ...samples)), 'api');
}

async function localBlocks(h: Started, tenant: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await h.fs.readdir(`/data/tsdb/${tenant}`))
    if (await h.fs.exists(`/data/tsdb/${tenant}/${e}/meta.json`)) out.push(e);
  return out;
}

/** What the compactor's cleaner does: writes the tenant's bucket index from the bucket. */
async function indexBucket(h: Started, tenant: string): Promise<void> {
  const updater = new BucketIndexUpdater(
    { tenant },
    { bucket: h.bucket.inner, clock: h.clock, logger: h.logger },
  );
  await writeBucketIndex(h.bucket.inner, tenant, (await updater.update(undefined)).index);
}

async function bucketBlocks(h: Started, tenant: string): Promise<string[]> {
  const names = await h.bucket.inner.list(`${tenant}/`, { recursive: true });
  return names.filter((n) => n.endsWith('/meta.json')).map((n) => n.split('/')[1] as string);
}

const query = (h: Started, tenant: string) =>
  h.client
    .queryStream(INGESTER_ADDR, tenant, { start: START - HOUR, end: START + HOUR, matchers: ALL })
    .then(lines);

/** Moves time on and lets the ship loop's and head compaction's runs finish. */
async function advance(h: Started, ms: number): Promise<void> {
  await h.clock.advance(ms);
  await h.ingester.shipping?.ship([]);
  for (const t of h.ingester.dbs.tenantIds()) await h.ingester.dbs.get(t)?.applyRetention();
}

const shipperMetric = (h: Harness, name: string) =>
  metricValue(h.metrics, `cortex_ingester_shipper_${name}`);
const oldestUnshipped = (h: Harness) =>
  metricValue(h.metrics, 'cortex_ingester_oldest_unshipped_block_timestamp_seconds');

describe('Ingester shipping: never lose a block', () => {
  it('keeps a block whose upload fails past the retention period, queryable, until shipped and aged', async () => {
    const h = await started();
    h.bucket.failOn = (op) => op === 'upload';
    await push(h, 't1', [START, 1], [START + 60_000, 2]);
    await h.ingester.flush(['t1'], true);
    const [block] = await localBlocks(h, 't1');
    expect(block).toBeDefined();
    expect(await bucketBlocks(h, 't1')).toEqual([]);
    expect(await shipperMetric(h, 'upload_failures_total')).toBe(1);
    expect(await oldestUnshipped(h)).toBe(Math.floor(ulidTime(block as string) / 1000));

    // Twice the retention period, the loop failing to ship every minute meanwhile.
    await advance(h, 2 * RETENTION);
    expect(await localBlocks(h, 't1')).toEqual([block]);
    expect(h.ingester.dbs.get('t1')?.blocks()).toHaveLength(1);
    expect(await query(h, 't1')).toEqual([`{__name__="up"} ${START}=1 ${START + 60_000}=2`]);
    expect(await shipperMetric(h, 'upload_failures_total')).toBeGreaterThan(100);
    expect(h.logger.find('block deleted by retention')).toEqual([]);

    // The bucket heals: the next tick ships it. Queriers cannot find it before the bucket
    // index lists it (the compactor writes it), and store-gateways load it up to three sync
    // intervals after that: only then does the next retention pass delete it.
    h.bucket.failOn = () => false;
    await advance(h, 61_000);
    expect(await bucketBlocks(h, 't1')).toEqual([block]);
    expect(await oldestUnshipped(h)).toBe(0);
    await advance(h, 10 * SYNC_INTERVAL);
    expect(await localBlocks(h, 't1')).toEqual([block]);
    await indexBucket(h, 't1');
    await h.ingester.shipping?.ship(['t1']); // a ship run sees the block in the index now
    await advance(h, 4 * SYNC_INTERVAL + QUERIER_INDEX_CHECK_MS - 1);
    expect(await localBlocks(h, 't1')).toEqual([block]);
    await advance(h, 1);
    expect(await localBlocks(h, 't1')).toEqual([]);
    expect(h.logger.find('block deleted by retention')).toHaveLength(1);
    expect(await query(h, 't1')).toEqual([]);
    await h.ingester.stop();
  });

  it('keeps a shipped block until retention_period after its max time', async () => {
    const h = await started();
    await push(h, 't1', [START, 1]);
    await h.ingester.flush(['t1'], true);
    const [block] = await localBlocks(h, 't1');
    expect(await bucketBlocks(h, 't1')).toEqual([block]);
    await indexBucket(h, 't1');
    const maxTime = h.ingester.dbs.get('t1')?.blocks()[0]?.meta.maxTime as number;
    await advance(h, maxTime + RETENTION - 1 - h.clock.now());
    expect(await localBlocks(h, 't1')).toEqual([block]);
    await advance(h, 1);
    expect(await localBlocks(h, 't1')).toEqual([]);
    await h.ingester.stop();
  });

  it('with ship_interval 0 ships nothing and keeps every block; says so once at startup', async () => {
    const h = await started({ shipInterval: 0 });
    expect(h.ingester.shipping).toBeUndefined();
    await push(h, 't1', [START, 1]);
    await h.ingester.flush(undefined, true);
    await advance(h, 3 * RETENTION);
    expect(await localBlocks(h, 't1')).toHaveLength(1);
    expect(h.bucket.ops).toEqual([]);
    const said = h.logger.find('shipping disabled', 'warn');
    expect(said).toHaveLength(1);
    expect(said[0]?.msg).toContain('kept locally forever');
    expect(said[0]?.fields.reason).toBe('tsdb.ship_interval is 0');
    await h.ingester.stop();
  });

  it('without a bucket keeps every block and says why', async () => {
    const h = await started({ bucket: null });
    expect(h.ingester.shipping).toBeUndefined();
    await push(h, 't1', [START, 1]);
    await h.ingester.flush(undefined, true);
    await advance(h, 3 * RETENTION);
    expect(await localBlocks(h, 't1')).toHaveLength(1);
    expect(h.logger.find('shipping disabled', 'warn')[0]?.fields.reason).toBe(
      'no blocks bucket configured',
    );
    await h.ingester.stop();
  });
});

describe('Ingester shipping: on demand', () => {
  it('/ingester/flush with wait ships the flushed tenants before returning', async () => {
    const h = await started();
    await push(h, 't1', [START, 1]);
    await push(h, 't2', [START, 2]);
    await h.ingester.flush(['t1'], true);
    expect(await bucketBlocks(h, 't1')).toEqual(await localBlocks(h, 't1'));
    expect(await bucketBlocks(h, 't2')).toEqual([]);
    const meta = JSON.parse(
      new TextDecoder().decode(
        await h.bucket.inner.get(`t1/${(await localBlocks(h, 't1'))[0]}/meta.json`),
      ),
    ) as { thanos: { labels: Record<string, string>; source: string } };
    expect(meta.thanos.labels).toEqual({ __ingester_id__: 'ingester-1', __org_id__: 't1' });
    expect(meta.thanos.source).toBe('receive');
    await h.ingester.stop();
  });

  it('/ingester/flush without wait ships in the background; stopping waits for it', async () => {
    const h = await started();
    await push(h, 't1', [START, 1]);
    await h.ingester.flush(undefined, false);
    await h.ingester.stop();
    expect(await bucketBlocks(h, 't1')).toHaveLength(1);
  });

  it('/ingester/shutdown flushes and ships before the databases close', async () => {
    const h = await started();
    await push(h, 't1', [START, 1]);
    await h.ingester.shutdown();
    expect(await bucketBlocks(h, 't1')).toEqual(await localBlocks(h, 't1'));
    expect(await bucketBlocks(h, 't1')).toHaveLength(1);
    // The loop is stopped: no further shipping after the shutdown.
    const ops = h.bucket.ops.length;
    await h.clock.advance(10 * 60_000);
    expect(h.bucket.ops.length).toBe(ops);
    await h.ingester.stop();
  });

  it('stopping with flush-on-shutdown ships the flushed blocks', async () => {
    const h = await started({ flushOnShutdown: true });
    await push(h, 't1', [START, 1]);
    await h.ingester.stop();
    expect(await bucketBlocks(h, 't1')).toHaveLength(1);
  });

  it('stopping without flush-on-shutdown ships nothing more (the WAL keeps the head)', async () => {
    const h = await started();
    await push(h, 't1', [START, 1]);
    await h.ingester.stop();
    expect(h.bucket.uploads()).toEqual([]);
  });
});

describe('Ingester shipping: loop and restart', () => {
  it('ships blocks cut by head compaction on the next tick, and not again after a restart', async () => {
    const clock = new ManualClock(START);
    const fs = new DiskFileSystem();
    const bucket = recordingBucket(clock);
    const first = await started({ clock, fs, bucket });
    // 3.5h of data: the head compaction tick cuts the first 2h range into a block.
    const samples: [number, number][] = [];
    for (let t = START; t < START + 3.5 * HOUR; t += 5 * 60_000) samples.push([t, t % 97]);
    await push(first, 't1', ...samples);
    await advance(first, 2 * 60_000);
    const blocks = await localBlocks(first, 't1');
    expect(blocks).toHaveLength(1);
    expect(await bucketBlocks(first, 't1')).toEqual(blocks);
    expect(await shipperMetric(first, 'uploads_total')).toBe(1);
    expect(await shipperMetric(first, 'dir_syncs_total')).toBeGreaterThanOrEqual(1);
    expect(await oldestUnshipped(first)).toBe(0);
    await first.ingester.stop();

    const uploads = bucket.uploads().length;
    const second = await started({ clock, fs, bucket, store: first.store });
    await advance(second, 5 * 60_000);
    expect(bucket.uploads().length).toBe(uploads);
    expect(second.ingester.shipping?.isShipped('t1', blocks[0] as string)).toBe(true);
    await second.ingester.stop();
  });

  it('does not ship while the instance is still JOINING', async () => {
    const clock = new ManualClock(START);
    const h = await buildHarness({
      clock,
      fs: new DiskFileSystem(),
      logger: new CapturingLogger(),
      bucket: recordingBucket(clock),
      config: { lifecycler: { joinAfterMs: 10 * 60_000 } },
    });
    await h.ingester.start(new AbortController().signal);
    await h.ingester.dbs.getOrCreate('t1');
    await clock.advance(3 * 60_000);
    await h.ingester.shipping?.ship();
    expect(h.ingester.lifecycler?.instanceState).toBe('PENDING');
    expect(await metricValue(h.metrics, 'cortex_ingester_shipper_dir_syncs_total')).toBe(0);
    await h.ingester.stop();
  });
});
