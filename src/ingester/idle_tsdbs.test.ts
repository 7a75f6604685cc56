// Closing and deleting tenants' databases in the ingester: tenants marked for deletion at
// once (whatever is not shipped: it is meant to go), idle ones only with
// close_idle_tsdb_timeout and only once everything is in the bucket where queriers find it.
import { afterEach, describe, expect, it } from 'vitest';
import { DiskFileSystem } from '../../sim/testing/index.js';
import { BucketIndexUpdater, writeBucketIndex, writeTenantDeletionMark } from '../bucket/index.js';
import { Labels, Matcher } from '../model/index.js';
import { CapturingLogger, ManualClock } from '../runtime/testing/index.js';
import { UnavailableError } from '../server/index.js';
import { QUERIER_INDEX_CHECK_MS } from './block_discovery.js';
import { DEFAULT_CLOSE_IDLE_TSDB_INTERVAL_MS } from './idle_tsdbs.js';
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
import type { PushSeries } from './push_types.js';
import { REMOVED_TENANT_DIR_PREFIX } from './tenant_removal.js';
import { toWireMatchers } from './wire.js';

const ALL = toWireMatchers([Matcher.regex('__name__', '.+')]);
const SYNC = 60_000;
/** How long a shipped block must be in the bucket index before queriers are sure to find it. */
const GRACE = 3 * SYNC + SYNC + QUERIER_INDEX_CHECK_MS;

interface Started extends Harness {
  clock: ManualClock;
  fs: DiskFileSystem;
  bucket: RecordingBucket;
  logger: CapturingLogger;
}

const running: Started[] = [];
afterEach(async () => {
  for (const h of running.splice(0)) await h.ingester.stop();
});

async function started(o: { idleTimeout?: number; fs?: DiskFileSystem } = {}): Promise<Started> {
  const clock = new ManualClock(START);
  const fs = o.fs ?? new DiskFileSystem();
  const bucket = recordingBucket(clock);
  const logger = new CapturingLogger();
  const h = await buildHarness({
    clock,
    fs,
    logger,
    bucket,
    config: {
      tenantDBs: {
        dir: '/data/tsdb',
        blockRanges: [2 * HOUR],
        retention: 6 * HOUR,
        headCompactionInterval: 60_000,
        headCompactionConcurrency: 2,
        openingConcurrency: 2,
        stripeSize: 16,
        walCompression: false,
        shipInterval: 60_000,
        shipConcurrency: 2,
        closeIdleTimeout: o.idleTimeout ?? 0,
        discovery: {
          bucketIndexEnabled: true,
          syncIntervalMs: SYNC,
          consistencyDelayMs: 0,
          updateOnErrorIntervalMs: SYNC,
        },
      },
    },
  });
  await h.ingester.start(new AbortController().signal);
  await clock.advance(0);
  const s = { ...h, clock, fs, bucket, logger };
  running.push(s);
  return s;
}

async function push(h: Started, tenant: string, ...samples: [number, number][]): Promise<void> {
  await h.client.push(INGESTER_ADDR, tenant, batch(series('up', {}, ...samples)), 'api');
}

const query = (h: Started, tenant: string): Promise<string[]> =>
  h.client
    .queryStream(INGESTER_ADDR, tenant, {
      start: START - HOUR,
      end: START + 3 * HOUR,
      matchers: ALL,
    })
    .then(lines);

const closer = (h: Started) => {
  const c = h.ingester.idleCloser;
  if (c === undefined) throw new Error('no idle closer');
  return c;
};

const checks = (h: Started, result: string): Promise<number> =>
  h.metrics
    .getSingleMetric('cortex_ingester_idle_tsdb_checks_total')
    ?.get()
    .then((m) => m.values.find((v) => v.labels.result === result)?.value ?? -1) ??
  Promise.resolve(-1);

async function markDeleted(h: Started, tenant: string): Promise<void> {
  await writeTenantDeletionMark(h.bucket.inner, tenant, { deletion_time: START / 1000 });
}

async function dataDirs(h: Started): Promise<string[]> {
  return h.fs.readdir('/data/tsdb');
}

describe('ingester: tenants marked for deletion', () => {
  it('stop shipping and have their TSDB closed and deleted, unshipped data included; others stay', async () => {
    const h = await started();
    await push(h, 'gone', [START, 1]);
    await push(h, 'kept', [START, 2]);
    await h.ingester.dbs.flush(['gone'], true); // a block, not shipped yet
    await markDeleted(h, 'gone');
    await h.ingester.shipping?.ship();
    expect(h.ingester.shipping?.isMarkedForDeletion('gone')).toBe(true);
    expect(await h.bucket.inner.list('gone/')).toEqual([]);
    expect(h.logger.find('tenant deletion mark exists, not shipping blocks')).toHaveLength(1);

    const results = await closer(h).closeIdle();
    expect(Object.fromEntries(results)).toEqual({
      gone: 'tenant_marked_for_deletion',
      kept: 'not_idle',
    });
    expect(await dataDirs(h)).toEqual(['kept']);
    expect(h.ingester.dbs.tenantIds()).toEqual(['kept']);
    expect(await query(h, 'gone')).toEqual([]);
    expect(await query(h, 'kept')).toEqual([`{__name__="up"} ${START}=2`]);
    expect(h.ingester.userStats('gone').numSeries).toBe(0);
    expect(await checks(h, 'tenant_marked_for_deletion')).toBe(1);
    expect(await checks(h, 'not_idle')).toBe(1);
    expect(await checks(h, 'idle_closed')).toBe(0);
    expect(
      h.logger.find('deleted local TSDB, user marked for deletion', 'info')[0]?.fields,
    ).toMatchObject({ user: 'gone' });
  });

  it('runs on its own every 5 minutes once a shipping run saw the mark', async () => {
    const h = await started();
    await push(h, 'gone', [START, 1]);
    await markDeleted(h, 'gone');
    await h.clock.advance(60_000); // ship tick: sees the mark
    await h.ingester.shipping?.ship([]);
    expect(await dataDirs(h)).toEqual(['gone']);
    await h.clock.advance(DEFAULT_CLOSE_IDLE_TSDB_INTERVAL_MS - 60_000);
    await h.ingester.idleCloser?.stop(); // waits for the pass the tick started
    expect(await dataDirs(h)).toEqual([]);
  });

  it('a later push creates a fresh database, which is deleted again while the mark exists', async () => {
    const h = await started();
    await push(h, 'gone', [START, 1]);
    await markDeleted(h, 'gone');
    await h.ingester.shipping?.ship();
    await closer(h).closeIdle();
    expect(await dataDirs(h)).toEqual([]);

    await push(h, 'gone', [START + 60_000, 5]);
    expect(await query(h, 'gone')).toEqual([`{__name__="up"} ${START + 60_000}=5`]);
    expect(h.ingester.shipping?.isMarkedForDeletion('gone')).toBe(false); // not checked yet
    await h.ingester.shipping?.ship(); // looks for the mark again at once
    expect(h.ingester.shipping?.isMarkedForDeletion('gone')).toBe(true);
    expect(Object.fromEntries(await closer(h).closeIdle())).toEqual({
      gone: 'tenant_marked_for_deletion',
    });
    expect(await dataDirs(h)).toEqual([]);

    // Once the compactor removed the mark, the tenant is a tenant like any other again.
    await h.bucket.inner.delete('__markers__/gone/tenant-deletion-mark.json');
    await push(h, 'gone', [START + 120_000, 7]);
    await h.ingester.flush(['gone'], true);
    expect((await h.bucket.inner.list('gone/')).length).toBe(1);
  });
});

describe('ingester: idle TSDBs (close_idle_tsdb_timeout)', () => {
  async function indexBucket(h: Started, tenant: string): Promise<void> {
    const u = new BucketIndexUpdater(
      { tenant },
      { bucket: h.bucket.inner, clock: h.clock, logger: h.logger },
    );
    await writeBucketIndex(h.bucket.inner, tenant, (await u.update(undefined)).index);
  }

  it('closes an idle tenant only once its head is empty and every block is shipped and findable', async () => {
    const h = await started({ idleTimeout: HOUR });
    await push(h, 't', [START, 1]);
    expect((await closer(h).closeIdle()).get('t')).toBe('not_idle');
    await h.clock.advance(HOUR + 1);
    expect((await closer(h).closeIdle()).get('t')).toBe('not_compacted');

    h.bucket.failOn = (op) => op === 'upload';
    await h.ingester.flush(['t'], true);
    expect(closer(h).check('t')).toBe('not_shipped'); // the upload failed

    h.bucket.failOn = () => false;
    await h.ingester.shipping?.ship(['t']);
    expect(closer(h).check('t')).toBe('not_shipped'); // shipped, not in the bucket index yet
    await indexBucket(h, 't');
    await h.ingester.shipping?.ship(['t']);
    await h.clock.advance(GRACE - 1);
    expect(closer(h).check('t')).toBe('not_shipped');
    await h.clock.advance(1);
    expect((await closer(h).closeIdle()).get('t')).toBe('idle_closed');
    expect(await dataDirs(h)).toEqual([]);
    expect(h.logger.find('deleted local TSDB, due to being idle', 'info')).toHaveLength(1);
    expect(await checks(h, 'idle_closed')).toBe(1);
  });

  it('with the timeout at 0 (default) never closes an idle tenant, whatever its state', async () => {
    const h = await started();
    await push(h, 't', [START, 1]);
    await h.ingester.flush(['t'], true);
    await indexBucket(h, 't');
    await h.ingester.shipping?.ship(['t']);
    await h.clock.advance(3 * HOUR);
    expect((await closer(h).closeIdle()).get('t')).toBe('not_idle');
    expect(await dataDirs(h)).toEqual(['t']);
  });

  it('never deletes a block that is not in the bucket, however long the tenant is idle', async () => {
    const h = await started({ idleTimeout: HOUR });
    h.bucket.failOn = (op) => op === 'upload';
    await push(h, 't', [START, 1]);
    await h.ingester.flush(['t'], true);
    await h.clock.advance(3 * HOUR); // the loops ran meanwhile, the upload failing every minute
    await h.ingester.idleCloser?.stop();
    expect((await closer(h).closeIdle()).get('t')).toBe('not_shipped');
    expect(await dataDirs(h)).toEqual(['t']);
    expect(await query(h, 't')).toEqual([`{__name__="up"} ${START}=1`]);
    expect(await metricValue(h.metrics, 'cortex_ingester_idle_tsdb_checks_total')).toBeGreaterThan(
      0,
    );
  });
});

describe('TenantDBs.closeAndRemove', () => {
  it('refuses pushes while closing (503), then a push opens a fresh database', async () => {
    const h = await started();
    await push(h, 't', [START, 1]);
    const dbs = h.ingester.dbs;
    const closing = dbs.closeAndRemove('t', () => true);
    await expect(dbs.push('t', upSeries([START + 1, 2]))).rejects.toThrow(
      new UnavailableError('user=t: TSDB is closing'),
    );
    expect(dbs.get('t')).toBeUndefined();
    expect(await closing).toBe('removed');
    await dbs.push('t', upSeries([START + 2, 3]));
    expect(await query(h, 't')).toEqual([`{__name__="up"} ${START + 2}=3`]);
  });

  it('keeps the database when the check, made again once pushes settled, says no', async () => {
    const h = await started();
    await push(h, 't', [START, 1]);
    expect(await h.ingester.dbs.closeAndRemove('t', () => false)).toBe('declined');
    await push(h, 't', [START + 1, 2]);
    expect(await query(h, 't')).toEqual([`{__name__="up"} ${START}=1 ${START + 1}=2`]);
    expect(await h.ingester.dbs.closeAndRemove('nobody', () => true)).toBe('not_active');
  });

  it('finishes at startup a deletion a crash interrupted, without opening it as a tenant', async () => {
    const fs = new DiskFileSystem();
    await fs.mkdir(`/data/tsdb/${REMOVED_TENANT_DIR_PREFIX}t/wal`, { recursive: true });
    await fs.writeFile(`/data/tsdb/${REMOVED_TENANT_DIR_PREFIX}t/wal/00000000`, 'x');
    const h = await started({ fs });
    expect(await dataDirs(h)).toEqual([]);
    expect(h.ingester.dbs.tenantIds()).toEqual([]);
  });
});

/** One series `up` with the given samples, as TenantDBs.push takes it. */
function upSeries(...samples: [number, number][]): PushSeries[] {
  return [
    {
      labels: Labels.fromStrings('__name__', 'up'),
      samples: samples.map(([timestamp, value]) => ({ timestamp, value })),
    },
  ];
}
