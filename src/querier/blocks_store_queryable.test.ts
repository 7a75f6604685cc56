// The blocks store queryable over fake store-gateways: blocks grouped per gateway, the
// consistency check's retries on other gateways, its exact failure text, the grace periods,
// retryable and fatal gateway errors, the store-gateway's limit error, query_store_after,
// and the per-query metrics.
import { describe, expect, it } from 'vitest';
import { Labels, Matcher } from '../model/index.js';
import { QueryExecutionError, StorageError } from '../promql/index.js';
import { RpcError, newMetricsRegistry, type MetricsRegistry } from '../runtime/index.js';
import { CapturingLogger, ManualClock } from '../runtime/testing/index.js';
import { SampleLimitError } from '../storegateway/index.js';
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
import { BlocksStoreQueryable, type BlocksStoreQueryableConfig } from './blocks_store_queryable.js';
import { BlocksQuerierMetrics } from './metrics.js';

const NOW = 1_700_000_000_000;
const MIN = 60_000;
const HOUR = 60 * MIN;
const H2 = 2 * HOUR;
const BASE = NOW - 12 * HOUR;
const sec = (ms: number): number => Math.floor(ms / 1000);
const L = (...kv: string[]): Labels => Labels.fromStrings(...kv);
const UP = L('__name__', 'up', 'job', 'api');
const ALL = [new Matcher('=~', '__name__', '.+')];

const B1 = blockId(BASE, 1);
const B2 = blockId(BASE, 2);
const B3 = blockId(BASE, 3);

interface Setup {
  store: BlocksStoreQueryable;
  finder: StaticBlocksFinder;
  gateways: FakeStoreGateways;
  metrics: MetricsRegistry;
}

function setup(
  config: Partial<BlocksStoreQueryableConfig> = {},
  addresses = ['sg-1', 'sg-2', 'sg-3'],
): Setup {
  const clock = new ManualClock(NOW);
  const logger = new CapturingLogger();
  const registry = newMetricsRegistry();
  const metrics = new BlocksQuerierMetrics(registry);
  const finder = new StaticBlocksFinder();
  // Three complete 2h blocks, uploaded long ago.
  for (const [i, id] of [B1, B2, B3].entries()) {
    finder.blocks.push({
      block_id: id,
      min_time: BASE + i * H2,
      max_time: BASE + (i + 1) * H2,
      uploaded_at: sec(NOW - 5 * HOUR),
    });
  }
  const gateways = new FakeStoreGateways();
  for (const addr of addresses) gateways.gateway(addr);
  const store = new BlocksStoreQueryable(
    { queryStoreAfterMs: 0, maxConsistencyAttempts: 3, timeoutMs: 0, ...config },
    {
      clock,
      logger,
      finder,
      stores: new OrderedStoreSet(addresses),
      client: gateways,
      consistency: new BlocksConsistencyChecker(
        consistencyCheckerConfig({
          consistencyDelayMs: 0,
          syncIntervalMs: 15 * MIN,
          ignoreDeletionMarksDelayMs: 6 * HOUR,
        }),
        { clock, logger, metrics },
      ),
      metrics,
    },
  );
  return { store, finder, gateways, metrics: registry };
}

/** Each block's samples of `up` on the given gateways. */
function load(gateways: FakeStoreGateways, placement: Record<string, string[]>): void {
  for (const [i, id] of [B1, B2, B3].entries()) {
    gateways.add(
      placement[id] ?? [],
      't',
      id,
      UP,
      quarterHourSamples(BASE + i * H2, BASE + (i + 1) * H2),
    );
  }
}

async function metricSum(registry: MetricsRegistry, name: string): Promise<number> {
  const values: { value: number; metricName?: string }[] =
    (await registry.getSingleMetric(name)?.get())?.values ?? [];
  const sum = values.find((v) => v.metricName === `${name}_sum`);
  return sum?.value ?? values[0]?.value ?? 0;
}

describe('BlocksStoreQueryable', () => {
  it('asks one gateway per block and returns one series with every chunk', async () => {
    const { store, gateways, metrics } = setup();
    load(gateways, { [B1]: ['sg-1'], [B2]: ['sg-1'], [B3]: ['sg-1'] });
    const series = await store.series('t', ALL, BASE, NOW);
    expect(series).toHaveLength(1);
    expect(series[0]?.chunks).toHaveLength(3);
    expect(gateways.calls.map((c) => [c.addr, c.blockIds])).toEqual([['sg-1', [B3, B2, B1]]]);
    expect(await metricSum(metrics, 'cortex_querier_storegateway_instances_hit_per_query')).toBe(1);
    expect(await metricSum(metrics, 'cortex_querier_storegateway_refetches_per_query')).toBe(0);
  });

  it('retries a block the first gateway did not have on another one', async () => {
    const { store, gateways, metrics } = setup();
    load(gateways, { [B1]: ['sg-1'], [B2]: ['sg-2'], [B3]: ['sg-1'] });
    const series = await store.series('t', ALL, BASE, NOW);
    expect(series[0]?.chunks).toHaveLength(3);
    expect(gateways.calls.map((c) => [c.addr, c.blockIds])).toEqual([
      ['sg-1', [B3, B2, B1]],
      ['sg-2', [B2]],
    ]);
    expect(await metricSum(metrics, 'cortex_querier_blocks_consistency_checks_total')).toBe(2);
    expect(await metricSum(metrics, 'cortex_querier_blocks_consistency_checks_failed_total')).toBe(
      1,
    );
    expect(await metricSum(metrics, 'cortex_querier_storegateway_refetches_per_query')).toBe(1);
    expect(await metricSum(metrics, 'cortex_querier_storegateway_instances_hit_per_query')).toBe(2);
  });

  it('fails with Cortex’s error after the maximum attempts', async () => {
    const { store, gateways } = setup({}, ['sg-1', 'sg-2', 'sg-3', 'sg-4']);
    load(gateways, { [B1]: ['sg-1'], [B3]: ['sg-1'] });
    const err: unknown = await store.series('t', ALL, BASE, NOW).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StorageError);
    expect((err as StorageError).errorType).toBe('internal');
    expect((err as Error).message).toBe(
      `consistency check failed because some blocks were not queried: ${B2}`,
    );
    // Three attempts, each on a gateway not tried before; the fourth is never asked.
    expect(gateways.calls.map((c) => c.addr)).toEqual(['sg-1', 'sg-2', 'sg-3']);
  });

  it('stops early when no gateway is left to try', async () => {
    const { store, gateways } = setup({}, ['sg-1']);
    load(gateways, { [B1]: ['sg-1'] });
    await expect(store.series('t', ALL, BASE, NOW)).rejects.toThrow(
      `consistency check failed because some blocks were not queried: ${B3} ${B2}`,
    );
    expect(gateways.calls).toHaveLength(1);
  });

  it('does not expect recently uploaded blocks or blocks marked for deletion long ago', async () => {
    const { store, finder, gateways } = setup();
    load(gateways, { [B1]: ['sg-1'] });
    // B3 uploaded 10m ago (< consistency delay 0 + 3 × 15m sync interval).
    finder.blocks[2] = { ...finder.blocks[2]!, uploaded_at: sec(NOW - 10 * MIN) };
    // B2 marked 4h ago (> ignore delay 6h / 2).
    finder.deletionMarks.set(B2, { block_id: B2, deletion_time: sec(NOW - 4 * HOUR) });
    const series = await store.series('t', ALL, BASE, NOW);
    expect(series[0]?.chunks).toHaveLength(1);
  });

  it('retries the blocks of a gateway that failed with a retryable error', async () => {
    const { store, gateways } = setup();
    load(gateways, { [B1]: ['sg-1', 'sg-2'], [B2]: ['sg-1', 'sg-2'], [B3]: ['sg-1', 'sg-2'] });
    gateways.gateway('sg-1').failure = new RpcError('unavailable', 'store-gateway is starting');
    const series = await store.series('t', ALL, BASE, NOW);
    expect(series[0]?.chunks).toHaveLength(3);
    expect(gateways.calls.map((c) => c.addr)).toEqual(['sg-1', 'sg-2']);
  });

  it('reports the retryable error when it outlasts every attempt', async () => {
    const { store, gateways } = setup({}, ['sg-1']);
    gateways.gateway('sg-1').failure = new RpcError('unavailable', 'connection refused');
    await expect(store.series('t', ALL, BASE, NOW)).rejects.toThrow('connection refused');
  });

  it('fails at once on a non-retryable gateway error, naming the gateway', async () => {
    const { store, gateways } = setup();
    load(gateways, { [B1]: ['sg-2'], [B2]: ['sg-2'], [B3]: ['sg-2'] });
    gateways.gateway('sg-1').failure = new RpcError('internal', 'corrupted index');
    await expect(store.series('t', ALL, BASE, NOW)).rejects.toThrow(
      'failed to fetch series from sg-1: corrupted index',
    );
    expect(gateways.calls).toHaveLength(1);
  });

  it('surfaces the store-gateway’s sample limit unchanged (422)', async () => {
    const { store, gateways } = setup();
    const limit = new SampleLimitError(1000, 50);
    gateways.gateway('sg-1').failure = new RpcError('failed_precondition', limit.message);
    const err: unknown = await store.series('t', ALL, BASE, NOW).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(QueryExecutionError);
    expect((err as Error).message).toBe(limit.message);
    // In process the gateway's own coded error passes through as it is.
    gateways.gateway('sg-1').failure = limit;
    await expect(store.series('t', ALL, BASE, NOW)).rejects.toBe(limit);
  });

  it('query_store_after: skips the store for recent ranges and clamps the end', async () => {
    const { store, finder, gateways } = setup({ queryStoreAfterMs: HOUR });
    load(gateways, { [B1]: ['sg-1'], [B2]: ['sg-1'], [B3]: ['sg-1'] });
    expect(await store.series('t', ALL, NOW - 30 * MIN, NOW)).toEqual([]);
    expect(finder.calls).toHaveLength(0);
    expect(gateways.calls).toHaveLength(0);
    await store.series('t', ALL, BASE, NOW);
    expect(finder.calls).toEqual([{ tenant: 't', minT: BASE, maxT: NOW - HOUR }]);
    expect(gateways.calls[0]?.end).toBe(NOW - HOUR);
  });

  it('asks for labels only on the series API path', async () => {
    const { store, gateways } = setup();
    load(gateways, { [B1]: ['sg-1'], [B2]: ['sg-1'], [B3]: ['sg-1'] });
    const series = await store.series('t', ALL, BASE, NOW, { skipChunks: true });
    expect(series.map((s) => s.labels)).toEqual([UP]);
    expect(series[0]?.chunks).toEqual([]);
    expect(gateways.calls[0]?.skipChunks).toBe(true);
  });

  it('label names and values with the consistency check', async () => {
    const { store, gateways } = setup();
    load(gateways, { [B1]: ['sg-1'], [B2]: ['sg-2'], [B3]: ['sg-1'] });
    gateways.add(
      ['sg-2'],
      't',
      B2,
      L('__name__', 'reqs', 'path', '/'),
      quarterHourSamples(BASE + H2, BASE + 2 * H2),
    );
    expect(await store.labelNames('t', [], BASE, NOW)).toEqual(['__name__', 'job', 'path']);
    expect(await store.labelValues('t', '__name__', [], BASE, NOW)).toEqual(['reqs', 'up']);
    // Only B1's range: the gateway answers B1's series only.
    expect(await store.labelValues('t', '__name__', [], BASE, BASE + MIN)).toEqual(['up']);
    expect(gateways.calls.filter((c) => c.addr === 'sg-2')).toHaveLength(2);
  });

  it('has nothing to ask when no block is in range', async () => {
    const { store, gateways, metrics } = setup();
    expect(await store.series('t', ALL, NOW - MIN, NOW)).toEqual([]);
    expect(gateways.calls).toHaveLength(0);
    expect(await metricSum(metrics, 'cortex_querier_storegateway_instances_hit_per_query')).toBe(0);
  });
});
