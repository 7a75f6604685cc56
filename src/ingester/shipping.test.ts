import { describe, expect, it } from 'vitest';
import { DiskFileSystem } from '../../sim/testing/index.js';
import { tenantDeletionMarkPath, legacyTenantDeletionMarkPath } from '../bucket/index.js';
import { createSeededRandom } from '../runtime/index.js';
import { CapturingLogger, ManualClock } from '../runtime/testing/index.js';
import {
  HOUR,
  START,
  localBlock,
  metricValue,
  newMetricsRegistry,
  recordingBucket,
  type RecordingBucket,
} from './shipper_harness.testing.js';
import { BlockShipping, DELETION_MARK_CHECK_INTERVAL, jittered } from './shipping.js';
import { DEFAULT_BLOCK_DISCOVERY, type BlockDiscoveryConfig } from './block_discovery.js';

const ROOT = '/data/tsdb';

interface Setup {
  fs: DiskFileSystem;
  clock: ManualClock;
  bucket: RecordingBucket;
  logger: CapturingLogger;
  registry: ReturnType<typeof newMetricsRegistry>;
  shipping: BlockShipping;
  tenants: string[];
  ring: { state: string | undefined };
}

async function setup(
  tenants: string[],
  over: { concurrency?: number; interval?: number; discovery?: BlockDiscoveryConfig } = {},
): Promise<Setup> {
  const fs = new DiskFileSystem();
  const clock = new ManualClock(START + 10 * HOUR);
  const bucket = recordingBucket(clock);
  const logger = new CapturingLogger();
  const registry = newMetricsRegistry();
  const ring = { state: 'ACTIVE' as string | undefined };
  const shipping = new BlockShipping(
    {
      interval: over.interval ?? 60_000,
      concurrency: over.concurrency ?? 10,
      ingesterId: 'ing-1',
      discovery: over.discovery ?? DEFAULT_BLOCK_DISCOVERY,
    },
    {
      bucket,
      fs,
      clock,
      random: createSeededRandom('shipping-test'),
      logger,
      metrics: registry,
      tenants: () => tenants,
      ringState: () => ring.state,
    },
  );
  for (const t of tenants) {
    await localBlock(fs, `${ROOT}/${t}`, t, START);
    await shipping.openTenant(t, `${ROOT}/${t}`);
  }
  return { fs, clock, bucket, logger, registry, shipping, tenants, ring };
}

/** Tenants with a meta.json in the bucket. */
async function shippedTenants(s: Setup): Promise<string[]> {
  const names = await s.bucket.inner.list('', { recursive: true });
  return [...new Set(names.filter((n) => n.endsWith('/meta.json')).map((n) => n.split('/')[0]))]
    .filter((t): t is string => t !== undefined)
    .sort();
}

describe('BlockShipping', () => {
  it('ships every tenant, at most ship_concurrency at a time', async () => {
    const tenants = ['t1', 't2', 't3', 't4', 't5'];
    const s = await setup(tenants, { concurrency: 2 });
    await s.shipping.ship();
    expect(await shippedTenants(s)).toEqual(tenants);
    expect(s.bucket.maxConcurrentTenants).toBe(2);
    const wide = await setup(tenants, { concurrency: 10 });
    await wide.shipping.ship();
    expect(wide.bucket.maxConcurrentTenants).toBeGreaterThan(2);
  });

  it('ships only the tenants asked for (flush of some tenants)', async () => {
    const s = await setup(['t1', 't2', 't3']);
    await s.shipping.ship(['t2', 'unknown']);
    expect(await shippedTenants(s)).toEqual(['t2']);
  });

  it('ships nothing while the instance is PENDING or JOINING', async () => {
    const s = await setup(['t1']);
    for (const state of ['PENDING', 'JOINING']) {
      s.ring.state = state;
      await s.shipping.ship();
      expect(s.bucket.ops).toEqual([]);
    }
    expect(
      s.logger
        .find('skipped because of the current ingester state', 'info')
        .map((l) => l.fields.state),
    ).toEqual(['PENDING', 'JOINING']);
    s.ring.state = 'LEAVING';
    await s.shipping.ship();
    expect(await shippedTenants(s)).toEqual(['t1']);
  });

  it('skips a tenant with a deletion mark, looking for it at most once an hour', async () => {
    const s = await setup(['t1', 't2']);
    const markChecks = () =>
      s.bucket.ops.filter((o) => o.startsWith('exists') && o.includes('tenant-deletion-mark'));
    await s.shipping.ship();
    // Both tenants were checked (global mark, then the legacy place), both shipped.
    expect([...markChecks()].sort()).toEqual(
      [
        `exists ${tenantDeletionMarkPath('t1')}`,
        `exists ${tenantDeletionMarkPath('t2')}`,
        `exists ${legacyTenantDeletionMarkPath('t1')}`,
        `exists ${legacyTenantDeletionMarkPath('t2')}`,
      ].sort(),
    );
    expect(await shippedTenants(s)).toEqual(['t1', 't2']);

    // t2 gets marked and gets a new block; within the hour nobody looks again.
    await s.bucket.inner.upload(tenantDeletionMarkPath('t2'), new TextEncoder().encode('{}'));
    const fresh = await localBlock(s.fs, `${ROOT}/t2`, 't2', START + 2 * HOUR);
    await s.clock.advance(DELETION_MARK_CHECK_INTERVAL / 2);
    const before = markChecks().length;
    await s.shipping.ship();
    expect(markChecks().length).toBe(before);
    expect(s.shipping.isShipped('t2', fresh.ulid)).toBe(true);

    // After the hour the mark is found: t2 ships nothing more, and is never asked again.
    const another = await localBlock(s.fs, `${ROOT}/t2`, 't2', START + 4 * HOUR);
    await s.clock.advance(DELETION_MARK_CHECK_INTERVAL);
    await s.shipping.ship();
    expect(s.shipping.isShipped('t2', another.ulid)).toBe(false);
    expect(s.logger.find('tenant deletion mark exists', 'info')).toHaveLength(1);
    const t2Checks = () => markChecks().filter((o) => o.includes('/t2/')).length;
    const checksAfterFound = t2Checks();
    await s.clock.advance(2 * DELETION_MARK_CHECK_INTERVAL);
    await s.shipping.ship();
    expect(t2Checks()).toBe(checksAfterFound);
    expect(s.shipping.isShipped('t2', another.ulid)).toBe(false);
  });

  it('finds a deletion mark in the legacy place too', async () => {
    const s = await setup(['t1']);
    await s.bucket.inner.upload(legacyTenantDeletionMarkPath('t1'), new TextEncoder().encode('{}'));
    await s.shipping.ship();
    expect(await shippedTenants(s)).toEqual([]);
  });

  it('ships when the deletion-mark check fails (logged)', async () => {
    const s = await setup(['t1']);
    s.bucket.failOn = (op, name) => op === 'exists' && name.includes('tenant-deletion-mark');
    await s.shipping.ship();
    expect(await shippedTenants(s)).toEqual(['t1']);
    expect(s.logger.find('failed to check for tenant deletion mark', 'warn')).toHaveLength(1);
  });

  it('runs every ship interval (±1%) once started, and not after stop', async () => {
    const s = await setup(['t1'], { interval: 100_000 });
    s.shipping.start();
    await s.clock.advance(98_999);
    expect(s.bucket.ops).toEqual([]);
    await s.clock.advance(2_002);
    await s.shipping.ship([]); // waits for the tick's run
    expect(await shippedTenants(s)).toEqual(['t1']);
    const ops = s.bucket.ops.length;
    s.shipping.stop();
    await s.clock.advance(500_000);
    expect(s.bucket.ops.length).toBe(ops);
    expect(s.clock.pendingTimers).toBe(0);
  });

  it('serializes runs: an on-demand run waits for the one in progress', async () => {
    const s = await setup(['t1']);
    const first = s.shipping.ship();
    const second = s.shipping.ship();
    await Promise.all([first, second]);
    // One upload of the block, then the second run found it recorded.
    expect(s.bucket.uploads().filter((n) => n.endsWith('meta.json'))).toHaveLength(1);
    expect(await metricValue(s.registry, 'cortex_ingester_shipper_dir_syncs_total')).toBe(2);
  });

  it('ignores requests once closed', async () => {
    const s = await setup(['t1']);
    await s.shipping.close();
    await s.shipping.ship();
    expect(s.bucket.ops).toEqual([]);
  });

  it('jitters the interval by at most 1%', () => {
    const random = createSeededRandom('jitter').stream('x');
    for (let i = 0; i < 200; i++) {
      const d = jittered(60_000, random);
      expect(d).toBeGreaterThanOrEqual(59_400);
      expect(d).toBeLessThan(60_600);
    }
    expect(jittered(50, random)).toBe(50);
  });
});
