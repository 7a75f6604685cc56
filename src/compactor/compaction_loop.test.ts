import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Labels } from '../model/index.js';
import type { BlockMeta, BlockSeriesInput } from '../tsdb/index.js';
import {
  DAY0,
  HOUR,
  compactionWorld,
  liveBlocks,
  loopFor,
  metric,
  readBucketBlock,
  shipBlock,
  signal,
  testSeries,
} from './compaction_harness.testing.js';

const MINUTE = 60_000;

describe('compaction loop: schedule', () => {
  it('first runs within 10% of the interval, then every interval plus up to 10%, until stopped', async () => {
    const w = compactionWorld();
    await w.fs.mkdir('/data/compact/stale/0@1/01ARZ3NDEKTSV4RRFFQ69G5FAV', { recursive: true });
    const loop = loopFor(w);
    const ac = new AbortController();
    const started = w.clock.now();
    const running = loop.run(ac.signal);
    const runs = () => metric(w.metrics, 'cortex_compactor_runs_started_total');
    await w.clock.advance(0);
    expect(await w.fs.exists('/data/compact')).toBe(false);
    // The minute of each run's start, stepping the clock a minute at a time.
    const starts: number[] = [];
    for (let minute = 0; minute <= 140; minute++) {
      const before = await runs();
      if (minute > 0) await w.clock.advance(MINUTE);
      if ((await runs()) > before) starts.push((w.clock.now() - started) / MINUTE);
    }
    expect(starts).toHaveLength(3);
    const [a, b, c] = starts as [number, number, number];
    expect(a).toBeLessThanOrEqual(6);
    expect(b - a).toBeGreaterThanOrEqual(60);
    expect(b - a).toBeLessThanOrEqual(67);
    expect(c - b).toBeGreaterThanOrEqual(60);
    expect(c - b).toBeLessThanOrEqual(67);
    ac.abort();
    await running;
    expect(w.clock.pendingTimers).toBe(0);
    expect(await metric(w.metrics, 'cortex_compactor_compaction_interval_seconds')).toBe(3600);
  });

  it('shuffles tenants with its seeded random stream', async () => {
    const order = async (seed: string): Promise<string[]> => {
      const w = compactionWorld(seed);
      for (const t of ['a', 'b', 'c', 'd', 'e', 'f']) {
        await shipBlock(w, t, 'ingester-0', testSeries(1, DAY0, DAY0 + HOUR), {
          minTime: DAY0,
          maxTime: DAY0 + 2 * HOUR,
        });
      }
      const seen: string[] = [];
      await loopFor(w, {}, { ownsTenant: (t) => (seen.push(t), false) }).runOnce(signal());
      return seen;
    };
    expect(await order('s1')).toEqual(await order('s1'));
    const orders = await Promise.all(['s1', 's2', 's3', 's4'].map(order));
    expect(new Set(orders.map((o) => o.join())).size).toBeGreaterThan(1);
    for (const o of orders) expect([...o].sort()).toEqual(['a', 'b', 'c', 'd', 'e', 'f']);
  });

  it('counts a run stopped between tenants as interrupted, not completed', async () => {
    const w = compactionWorld();
    for (const t of ['a', 'b']) {
      await shipBlock(w, t, 'ingester-0', testSeries(1, DAY0, DAY0 + HOUR), {
        minTime: DAY0,
        maxTime: DAY0 + 2 * HOUR,
      });
    }
    const ac = new AbortController();
    const loop = loopFor(w, {}, { ownsTenant: () => (ac.abort(), true) });
    const run = await loop.runOnce(ac.signal);
    expect(run.interrupted).toBe(true);
    expect(await metric(w.metrics, 'cortex_compactor_runs_interrupted_total')).toBe(1);
    expect(await metric(w.metrics, 'cortex_compactor_runs_completed_total')).toBe(0);
    expect(await metric(w.metrics, 'cortex_compactor_runs_failed_total')).toBe(0);
  });
});

describe('compaction loop: property', () => {
  it('the compacted block holds the sorted, de-duplicated union of every replica', async () => {
    // Replicas of one 2h range, each missing samples at random; values follow the timestamp, so
    // replicas agree wherever they overlap (as replicated writes do).
    const replica = fc.array(fc.integer({ min: 0, max: 239 }), { maxLength: 60 });
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.constantFrom('x', 'y'), replica), { minLength: 2, maxLength: 4 }),
        fc.integer({ min: 0, max: 1_000 }),
        async (replicas, seed) => {
          const w = compactionWorld(`prop-${seed}`);
          const union = new Map<string, Set<number>>();
          let shipped = 0;
          for (const [i, [name, steps]] of replicas.entries()) {
            const ts = [...new Set(steps)].sort((a, b) => a - b).map((s) => DAY0 + s * 30_000);
            if (ts.length === 0) continue;
            const input: BlockSeriesInput = {
              labels: Labels.fromObject({ __name__: name }),
              timestamps: Float64Array.from(ts),
              values: Float64Array.from(ts, (t) => t / 1000),
            };
            await shipBlock(w, 't', `ingester-${i}`, [input], {
              minTime: DAY0,
              maxTime: DAY0 + 2 * HOUR,
            });
            shipped++;
            const set = union.get(name) ?? new Set<number>();
            for (const t of ts) set.add(t);
            union.set(name, set);
          }
          if (shipped === 0) return;
          await loopFor(w).runOnce(signal());
          const live = await liveBlocks(w, 't');
          expect(live).toHaveLength(1);
          const want: string[] = [];
          for (const name of [...union.keys()].sort()) {
            for (const t of [...(union.get(name) as Set<number>)].sort((a, b) => a - b)) {
              want.push(`{__name__="${name}"} ${t} ${t / 1000}`);
            }
          }
          expect(await readBucketBlock(w, 't', live[0] as BlockMeta)).toEqual(want);
        },
      ),
      { numRuns: 25, seed: 7 },
    );
  });

  it('uses the seeded stream for the output block IDs (same seed, same bucket)', async () => {
    const names = async (): Promise<string[]> => {
      const w = compactionWorld('same');
      for (const ing of ['ingester-0', 'ingester-1']) {
        await shipBlock(w, 't', ing, testSeries(2, DAY0, DAY0 + HOUR), {
          minTime: DAY0,
          maxTime: DAY0 + 2 * HOUR,
        });
      }
      await loopFor(w).runOnce(signal());
      return (await w.inner.list('t/', { recursive: true })).sort();
    };
    expect(await names()).toEqual(await names());
  });
});
