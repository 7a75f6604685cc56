// The querier with the blocks path: which sources each time range reaches
// (query_ingesters_within, query_store_after), ingester and store overlap and RF block copies
// read once, the series and label APIs over both sources honouring start/end, the engines
// over both, and readiness waiting for the blocks discovery.
import { afterEach, describe, expect, it } from 'vitest';
import { TEST_BUILD_INFO } from '../api/testing/index.js';
import { Labels, Matcher } from '../model/index.js';
import { SAMPLE_FLOAT, type StorageSeries } from '../promql/index.js';
import { Ring, type InstanceDesc } from '../ring/index.js';
import {
  MemoryKV,
  MemoryKVStore,
  MemoryNetwork,
  createSeededRandom,
  newMetricsRegistry,
} from '../runtime/index.js';
import { CapturingLogger, ManualClock } from '../runtime/testing/index.js';
import { FakeStoreGateways, StaticBlocksFinder, blockId } from './blocks_fakes.testing.js';
import { BalancedBlocksStoreSet } from './blocks_store_set.js';
import { FakeIngesterClient } from './fake_ingesters.testing.js';
import { Querier, type QuerierConfig } from './querier.js';

const NOW = 1_700_000_000_000;
const MIN = 60_000;
const HOUR = 60 * MIN;
const L = (...kv: string[]): Labels => Labels.fromStrings(...kv);
const UP = L('__name__', 'up', 'job', 'api');
const OLD = L('__name__', 'old_metric', 'job', 'batch');
const NEW = L('__name__', 'new_metric', 'job', 'web');
const INGESTERS = ['ing-a', 'ing-b', 'ing-c'];
const ALL = [new Matcher('=~', '__name__', '.+')];
const sec = (ms: number): number => Math.floor(ms / 1000);

/** `up` every minute over the last 6h: 4h..2h ago in a block, 3h ago..now on the ingesters. */
const BLOCK_FROM = NOW - 4 * HOUR;
const BLOCK_TO = NOW - 2 * HOUR;
const B = [blockId(BLOCK_TO, 1), blockId(BLOCK_TO, 2), blockId(BLOCK_TO, 3)];

function every(from: number, to: number, step = MIN): [number, number][] {
  const out: [number, number][] = [];
  for (let t = from; t < to; t += step) out.push([t, (t - NOW) / MIN]);
  return out;
}

function ring(clock: ManualClock, addrs: readonly string[]): Ring {
  const r = new Ring(
    {
      name: 'ingester',
      key: 'ring',
      replicationFactor: Math.min(3, addrs.length),
      heartbeatTimeoutMs: MIN,
      zoneAwarenessEnabled: false,
    },
    {
      kv: new MemoryKV({}, { store: new MemoryKVStore() }),
      clock,
      logger: new CapturingLogger(),
      metrics: newMetricsRegistry(),
    },
  );
  const ingesters: Record<string, InstanceDesc> = {};
  addrs.forEach((addr, i) => {
    ingesters[addr] = {
      addr,
      timestamp: NOW / 1000,
      state: 'ACTIVE',
      tokens: [i * 1000 + 1],
      zone: '',
      registeredTimestamp: NOW / 1000 - 3600,
    };
  });
  r.setDesc({ ingesters });
  return r;
}

interface Setup {
  querier: Querier;
  ingesters: FakeIngesterClient;
  gateways: FakeStoreGateways;
  finder: StaticBlocksFinder;
  clock: ManualClock;
}

const started: Querier[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((q) => q.stop()));
});

async function setup(
  config: Partial<QuerierConfig> = {},
  opts: {
    start?: boolean;
    storeReadiness?: () => string | undefined;
    /** The ingesters in the ring (RF 3, or their number when fewer). */
    ingesterAddrs?: readonly string[];
  } = {},
): Promise<Setup> {
  const clock = new ManualClock(NOW);
  const ingesters = new FakeIngesterClient();
  const addrs = opts.ingesterAddrs ?? INGESTERS;
  for (const addr of addrs) ingesters.ingester(addr);
  const gateways = new FakeStoreGateways(30);
  const finder = new StaticBlocksFinder();
  // The three ingesters each shipped the same 2h block (RF 3).
  for (const id of B) {
    finder.blocks.push({
      block_id: id,
      min_time: BLOCK_FROM,
      max_time: BLOCK_TO,
      uploaded_at: sec(BLOCK_TO),
    });
    gateways.add(['sg-1'], 't', id, UP, every(BLOCK_FROM, BLOCK_TO));
  }
  gateways.add(['sg-1'], 't', B[0]!, OLD, every(BLOCK_FROM, BLOCK_FROM + HOUR, 15 * MIN));
  for (const addr of addrs) ingesters.add(addr, 't', UP, every(NOW - 3 * HOUR, NOW + 1));
  ingesters.add('ing-a', 't', NEW, [[NOW - MIN, 1]]);
  if (addrs.includes('ing-b')) ingesters.add('ing-b', 't', NEW, [[NOW - MIN, 1]]);
  const querier = new Querier(
    {
      timeoutMs: 2 * MIN,
      maxSamples: 50_000_000,
      lookbackDeltaMs: 5 * MIN,
      queryIngestersWithinMs: 0,
      ...config,
    },
    {
      clock,
      logger: new CapturingLogger(),
      metrics: newMetricsRegistry(),
      transport: new MemoryNetwork().transport('querier-1'),
      ingesterRing: ring(clock, addrs),
      client: ingesters,
      buildInfo: TEST_BUILD_INFO,
      blocks: {
        finder,
        stores: new BalancedBlocksStoreSet(
          { addresses: ['sg-1'] },
          { random: createSeededRandom('q').stream('stores') },
        ),
        client: gateways,
        ...(opts.storeReadiness !== undefined ? { storeReadiness: opts.storeReadiness } : {}),
      },
    },
  );
  if (opts.start !== false) {
    await querier.start(new AbortController().signal);
    started.push(querier);
  }
  return { querier, ingesters, gateways, finder, clock };
}

function samplesOf(s: StorageSeries): [number, number][] {
  const out: [number, number][] = [];
  const it = s.iterator();
  while (it.next() === SAMPLE_FLOAT) out.push([it.atT(), it.atF()]);
  return out;
}

async function select(
  querier: Querier,
  start: number,
  end: number,
  func?: string,
  sortSeries?: boolean,
) {
  const q = await querier.queryable('t').querier(start, end);
  return q.select(ALL, {
    start,
    end,
    ...(func !== undefined ? { func } : {}),
    ...(sortSeries !== undefined ? { sortSeries } : {}),
  });
}

const queried = (s: Setup) => ({
  store: s.gateways.calls.length > 0,
  ingesters: s.ingesters.calls.length > 0,
});

describe('querier over ingesters and blocks', () => {
  it('reads both sources when both windows are off, each sample once', async () => {
    const s = await setup();
    const series = await select(s.querier, NOW - 5 * HOUR, NOW);
    expect(queried(s)).toEqual({ store: true, ingesters: true });
    const up = series.find((x) => x.labels.equals(UP));
    // Three block copies and three ingester replicas overlap 3h..2h ago: still one each.
    expect(samplesOf(up!)).toEqual(every(BLOCK_FROM, NOW + 1).map(([t, v]) => [t, v]));
    expect(series.map((x) => x.labels.get('__name__'))).toEqual(['new_metric', 'old_metric', 'up']);
  });

  it('asked for any order, passes one ingester on unsorted and sorts it to merge with the store', async () => {
    const names = (list: readonly StorageSeries[]) => list.map((x) => x.labels.get('__name__'));
    // Replicas are merged sorted whatever the order asked for.
    const replicated = await setup();
    expect(names(await select(replicated.querier, NOW - 5 * HOUR, NOW, undefined, false))).toEqual([
      'new_metric',
      'old_metric',
      'up',
    ]);
    const s = await setup({}, { ingesterAddrs: ['ing-a'] });
    const merged = await select(s.querier, NOW - 5 * HOUR, NOW, undefined, false);
    expect((s.ingesters.calls[0]?.req as { sortSeries?: boolean }).sortSeries).toBe(false);
    expect(names(merged)).toEqual(['new_metric', 'old_metric', 'up']);
    const up = merged.find((x) => x.labels.equals(UP));
    expect(samplesOf(up!)).toEqual(every(BLOCK_FROM, NOW + 1).map(([t, v]) => [t, v]));
    // The ingester alone (the store not asked): its own order, unsorted.
    const recent = await setup({ queryStoreAfterMs: 2 * HOUR }, { ingesterAddrs: ['ing-a'] });
    expect(names(await select(recent.querier, NOW - HOUR, NOW, undefined, false))).toEqual([
      'up',
      'new_metric',
    ]);
    expect(names(await select(recent.querier, NOW - HOUR, NOW))).toEqual(['new_metric', 'up']);
  });

  it('query_store_after and query_ingesters_within pick the sources', async () => {
    const config = { queryStoreAfterMs: 2 * HOUR, queryIngestersWithinMs: 3 * HOUR };
    // Recent range: ingesters only.
    let s = await setup(config);
    await select(s.querier, NOW - HOUR, NOW);
    expect(queried(s)).toEqual({ store: false, ingesters: true });
    // Old range (ending before the ingesters' window): the store only.
    s = await setup(config);
    await select(s.querier, NOW - 10 * HOUR, NOW - 3.5 * HOUR);
    expect(queried(s)).toEqual({ store: true, ingesters: false });
    // Both, each clamped to its window.
    s = await setup(config);
    const series = await select(s.querier, NOW - 10 * HOUR, NOW);
    expect(queried(s)).toEqual({ store: true, ingesters: true });
    expect(s.gateways.calls[0]?.end).toBe(NOW - 2 * HOUR);
    expect((s.ingesters.calls[0]?.req as { start: number }).start).toBe(NOW - 3 * HOUR);
    const up = series.find((x) => x.labels.equals(UP));
    expect(samplesOf(up!)).toEqual(every(BLOCK_FROM, NOW + 1).map(([t, v]) => [t, v]));
  });

  it('the engine counts every sample once across sources', async () => {
    const s = await setup();
    const result = await s.querier.engines.prometheus.instantQuery(
      s.querier.queryable('t'),
      'count_over_time(up[5h])',
      NOW,
    );
    expect(result.value).toMatchObject({ type: 'vector', vector: [{ f: 4 * 60 + 1 }] });
  });

  it('series API from both sources within start/end, labels only from the store', async () => {
    const s = await setup();
    const all = await select(s.querier, NOW - 5 * HOUR, NOW, 'series');
    expect(all.map((x) => x.labels.get('__name__'))).toEqual(['new_metric', 'old_metric', 'up']);
    expect(s.gateways.calls[0]?.skipChunks).toBe(true);
    const old = await select(s.querier, NOW - 5 * HOUR, NOW - 3.5 * HOUR, 'series');
    expect(old.map((x) => x.labels.get('__name__'))).toEqual(['old_metric', 'up']);
  });

  it('label names and values from both sources within start/end', async () => {
    const s = await setup();
    const q = await s.querier.queryable('t').querier(NOW - 5 * HOUR, NOW);
    expect(await q.labelValues('__name__', [])).toEqual(['new_metric', 'old_metric', 'up']);
    expect(await q.labelNames([])).toEqual(['__name__', 'job']);
    const old = await s.querier.queryable('t').querier(NOW - 5 * HOUR, NOW - 3.5 * HOUR);
    expect(await old.labelValues('job', [])).toEqual(['api', 'batch']);
    const recent = await s.querier.queryable('t').querier(NOW - 10 * MIN, NOW);
    expect(await recent.labelValues('__name__', [])).toEqual(['new_metric', 'up']);
  });

  it('selectSamples materialises the merged series', async () => {
    const s = await setup();
    const series = await s.querier.selectSamples(
      't',
      [Matcher.equal('__name__', 'up')],
      BLOCK_FROM,
      NOW,
    );
    expect(series).toHaveLength(1);
    expect(series[0]?.timestamps.length).toBe(4 * 60 + 1);
  });

  it('is not ready until the blocks discovery and the embedded store are', async () => {
    let storeReady: string | undefined = 'bucket stores: initial sync running';
    const s = await setup({}, { start: false, storeReadiness: () => storeReady });
    expect(s.querier.isReady()).toBe('querier is New');
    s.finder.ready = false;
    await s.querier.start(new AbortController().signal);
    started.push(s.querier);
    expect(s.querier.isReady()).toBe('blocks discovery has not completed');
    s.finder.ready = true;
    expect(s.querier.isReady()).toBe('bucket stores: initial sync running');
    storeReady = undefined;
    expect(s.querier.isReady()).toBeUndefined();
    expect(s.finder.state).toBe('Running');
    await s.querier.stop();
    expect(s.finder.state).toBe('Terminated');
  });
});
