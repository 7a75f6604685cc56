// Regression (issue 13, frontend benchmark under load): a store-gateway call that fails with a
// retryable error must not turn into an empty answer just because the blocks it was asked for
// were uploaded recently. The upload grace period of the consistency check exists for blocks a
// gateway has not loaded yet (it answers without them); a gateway that could not be asked at
// all (connection reset, timeout, overload) has said nothing about them. In the benchmark the
// blocks were uploaded minutes before the queries (grace = consistency delay + 3 × sync
// interval = 15m), a sub-query's only store-gateway call failed transiently, and the querier
// answered 200 with no series: the frontend merged and cached a 3h hole.
import { describe, expect, it } from 'vitest';
import { Labels, Matcher } from '../model/index.js';
import { RpcError, newMetricsRegistry } from '../runtime/index.js';
import { CapturingLogger, ManualClock } from '../runtime/testing/index.js';
import {
  BlocksConsistencyChecker,
  consistencyCheckerConfig,
} from './blocks_consistency_checker.js';
import {
  FakeStoreGateways,
  StaticBlocksFinder,
  blockId,
  OrderedStoreSet,
  quarterHourSamples,
} from './blocks_fakes.testing.js';
import { BlocksStoreQueryable } from './blocks_store_queryable.js';
import { BlocksQuerierMetrics } from './metrics.js';

const NOW = 1_700_000_000_000;
const MIN = 60_000;
const HOUR = 60 * MIN;
const H2 = 2 * HOUR;
const BASE = NOW - 12 * HOUR;
const UP = Labels.fromStrings('__name__', 'up', 'job', 'api');
const ALL = [new Matcher('=~', '__name__', '.+')];
const IDS = [blockId(BASE, 1), blockId(BASE, 2), blockId(BASE, 3)];

/** Three 2h blocks uploaded `uploadedAgoMs` ago, held by every gateway in `addresses`. */
function setup(uploadedAgoMs: number, addresses: string[]) {
  const clock = new ManualClock(NOW);
  const logger = new CapturingLogger();
  const metrics = new BlocksQuerierMetrics(newMetricsRegistry());
  const finder = new StaticBlocksFinder();
  const gateways = new FakeStoreGateways();
  for (const [i, id] of IDS.entries()) {
    finder.blocks.push({
      block_id: id,
      min_time: BASE + i * H2,
      max_time: BASE + (i + 1) * H2,
      uploaded_at: Math.floor((NOW - uploadedAgoMs) / 1000),
    });
    gateways.add(addresses, 't', id, UP, quarterHourSamples(BASE + i * H2, BASE + (i + 1) * H2));
  }
  const store = new BlocksStoreQueryable(
    { queryStoreAfterMs: 0, maxConsistencyAttempts: 3, timeoutMs: 0 },
    {
      clock,
      logger,
      finder,
      stores: new OrderedStoreSet(addresses),
      client: gateways,
      // Cortex's defaults: consistency delay 0, sync interval 5m → upload grace 15m.
      consistency: new BlocksConsistencyChecker(
        consistencyCheckerConfig({
          consistencyDelayMs: 0,
          syncIntervalMs: 5 * MIN,
          ignoreDeletionMarksDelayMs: 6 * HOUR,
        }),
        { clock, logger, metrics },
      ),
      metrics,
    },
  );
  return { store, gateways, logger };
}

describe('BlocksStoreQueryable: a failed store-gateway call within the upload grace period', () => {
  it('control: blocks uploaded long ago, the only gateway resets the connection → the query fails', async () => {
    const { store, gateways } = setup(5 * HOUR, ['sg-1']);
    gateways.gateway('sg-1').failure = new RpcError('unavailable', 'ECONNRESET: socket hang up');
    await expect(store.series('t', ALL, BASE, NOW)).rejects.toThrow('socket hang up');
  });

  it('blocks uploaded 2m ago, the only gateway resets the connection → the query fails, not an empty answer', async () => {
    const { store, gateways } = setup(2 * MIN, ['sg-1']);
    gateways.gateway('sg-1').failure = new RpcError('unavailable', 'ECONNRESET: socket hang up');
    // Before the fix this resolved with [] (every block excused by the upload grace): a 200 with no data.
    await expect(store.series('t', ALL, BASE, NOW)).rejects.toThrow('socket hang up');
  });

  it('blocks uploaded 2m ago, the first gateway times out → the blocks are read from the second', async () => {
    const { store, gateways } = setup(2 * MIN, ['sg-1', 'sg-2']);
    gateways.gateway('sg-1').failure = new RpcError('deadline_exceeded', 'deadline exceeded');
    const series = await store.series('t', ALL, BASE, NOW);
    // Before the fix: [] after one call (sg-2 was never asked).
    expect(series.map((s) => s.labels)).toEqual([UP]);
    expect(series[0]?.chunks).toHaveLength(3);
    expect(gateways.calls.map((c) => c.addr)).toEqual(['sg-1', 'sg-2']);
  });
});
