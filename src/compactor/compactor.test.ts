import { describe, expect, it } from 'vitest';
import { DiskFileSystem } from '../../sim/testing/index.js';
import { bucketIndexPath, readBucketIndex } from '../bucket/index.js';
import { RecordingBucket, testUlid, uploadTestBlock } from '../bucket/testing.js';
import {
  createSeededRandom,
  MemoryBucket,
  MemoryKV,
  MemoryKVStore,
  newMetricsRegistry,
  type KV,
} from '../runtime/index.js';
import { CapturingLogger, ManualClock } from '../runtime/testing/index.js';
import { Compactor, type CompactorConfig } from './compactor.js';

const T0 = 1_700_000_000_000;
const MINUTE = 60_000;
const id = (n: number): string => testUlid(T0 - 86_400_000, n);
const tenants = Array.from({ length: 24 }, (_, i) => `tenant-${i}`);

interface Shared {
  clock: ManualClock;
  inner: MemoryBucket;
  kv: KV;
  fs: DiskFileSystem;
}

function shared(): Shared {
  const clock = new ManualClock(T0);
  return {
    clock,
    inner: new MemoryBucket({ clock }),
    kv: new MemoryKV({}, { store: new MemoryKVStore() }),
    fs: new DiskFileSystem(),
  };
}

function compactor(
  s: Shared,
  name: string,
  over: Partial<CompactorConfig> = {},
): { c: Compactor; bucket: RecordingBucket } {
  const bucket = new RecordingBucket(s.inner);
  const c = new Compactor(
    {
      dataDir: `/data/${name}`,
      cleanupIntervalMs: 15 * MINUTE,
      cleanupConcurrency: 20,
      deletionDelayMs: 12 * 60 * MINUTE,
      shardingEnabled: true,
      ring: {
        instanceId: name,
        instanceAddr: `${name}:9095`,
        heartbeatPeriodMs: 5_000,
        heartbeatTimeoutMs: MINUTE,
        numTokens: 512,
      },
      ...over,
    },
    {
      bucket,
      clock: s.clock,
      random: createSeededRandom(`compactor-${name}`),
      logger: new CapturingLogger(),
      metrics: newMetricsRegistry(),
      fs: s.fs,
      kv: s.kv,
    },
  );
  return { c, bucket };
}

async function start(s: Shared, c: Compactor): Promise<void> {
  const started = c.start(new AbortController().signal);
  await s.clock.advance(1_000);
  await started;
}

/** Tenants whose bucket index this compactor wrote since the last call. */
function cleanedSince(bucket: RecordingBucket): string[] {
  const out = bucket
    .names('upload')
    .filter((n) => n.endsWith('bucket-index.json.gz'))
    .map((n) => n.split('/')[0] as string);
  bucket.calls.length = 0;
  return out.sort();
}

describe('Compactor', () => {
  it('without sharding cleans every tenant at start, then every cleanup interval', async () => {
    const s = shared();
    await uploadTestBlock(s.inner, 'a', id(1));
    const { c } = compactor(s, 'solo', { shardingEnabled: false });
    await c.start(new AbortController().signal);
    expect(c.state).toBe('Running');
    expect(c.ring).toBeUndefined();
    expect(await s.fs.exists('/data/solo')).toBe(true);
    expect((await readBucketIndex(s.inner, 'a')).blocks).toHaveLength(1);
    await uploadTestBlock(s.inner, 'a', id(2));
    await s.clock.advance(15 * MINUTE - 1);
    expect((await readBucketIndex(s.inner, 'a')).blocks).toHaveLength(1);
    await s.clock.advance(1);
    await c.idle();
    expect((await readBucketIndex(s.inner, 'a')).blocks).toHaveLength(2);
    await c.stop();
    expect(c.state).toBe('Terminated');
    expect(s.clock.pendingTimers).toBe(0);
  });

  it('with sharding, joins the ring and each tenant is cleaned by exactly one compactor', async () => {
    const s = shared();
    for (const t of tenants) await uploadTestBlock(s.inner, t, id(1));
    const a = compactor(s, 'a');
    const b = compactor(s, 'b');
    await start(s, a.c);
    // Alone in the ring, a owns everything.
    expect(cleanedSince(a.bucket)).toEqual([...tenants].sort());
    await start(s, b.c);
    const ring = a.c.ring;
    expect(Object.keys(ring?.desc().ingesters ?? {}).sort()).toEqual(['a', 'b']);
    expect(ring?.desc().ingesters.b?.tokens).toHaveLength(512);
    expect(ring?.desc().ingesters.b?.state).toBe('ACTIVE');
    cleanedSince(a.bucket);
    cleanedSince(b.bucket);

    await s.clock.advance(15 * MINUTE);
    await Promise.all([a.c.idle(), b.c.idle()]);
    const byA = cleanedSince(a.bucket);
    const byB = cleanedSince(b.bucket);
    expect(byA.length).toBeGreaterThan(0);
    expect(byB.length).toBeGreaterThan(0);
    expect([...byA, ...byB].sort()).toEqual([...tenants].sort());
    for (const t of tenants) {
      expect(byA.includes(t) !== byB.includes(t)).toBe(true);
      expect(a.c.ownsTenant(t)).toBe(byA.includes(t));
    }

    // b leaves the ring on shutdown; a takes its tenants at its next cleanup.
    await b.c.stop();
    expect(Object.keys(a.c.ring?.desc().ingesters ?? {})).toEqual(['a']);
    await s.clock.advance(15 * MINUTE);
    await a.c.idle();
    expect(cleanedSince(a.bucket)).toEqual([...tenants].sort());
    await a.c.stop();
    for (const t of tenants) expect(await s.inner.exists(bucketIndexPath(t))).toBe(true);
  });

  it('refuses sharding without a KV store', () => {
    const s = shared();
    expect(
      () =>
        new Compactor(
          {
            dataDir: '/d',
            cleanupIntervalMs: MINUTE,
            cleanupConcurrency: 1,
            deletionDelayMs: 0,
            shardingEnabled: true,
            ring: {
              instanceId: 'x',
              instanceAddr: 'x',
              heartbeatPeriodMs: 1,
              heartbeatTimeoutMs: 1,
              numTokens: 1,
            },
          },
          {
            bucket: s.inner,
            clock: s.clock,
            random: createSeededRandom('x'),
            logger: new CapturingLogger(),
            metrics: newMetricsRegistry(),
            fs: s.fs,
          },
        ),
    ).toThrow(/no KV store/);
  });
});
