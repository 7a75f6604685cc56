import { describe, expect, it } from 'vitest';
import { DiskFileSystem } from '../../sim/testing/index.js';
import {
  createSeededRandom,
  MemoryKV,
  MemoryKVStore,
  newMetricsRegistry,
  type KV,
} from '../runtime/index.js';
import { CapturingLogger } from '../runtime/testing/index.js';
import {
  DAY0,
  DEFAULT_COMPACTION,
  HOUR,
  compactionWorld,
  liveBlocks,
  metric,
  shipBlock,
  signal,
  testSeries,
  type CompactionWorld,
} from './compaction_harness.testing.js';
import { Compactor } from './compactor.js';

const MINUTE = 60_000;

async function replicas(w: CompactionWorld, tenant: string): Promise<void> {
  for (const ing of ['ingester-0', 'ingester-1', 'ingester-2']) {
    await shipBlock(w, tenant, ing, testSeries(3, DAY0, DAY0 + 2 * HOUR), {
      minTime: DAY0,
      maxTime: DAY0 + 2 * HOUR,
    });
  }
}

function compactor(w: CompactionWorld, name: string, kv?: KV, fs = new DiskFileSystem()) {
  const metrics = newMetricsRegistry();
  const c = new Compactor(
    {
      dataDir: `/data/${name}`,
      cleanupIntervalMs: 15 * MINUTE,
      cleanupConcurrency: 4,
      deletionDelayMs: 12 * HOUR,
      shardingEnabled: kv !== undefined,
      ring: {
        instanceId: name,
        instanceAddr: `${name}:9095`,
        heartbeatPeriodMs: 5_000,
        heartbeatTimeoutMs: MINUTE,
        numTokens: 512,
      },
      compaction: DEFAULT_COMPACTION,
    },
    {
      bucket: w.bucket,
      clock: w.clock,
      random: createSeededRandom(`compactor-${name}`),
      logger: new CapturingLogger(),
      metrics,
      fs,
      ...(kv === undefined ? {} : { kv }),
    },
  );
  return { c, metrics };
}

describe('Compactor with compaction', () => {
  it('cleans while starting, wipes stale work, compacts within 10% of the interval, and stops cleanly', async () => {
    const w = compactionWorld();
    await replicas(w, 'a');
    // What a compactor killed mid-compaction leaves behind: a half-downloaded group of this
    // tenant and the work of a tenant that has since left the bucket.
    const fs = new DiskFileSystem();
    const stale = [
      '/data/solo/compact/a/0@17241709254077376921/01ARZ3NDEKTSV4RRFFQ69G5FAV/chunks',
      '/data/solo/compact/gone/0@1/01ARZ3NDEKTSV4RRFFQ69G5FAW',
    ];
    for (const dir of stale) await fs.mkdir(dir, { recursive: true });
    await fs.writeFile(`${stale[0]}/000001`, new Uint8Array([1, 2, 3]));
    const { c, metrics } = compactor(w, 'solo', undefined, fs);
    await c.start(signal());
    expect(await liveBlocks(w, 'a')).toHaveLength(3);
    expect(
      await metric(metrics, 'cortex_compactor_block_cleanup_completed_total', {
        user_status: 'active',
      }),
    ).toBe(1);
    // Step a minute at a time (each step lets the loop reach its timer) until the first run
    // has completed: within 10% of the 1h interval.
    let minutes = 0;
    while ((await metric(metrics, 'cortex_compactor_runs_completed_total')) === 0) {
      expect(minutes).toBeLessThan(7);
      await w.clock.advance(MINUTE);
      await c.idle();
      minutes++;
    }
    expect(await metric(metrics, 'cortex_compactor_runs_started_total')).toBe(1);
    expect((await liveBlocks(w, 'a')).map((b) => b.compaction.level)).toEqual([2]);
    // The stale work is gone and the run left nothing of its own behind.
    expect(await fs.exists('/data/solo/compact/gone')).toBe(false);
    expect(await fs.exists('/data/solo/compact/a')).toBe(false);
    expect(await fs.exists('/data/solo')).toBe(true);
    await c.stop();
    expect(c.state).toBe('Terminated');
    expect(w.clock.pendingTimers).toBe(0);
  });

  it('with sharding, each tenant is compacted by its owner only', async () => {
    const w = compactionWorld();
    const tenants = Array.from({ length: 8 }, (_, i) => `tenant-${i}`);
    for (const t of tenants) await replicas(w, t);
    const kv = new MemoryKV({}, { store: new MemoryKVStore() });
    const a = compactor(w, 'a', kv);
    const b = compactor(w, 'b', kv);
    for (const x of [a, b]) {
      const started = x.c.start(signal());
      await w.clock.advance(1_000);
      await started;
    }
    const ra = await a.c.runCompaction(signal());
    const rb = await b.c.runCompaction(signal());
    expect(ra?.succeeded.length).toBeGreaterThan(0);
    expect(rb?.succeeded.length).toBeGreaterThan(0);
    expect([...(ra?.succeeded ?? []), ...(rb?.succeeded ?? [])].sort()).toEqual(tenants);
    for (const t of tenants) {
      expect((await liveBlocks(w, t)).map((m) => m.compaction.level)).toEqual([2]);
      expect(ra?.succeeded.includes(t)).toBe(a.c.ownsTenant(t));
    }
    await a.c.stop();
    await b.c.stop();
  });
});
