import { describe, expect, it } from 'vitest';
import { DiskFileSystem } from '../../sim/testing/index.js';
import { CapturingLogger, ManualClock } from '../runtime/testing/index.js';
import { INGESTER_ADDR, batch, buildHarness, series } from './ingester_harness.testing.js';

describe('ingester readiness', () => {
  it('waits min_ready_duration after first being ready, as Cortex does', async () => {
    const clock = new ManualClock(1_700_000_000_000);
    const h = await buildHarness({
      clock,
      fs: new DiskFileSystem(),
      logger: new CapturingLogger(),
      config: { minReadyDurationMs: 60_000 },
    });
    await h.ingester.start(new AbortController().signal);
    expect(h.ingester.isReady()).toMatch(/PENDING/);
    await clock.advance(0); // joins: ACTIVE
    expect(h.ingester.lifecycler?.instanceState).toBe('ACTIVE');
    expect(h.ingester.isReady()).toBe(
      'waiting for 1m0s after being ready (-ingester.min-ready-duration)',
    );
    await clock.advance(59_999);
    expect(h.ingester.isReady()).toMatch(/waiting for 1m0s/);
    await clock.advance(1);
    expect(h.ingester.isReady()).toBeUndefined();
    await h.ingester.stop();
  });
});

describe('ingester.AllUserStats', () => {
  it('reports each tenant with its stats and loaded blocks', async () => {
    const clock = new ManualClock(1_700_000_000_000);
    const h = await buildHarness({
      clock,
      fs: new DiskFileSystem(),
      logger: new CapturingLogger(),
    });
    await h.ingester.start(new AbortController().signal);
    await clock.advance(0);
    await h.client.push(INGESTER_ADDR, 't1', batch(series('up', {}, [clock.now(), 1])), 'api');
    expect(await h.client.allUserStats(INGESTER_ADDR)).toMatchObject([
      { tenant: 't1', loadedBlocks: 0, stats: { numSeries: 1 } },
    ]);
    await h.ingester.flush(['t1'], true);
    expect(await h.client.allUserStats(INGESTER_ADDR)).toMatchObject([
      { tenant: 't1', loadedBlocks: 1 },
    ]);
    await h.ingester.stop();
  });
});
