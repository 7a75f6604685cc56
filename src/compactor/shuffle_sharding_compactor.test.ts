// Compactors on a shared ring with the shuffle-sharding strategy: which of them compact a
// tenant, how they split its groups, and the ring's auto-forget and startup stability wait.
import { describe, expect, it } from 'vitest';
import { DiskFileSystem } from '../../sim/testing/index.js';
import { JSON_RING_CODEC, emptyRingDesc } from '../ring/index.js';
import { MemoryKV, MemoryKVStore, type KV } from '../runtime/index.js';
import type { BlockMeta } from '../tsdb/index.js';
import {
  DAY0,
  HOUR,
  compactionWorld,
  liveBlocks,
  type CompactionWorld,
} from './compaction_harness.testing.js';
import { Compactor, type CompactorConfig } from './compactor.js';
import { inTenantShard } from './compactor_ring.js';
import { COMPACTOR_RING_KEY } from './ownership.js';
import {
  GatedBucket,
  MANUAL_COMPACTION,
  downloadedBlocks,
  shipReplicatedRanges,
} from './shuffle_sharding.testing.js';

const MINUTE = 60_000;

function compactor(
  w: CompactionWorld,
  kv: KV,
  name: string,
  shardSize: number,
  over: Partial<CompactorConfig> = {},
): { c: Compactor; bucket: GatedBucket } {
  const bucket = new GatedBucket(w.inner);
  const c = new Compactor(
    {
      dataDir: `/data/${name}`,
      cleanupIntervalMs: 100_000 * HOUR,
      cleanupConcurrency: 4,
      deletionDelayMs: 12 * HOUR,
      shardingEnabled: true,
      shardingStrategy: 'shuffle-sharding',
      compaction: MANUAL_COMPACTION,
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
      clock: w.clock,
      random: w.random,
      logger: w.logger,
      metrics: w.metrics,
      fs: new DiskFileSystem(),
      kv,
      tenantShardSize: () => shardSize,
    },
  );
  return { c, bucket };
}

async function startAll(w: CompactionWorld, cs: readonly Compactor[]): Promise<void> {
  const started = cs.map((c) => c.start(new AbortController().signal));
  await w.clock.advance(1_000);
  await Promise.all(started);
}

const kvFor = (): KV => new MemoryKV({}, { store: new MemoryKVStore() });
const sorted = (metas: readonly BlockMeta[]): string[] => metas.map((m) => m.ulid).sort();

describe('compactor: shuffle-sharding strategy', () => {
  it('compacts a tenant on the 2 compactors of its shard, on disjoint groups', async () => {
    const w = compactionWorld();
    const kv = kvFor();
    const all = ['c-0', 'c-1', 'c-2'].map((n) => compactor(w, kv, n, 2));
    await startAll(
      w,
      all.map((x) => x.c),
    );
    const members = all.filter((x) => x.c.ownsTenantForCompaction('t'));
    expect(members).toHaveLength(2);
    // Cleaning stays with the single fnv owner, as in Cortex.
    expect(all.filter((x) => x.c.ownsTenant('t'))).toHaveLength(1);
    const [first, second] = members as [(typeof all)[0], (typeof all)[0]];
    const outsider = all.find((x) => !members.includes(x)) as (typeof all)[0];

    const [a, b] = (await shipReplicatedRanges(w, 't', [DAY0, DAY0 + 2 * HOUR])) as [
      BlockMeta[],
      BlockMeta[],
    ];
    first.bucket.hold();
    const firstRun = first.c.runCompaction(new AbortController().signal);
    await first.bucket.reached;
    const secondRun = await second.c.runCompaction(new AbortController().signal);
    expect(secondRun?.succeeded).toEqual(['t']);
    const outsiderRun = await outsider.c.runCompaction(new AbortController().signal);
    expect(outsiderRun?.skipped).toEqual(['t']);
    first.bucket.release();
    expect((await firstRun)?.succeeded).toEqual(['t']);

    const sources = new Set([...sorted(a), ...sorted(b)]);
    const got = (x: (typeof all)[0]): string[] =>
      [...downloadedBlocks(x.bucket)].filter((id) => sources.has(id)).sort();
    expect(got(first)).toEqual(sorted(a));
    expect(got(second)).toEqual(sorted(b));
    expect(downloadedBlocks(outsider.bucket).size).toBe(0);
    const live = await liveBlocks(w, 't');
    expect(live).toHaveLength(1);
    expect(live[0]?.compaction.sources.sort()).toEqual([...sources].sort());
    for (const x of all) await x.c.stop();
  });

  it('puts every compactor in the shard when the shard size is 0', async () => {
    const w = compactionWorld();
    const kv = kvFor();
    const all = ['c-0', 'c-1', 'c-2'].map((n) => compactor(w, kv, n, 0));
    await startAll(
      w,
      all.map((x) => x.c),
    );
    for (const t of ['t', 'u', 'v']) {
      expect(all.every((x) => x.c.ownsTenantForCompaction(t))).toBe(true);
    }
    const ring = all[0]?.c.ring;
    if (ring === undefined) throw new Error('no ring');
    const now = w.clock.now();
    // Shard size 1: exactly one member, the same one whichever compactor asks.
    const owners = ['c-0', 'c-1', 'c-2'].filter((n) =>
      inTenantShard(ring, 't', 1, `${n}:9095`, now),
    );
    expect(owners).toHaveLength(1);
    for (const x of all) await x.c.stop();
  });

  it('keeps the default strategy to one compactor per tenant', async () => {
    const w = compactionWorld();
    const kv = kvFor();
    const all = ['c-0', 'c-1', 'c-2'].map((n) =>
      compactor(w, kv, n, 2, { shardingStrategy: 'default' }),
    );
    await startAll(
      w,
      all.map((x) => x.c),
    );
    for (const t of ['t', 'u', 'v', 'w']) {
      expect(all.filter((x) => x.c.ownsTenantForCompaction(t))).toHaveLength(1);
    }
    for (const x of all) await x.c.stop();
  });

  it('forgets compactors whose heartbeat is older than the auto-forget delay', async () => {
    const w = compactionWorld();
    const kv = kvFor();
    await kv.cas(COMPACTOR_RING_KEY, () => {
      const desc = emptyRingDesc();
      desc.ingesters['dead'] = {
        addr: 'dead:9095',
        timestamp: Math.floor(w.clock.now() / 1000) - 60,
        state: 'ACTIVE',
        tokens: [1, 2, 3],
        zone: '',
        registeredTimestamp: 1,
      };
      return JSON_RING_CODEC.encode(desc);
    });
    const { c } = compactor(w, kv, 'c-0', 0, {
      ring: {
        instanceId: 'c-0',
        instanceAddr: 'c-0:9095',
        heartbeatPeriodMs: 5_000,
        heartbeatTimeoutMs: MINUTE,
        numTokens: 512,
        autoForgetDelayMs: 2 * MINUTE,
      },
    });
    await startAll(w, [c]);
    const ids = async (): Promise<string[]> =>
      Object.keys(JSON_RING_CODEC.decode(await kv.get(COMPACTOR_RING_KEY)).ingesters).sort();
    await w.clock.advance(30_000);
    expect(await ids()).toEqual(['c-0', 'dead']);
    await w.clock.advance(40_000);
    expect(await ids()).toEqual(['c-0']);
    await c.stop();
  });

  it('waits at startup until the ring has been stable for the minimum duration', async () => {
    const w = compactionWorld();
    const kv = kvFor();
    const waitRing = {
      heartbeatPeriodMs: 5_000,
      heartbeatTimeoutMs: MINUTE,
      numTokens: 512,
      waitStabilityMinDurationMs: MINUTE,
      waitStabilityMaxDurationMs: 5 * MINUTE,
    };
    const { c } = compactor(w, kv, 'c-0', 0, {
      ring: { ...waitRing, instanceId: 'c-0', instanceAddr: 'c-0:9095' },
    });
    let running = false;
    const started = c.start(new AbortController().signal).then(() => (running = true));
    await w.clock.advance(30_000);
    // A second compactor joins half-way: the minute starts again.
    const { c: late } = compactor(w, kv, 'c-1', 0, {
      ring: { ...waitRing, instanceId: 'c-1', instanceAddr: 'c-1:9095' },
    });
    const lateStarted = late.start(new AbortController().signal);
    await w.clock.advance(45_000);
    expect(running).toBe(false);
    await w.clock.advance(30_000);
    expect(running).toBe(true);
    await started;
    await w.clock.advance(MINUTE);
    await lateStarted;
    await c.stop();
    await late.stop();
  });
});
