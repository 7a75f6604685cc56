import { afterEach, describe, expect, it } from 'vitest';
import { DiskFileSystem } from '../../sim/testing/index.js';
import { toWireMatchers } from '../ingester/index.js';
import { Labels, Matcher } from '../model/index.js';
import {
  MemoryBucket,
  MemoryNetwork,
  createSeededRandom,
  newMetricsRegistry,
  type FileSystem,
} from '../runtime/index.js';
import { CapturingLogger, ManualClock } from '../runtime/testing/index.js';
import {
  BlockReader,
  TENANT_EXTERNAL_LABEL,
  writeBlock,
  type BlockMeta,
  type BlockSeriesInput,
} from '../tsdb/index.js';
import { blockReaderSamples, shipBlock, storeSeriesSamples } from './bucket_block.testing.js';
import { TransportStoreGatewayClient } from './client.js';
import { CountingBucket, writeIndexFromBucket } from './fake_blocks.testing.js';
import { HOUR, T0, gatewayConfig, metricValue } from './gateway_harness.testing.js';
import { StoreGateway } from './store_gateway.js';

// Blocks written by the TSDB, shipped as Cortex's shipper does, served by the real block layer.

const TENANT = 'team-a';
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
});

function series(
  labels: Record<string, string>,
  start: number,
  n: number,
  seed: number,
): BlockSeriesInput {
  const ts = new Float64Array(n);
  const vs = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    ts[i] = start + i * 15_000;
    vs[i] = seed * 1000 + i;
  }
  return { labels: Labels.fromObject(labels), timestamps: ts, values: vs };
}

interface Setup {
  clock: ManualClock;
  bucket: CountingBucket;
  local: FileSystem;
  metas: BlockMeta[];
}

async function setup(): Promise<Setup> {
  const clock = new ManualClock(T0);
  const local = new DiskFileSystem();
  const bucket = new CountingBucket(new MemoryBucket({ clock }));
  const random = createSeededRandom('real-blocks').stream('ulid');
  const metas: BlockMeta[] = [];
  for (let b = 0; b < 3; b++) {
    const start = T0 - (8 - 2 * b) * HOUR;
    const input = [
      series({ __name__: 'up', job: 'api', instance: `i-${b}` }, start, 400, b),
      series({ __name__: 'up', job: 'db' }, start, 400, b + 10),
      series({ __name__: 'errors_total', job: 'api' }, start, 200, b + 20),
    ];
    const meta = await writeBlock(
      '/local',
      input,
      { thanos: { labels: { [TENANT_EXTERNAL_LABEL]: TENANT } } },
      { fs: local, clock, random },
    );
    await shipBlock(local, '/local', meta.ulid, bucket, TENANT);
    metas.push(meta);
  }
  return { clock, bucket, local, metas };
}

async function gateway(s: Setup, fs: FileSystem, bucketIndexEnabled: boolean) {
  const network = new MemoryNetwork();
  const metrics = newMetricsRegistry();
  const transport = network.transport('sg-1');
  const g = new StoreGateway(gatewayConfig({ bucketStore: { bucketIndexEnabled } }), {
    bucket: s.bucket,
    fs,
    clock: s.clock,
    random: createSeededRandom('sg'),
    logger: new CapturingLogger(),
    metrics,
    transport,
  });
  await transport.listen();
  await g.start(new AbortController().signal);
  closers.push(() => g.stop());
  const client = new TransportStoreGatewayClient(network.transport('querier'));
  return { g, client, metrics };
}

describe('store-gateway over real blocks', () => {
  it.each([
    ['bucket scan', false],
    ['bucket index', true],
  ])('answers exactly what the blocks hold (%s)', async (_, bucketIndexEnabled) => {
    const s = await setup();
    if (bucketIndexEnabled) await writeIndexFromBucket(s.bucket, TENANT, T0);
    const { client } = await gateway(s, new DiskFileSystem(), bucketIndexEnabled);
    const matchers = [Matcher.equal('job', 'api')];
    const ids = s.metas.map((m) => m.ulid);
    const mint = T0 - 7 * HOUR;
    const maxt = T0 - 3 * HOUR;
    const res = await client.series('sg-1', TENANT, {
      start: mint,
      end: maxt,
      matchers: toWireMatchers(matchers),
      blockIds: ids,
    });
    expect(res.queriedBlocks).toEqual([...ids].sort());
    // One series per label set, its chunks from every block in time order.
    expect(res.series.map((x) => x.labels.toString())).toEqual([
      '{__name__="errors_total", job="api"}',
      '{__name__="up", instance="i-0", job="api"}',
      '{__name__="up", instance="i-1", job="api"}',
      '{__name__="up", instance="i-2", job="api"}',
    ]);
    const expected: string[] = [];
    for (const m of s.metas) {
      const reader = await BlockReader.open(`/local/${m.ulid}`, { fs: s.local });
      expected.push(...(await blockReaderSamples(reader, matchers, mint, maxt)));
    }
    expect(storeSeriesSamples(res.series, mint, maxt).sort()).toEqual(expected.sort());
    const values = await client.labelValues('sg-1', TENANT, {
      name: 'instance',
      start: mint,
      end: maxt,
      matchers: [],
      blockIds: ids,
    });
    expect(values.values).toEqual(['i-0', 'i-1', 'i-2']);
  });

  it('restarts on the same disk without reading any index from the bucket', async () => {
    const s = await setup();
    const disk = new DiskFileSystem();
    const first = await gateway(s, disk, false);
    await first.g.stop();
    const indexReads = () => s.bucket.calls.filter((c) => c.name.endsWith('/index')).length;
    const built = indexReads();
    expect(built).toBeGreaterThan(0);
    const second = await gateway(s, new DiskFileSystem(disk.disk), false);
    expect(indexReads()).toBe(built);
    expect(await metricValue(second.metrics, 'cortex_bucket_store_blocks_loaded')).toBe(3);
  });

  it('serves the other blocks when one block has lost its chunks', async () => {
    const s = await setup();
    const [broken, ...rest] = s.metas;
    await s.bucket.delete(`${TENANT}/${broken?.ulid}/chunks/000001`);
    const { client, metrics } = await gateway(s, new DiskFileSystem(), false);
    const res = await client.series('sg-1', TENANT, {
      start: 0,
      end: T0,
      matchers: toWireMatchers([Matcher.equal('__name__', 'up')]),
      blockIds: s.metas.map((m) => m.ulid),
    });
    expect(res.queriedBlocks).toEqual(rest.map((m) => m.ulid).sort());
    expect(res.series.length).toBeGreaterThan(0);
    expect(await metricValue(metrics, 'strata_bucket_store_block_query_failures_total')).toBe(1);
  });
});
