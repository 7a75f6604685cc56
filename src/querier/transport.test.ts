// The querier wired to ingesters over the real Transport interface (in-memory network) and
// the real TransportIngesterClient: the wire encoding round trip, and unreachable ingesters
// (network.disconnect) tolerated up to the replication set's quorum.
import { describe, expect, it } from 'vitest';
import { TEST_BUILD_INFO } from '../api/testing/index.js';
import { Labels, Matcher } from '../model/index.js';
import {
  INGESTER_QUERY_STREAM,
  TENANT_RPC_HEADER,
  TransportIngesterClient,
  encodeSeriesChunks,
  type QueryRequest,
} from '../ingester/index.js';
import { SAMPLE_FLOAT } from '../promql/index.js';
import { Ring, type InstanceDesc } from '../ring/index.js';
import {
  MemoryKV,
  MemoryKVStore,
  MemoryNetwork,
  newMetricsRegistry,
  parseJsonBody,
} from '../runtime/index.js';
import { CapturingLogger, ManualClock } from '../runtime/testing/index.js';
import { FakeIngesterClient } from './fake_ingesters.testing.js';
import { Querier } from './querier.js';

const NOW = 1_700_000_000_000;
const ADDRS = ['ing-a', 'ing-b', 'ing-c'];
const SERIES = Labels.fromStrings('__name__', 'up', 'job', 'api');

async function cluster() {
  const clock = new ManualClock(NOW);
  const network = new MemoryNetwork();
  const store = new FakeIngesterClient();
  const ingesters: Record<string, InstanceDesc> = {};
  for (const [i, addr] of ADDRS.entries()) {
    // Each holds the same two samples plus one of its own, as partially failed pushes leave.
    store.add(addr, 'tenant-1', SERIES, [
      [NOW - 2000, 1],
      [NOW - 1000 + i, 2 + i],
      [NOW, 5],
    ]);
    const transport = network.transport(addr);
    transport.handle(INGESTER_QUERY_STREAM, async (req) => {
      const tenant = req.headers?.[TENANT_RPC_HEADER] ?? '';
      const series = await store.queryStream(addr, tenant, parseJsonBody<QueryRequest>(req));
      return { body: await encodeSeriesChunks(series), contentType: 'application/octet-stream' };
    });
    await transport.listen();
    ingesters[addr] = {
      addr,
      timestamp: NOW / 1000,
      state: 'ACTIVE',
      tokens: [i + 1],
      zone: '',
      registeredTimestamp: 0,
    };
  }
  const ring = new Ring(
    {
      name: 'ingester',
      key: 'ring',
      replicationFactor: 3,
      heartbeatTimeoutMs: 60_000,
      zoneAwarenessEnabled: false,
    },
    {
      kv: new MemoryKV({}, { store: new MemoryKVStore() }),
      clock,
      logger: new CapturingLogger(),
      metrics: newMetricsRegistry(),
    },
  );
  ring.setDesc({ ingesters });
  const querierTransport = network.transport('querier');
  const querier = new Querier(
    { timeoutMs: 1000, maxSamples: 1000, lookbackDeltaMs: 300_000, queryIngestersWithinMs: 0 },
    {
      clock,
      logger: new CapturingLogger(),
      metrics: newMetricsRegistry(),
      transport: querierTransport,
      ingesterRing: ring,
      client: new TransportIngesterClient(querierTransport),
      buildInfo: TEST_BUILD_INFO,
    },
  );
  return { querier, network };
}

async function timestamps(querier: Querier): Promise<number[]> {
  const q = await querier.queryable('tenant-1').querier(0, NOW);
  const [series] = await q.select([new Matcher('=', '__name__', 'up')]);
  const out: number[] = [];
  const it = series?.iterator();
  while (it?.next() === SAMPLE_FLOAT) out.push(it.atT() - NOW);
  return out;
}

describe('querier over the Transport', () => {
  it('merges what the first two ingesters answered', async () => {
    const { querier } = await cluster();
    expect(await timestamps(querier)).toEqual([-2000, -1000, -999, 0]);
  });

  it('an unreachable ingester is tolerated at RF 3', async () => {
    const { querier, network } = await cluster();
    network.disconnect('ing-a');
    expect(await timestamps(querier)).toEqual([-2000, -999, -998, 0]);
  });

  it('two unreachable ingesters fail the query as unavailable storage', async () => {
    const { querier, network } = await cluster();
    network.disconnect('ing-a');
    network.disconnect('ing-b');
    await expect(timestamps(querier)).rejects.toMatchObject({
      errorType: 'internal',
      message: 'failed to query ingester ing-b: no peer listening at ing-b',
      cause: { code: 'unavailable' },
    });
  });
});
