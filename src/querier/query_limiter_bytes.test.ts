// `max_fetched_chunk_bytes_per_query` and `max_fetched_data_bytes_per_query` through a real
// Querier (three ingester replicas and a store-gateway) and both engines: the bytes of every
// answer are counted, each replica's copy included, as Cortex counts responses; a query at
// the limit answers, one byte over fails with Cortex's message as a 422 `execution` error;
// 0 turns a limit off; each tenant's overrides apply to its own queries.
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { TEST_BUILD_INFO } from '../api/testing/index.js';
import { toApiError } from '../api/index.js';
import { defaultConfig } from '../config/index.js';
import { Labels } from '../model/index.js';
import { Overrides, parseRuntimeConfig } from '../overrides/index.js';
import { Ring, type InstanceDesc } from '../ring/index.js';
import {
  MemoryKV,
  MemoryKVStore,
  MemoryNetwork,
  createSeededRandom,
  newMetricsRegistry,
} from '../runtime/index.js';
import { CapturingLogger, ManualClock } from '../runtime/testing/index.js';
import {
  FakeStoreGateways,
  StaticBlocksFinder,
  blockId,
  xorChunks,
} from './blocks_fakes.testing.js';
import { BalancedBlocksStoreSet } from './blocks_store_set.js';
import { FakeIngesterClient } from './fake_ingesters.testing.js';
import { Querier } from './querier.js';
import {
  maxChunkBytesHitMessage,
  maxDataBytesHitMessage,
  type QueryLimits,
} from './query_limiter.js';

const NOW = 1_700_000_000_000;
const MIN = 60_000;
const HOUR = 60 * MIN;
const INGESTERS = ['ing-a', 'ing-b', 'ing-c'];
const TENANTS = ['t', 'small', 'big'];
/** Recent data: on the three ingesters (RF 3), 61 samples each. */
const UP = Labels.fromStrings('__name__', 'up', 'job', 'api');
const UP_SAMPLES = every(NOW - HOUR, NOW + 1);
/** Old data: in one block on the store-gateway, cut into chunks of 30 samples. */
const OLD = Labels.fromStrings('__name__', 'old_metric', 'job', 'batch');
const OLD_SAMPLES = every(NOW - 4 * HOUR, NOW - 2 * HOUR);
const BLOCK = blockId(NOW - 2 * HOUR, 1);
const QUERY = 'count_over_time({__name__=~".+"}[5h])';

function every(from: number, to: number): [number, number][] {
  const out: [number, number][] = [];
  for (let t = from; t < to; t += MIN) out.push([t, t / MIN]);
  return out;
}

function fakeIngesters(): FakeIngesterClient {
  const ingesters = new FakeIngesterClient();
  for (const tenant of TENANTS)
    for (const addr of INGESTERS) ingesters.add(addr, tenant, UP, UP_SAMPLES);
  return ingesters;
}

// What the query fetches, computed from the fakes' answers (not by the counting code): the
// READ set of three ingesters completes at its quorum, so two replicas' answers arrive (and
// Cortex, too, counts the responses it received); an answer's chunk bytes are its chunks'
// data lengths (ingesters and the store alike); the store answers `old_metric`; data bytes add the label names and values of every series of
// every answer.
const labelChars = (l: Labels): number =>
  l.names().reduce((n, k) => n + k.length + l.get(k).length, 0);
const ANSWERING_REPLICAS = 2;
const STORE_CHUNK_BYTES = xorChunks(OLD_SAMPLES, 30).reduce((n, c) => n + c.data.length, 0);
let INGESTER_CHUNK_BYTES = 0;
let CHUNK_BYTES = 0;
let DATA_BYTES = 0;

type AnySeries = {
  readonly chunks?: readonly { readonly data: Uint8Array }[];
  readonly timestamps?: ArrayLike<number>;
};

beforeAll(async () => {
  const answer = (await fakeIngesters().queryStream('ing-a', 't', {
    start: NOW - 5 * HOUR + 1,
    end: NOW,
    matchers: [],
  })) as readonly AnySeries[];
  expect(answer).toHaveLength(1);
  const s = answer[0] as AnySeries;
  const oneCopy =
    s.chunks !== undefined
      ? s.chunks.reduce((n, c) => n + c.data.length, 0)
      : (s.timestamps?.length ?? 0) * 16;
  INGESTER_CHUNK_BYTES = ANSWERING_REPLICAS * oneCopy;
  CHUNK_BYTES = INGESTER_CHUNK_BYTES + STORE_CHUNK_BYTES;
  DATA_BYTES = CHUNK_BYTES + ANSWERING_REPLICAS * labelChars(UP) + labelChars(OLD);
});

function ring(clock: ManualClock): Ring {
  const r = new Ring(
    {
      name: 'ingester',
      key: 'ring',
      replicationFactor: 3,
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
  INGESTERS.forEach((addr, i) => {
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

const started: Querier[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((q) => q.stop()));
});

async function newQuerier(queryLimits: (tenant: string) => QueryLimits): Promise<Querier> {
  const clock = new ManualClock(NOW);
  const ingesters = fakeIngesters();
  const gateways = new FakeStoreGateways(30);
  const finder = new StaticBlocksFinder();
  finder.blocks.push({
    block_id: BLOCK,
    min_time: NOW - 4 * HOUR,
    max_time: NOW - 2 * HOUR,
    uploaded_at: (NOW - 2 * HOUR) / 1000,
  });
  for (const tenant of TENANTS) gateways.add(['sg-1'], tenant, BLOCK, OLD, OLD_SAMPLES);
  const querier = new Querier(
    {
      timeoutMs: 2 * MIN,
      maxSamples: 50_000_000,
      lookbackDeltaMs: 5 * MIN,
      queryIngestersWithinMs: 0,
    },
    {
      clock,
      logger: new CapturingLogger(),
      metrics: newMetricsRegistry(),
      transport: new MemoryNetwork().transport('querier-1'),
      ingesterRing: ring(clock),
      client: ingesters,
      buildInfo: TEST_BUILD_INFO,
      blocks: {
        finder,
        stores: new BalancedBlocksStoreSet(
          { addresses: ['sg-1'] },
          { random: createSeededRandom('q').stream('stores') },
        ),
        client: gateways,
      },
      queryLimits,
    },
  );
  await querier.start(new AbortController().signal);
  started.push(querier);
  return querier;
}

type EngineName = 'prometheus' | 'thanos';

async function run(
  querier: Querier,
  engine: EngineName,
  query = QUERY,
  tenant = 't',
): Promise<string> {
  const e = querier.engines[engine];
  if (e === undefined) throw new Error(`no ${engine} engine`);
  try {
    const result = await e.instantQuery(querier.queryable(tenant), query, NOW);
    return `ok ${result.value.type === 'vector' ? result.value.vector.length : '?'}`;
  } catch (err) {
    const api = toApiError(err);
    return `${api.status} ${api.errorType}: ${api.message}`;
  }
}

const ENGINES: EngineName[] = ['prometheus', 'thanos'];

describe('max_fetched_chunk_bytes_per_query', () => {
  it.each(ENGINES)('%s: passes at the limit, fails one byte over with 422', async (engine) => {
    const at = await newQuerier(() => ({ maxChunkBytes: CHUNK_BYTES }));
    expect(await run(at, engine)).toBe('ok 2');
    const over = await newQuerier(() => ({ maxChunkBytes: CHUNK_BYTES - 1 }));
    expect(await run(over, engine)).toBe(
      `422 execution: expanding series: ${maxChunkBytesHitMessage(CHUNK_BYTES - 1)}`,
    );
  });

  it('counts the ingesters (every replica) and the store-gateway', async () => {
    // Each source alone stays under a limit the two together pass.
    const q = await newQuerier(() => ({ maxChunkBytes: CHUNK_BYTES - 1 }));
    expect(await run(q, 'prometheus', 'count_over_time(up[5h])')).toBe('ok 1');
    expect(await run(q, 'prometheus', 'count_over_time(old_metric[5h])')).toBe('ok 1');
    // Both are real parts of the sum: the store's chunks and both answering replicas' samples.
    const ingestersOnly = await newQuerier(() => ({ maxChunkBytes: INGESTER_CHUNK_BYTES - 1 }));
    expect(await run(ingestersOnly, 'prometheus', 'count_over_time(up[5h])')).toContain(
      maxChunkBytesHitMessage(INGESTER_CHUNK_BYTES - 1),
    );
    const storeOnly = await newQuerier(() => ({ maxChunkBytes: STORE_CHUNK_BYTES - 1 }));
    expect(await run(storeOnly, 'prometheus', 'count_over_time(old_metric[5h])')).toContain(
      maxChunkBytesHitMessage(STORE_CHUNK_BYTES - 1),
    );
    expect(STORE_CHUNK_BYTES).toBeGreaterThan(0);
  });

  it('sums every select of one query', async () => {
    const q = await newQuerier(() => ({ maxChunkBytes: CHUNK_BYTES }));
    expect(await run(q, 'prometheus', `${QUERY} or ${QUERY}`)).toContain(
      maxChunkBytesHitMessage(CHUNK_BYTES),
    );
  });
});

describe('max_fetched_data_bytes_per_query', () => {
  it.each(ENGINES)('%s: passes at the limit, fails one byte over with 422', async (engine) => {
    const at = await newQuerier(() => ({ maxDataBytes: DATA_BYTES }));
    expect(await run(at, engine)).toBe('ok 2');
    const over = await newQuerier(() => ({ maxDataBytes: DATA_BYTES - 1 }));
    expect(await run(over, engine)).toBe(
      `422 execution: expanding series: ${maxDataBytesHitMessage(DATA_BYTES - 1)}`,
    );
  });

  it('counts labels as well as chunks, and the series API counts labels', async () => {
    // The chunk bytes alone are within a data limit the labels push over.
    const q = await newQuerier(() => ({ maxDataBytes: CHUNK_BYTES }));
    expect(await run(q, 'prometheus')).toContain(maxDataBytesHitMessage(CHUNK_BYTES));
    // The series API fetches labels only: two ingester copies of `up`, one of `old_metric`.
    const labelsOnly = ANSWERING_REPLICAS * labelChars(UP) + labelChars(OLD);
    const series = async (limit: number): Promise<string> => {
      const querier = await newQuerier(() => ({ maxDataBytes: limit }));
      const qr = await querier.queryable('t').querier(NOW - 5 * HOUR, NOW);
      try {
        const got = await qr.select([], { start: NOW - 5 * HOUR, end: NOW, func: 'series' });
        return `ok ${got.length}`;
      } catch (err) {
        return (err as Error).message;
      }
    };
    expect(await series(labelsOnly)).toBe('ok 2');
    expect(await series(labelsOnly - 1)).toBe(maxDataBytesHitMessage(labelsOnly - 1));
  });
});

describe('per-query byte limits', () => {
  it('0 turns them off', async () => {
    const q = await newQuerier(() => ({ maxSeries: 0, maxChunkBytes: 0, maxDataBytes: 0 }));
    for (const engine of ENGINES) expect(await run(q, engine)).toBe('ok 2');
  });

  it("applies each tenant's runtime overrides to its own queries", async () => {
    const overrides = new Overrides(defaultConfig().limits, {
      current: () =>
        parseRuntimeConfig(`
overrides:
  small:
    max_fetched_chunk_bytes_per_query: ${CHUNK_BYTES - 1}
  big:
    max_fetched_data_bytes_per_query: ${DATA_BYTES}
`),
    });
    // The same mapping as the app's wiring (src/app/components.ts).
    const q = await newQuerier((tenant) => {
      const l = overrides.limits(tenant);
      return {
        maxSeries: l.max_fetched_series_per_query,
        maxChunkBytes: l.max_fetched_chunk_bytes_per_query,
        maxDataBytes: l.max_fetched_data_bytes_per_query,
      };
    });
    for (const engine of ENGINES) {
      expect(await run(q, engine, QUERY, 'small')).toBe(
        `422 execution: expanding series: ${maxChunkBytesHitMessage(CHUNK_BYTES - 1)}`,
      );
      expect(await run(q, engine, QUERY, 'big')).toBe('ok 2');
      expect(await run(q, engine, QUERY, 't')).toBe('ok 2');
    }
  });
});
