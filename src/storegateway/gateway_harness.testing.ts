/**
 * Test support: store-gateways over a shared MemoryBucket, MemoryKV ring and MemoryNetwork,
 * each with its own (simulated) disk, driven by one ManualClock. Test files only.
 */
import { DiskFileSystem } from '../../sim/testing/index.js';
import {
  MemoryBucket,
  MemoryKV,
  MemoryKVStore,
  MemoryNetwork,
  type MemoryTransport,
  createSeededRandom,
  newMetricsRegistry,
  type FileSystem,
  type MetricsRegistry,
} from '../runtime/index.js';
import { CapturingLogger, ManualClock } from '../runtime/testing/index.js';
import { BucketStores, type BucketStoresConfig } from './bucket_stores.js';
import { StoreGatewayMetrics } from './metrics.js';
import { NO_SHARDING } from './sharding.js';
import {
  CountingBucket,
  FakeLayerStats,
  fakeBlockLoader,
  uploadFakeBlock,
} from './fake_blocks.testing.js';
import { StoreGateway, type StoreGatewayConfig } from './store_gateway.js';

export const T0 = Date.UTC(2026, 0, 10);
export const HOUR = 3_600_000;
export const MINUTE = 60_000;

export function storesConfig(over: Partial<BucketStoresConfig> = {}): BucketStoresConfig {
  return {
    syncDir: '/data/tsdb-sync',
    tenantSyncConcurrency: 2,
    blockSyncConcurrency: 3,
    metaSyncConcurrency: 4,
    consistencyDelayMs: 0,
    ignoreDeletionMarkDelayMs: 6 * HOUR,
    bucketIndexEnabled: false,
    maxConcurrent: 20,
    maxSampleCount: 0,
    maxChunkPoolBytes: 2 ** 31,
    lazyLoadingEnabled: false,
    lazyLoadingIdleTimeoutMs: 20 * MINUTE,
    ...over,
  };
}

export function gatewayConfig(
  over: {
    bucketStore?: Partial<StoreGatewayConfig['bucketStore']>;
    ring?: Partial<StoreGatewayConfig['ring']>;
    shardingEnabled?: boolean;
  } = {},
): StoreGatewayConfig {
  return {
    shardingEnabled: over.shardingEnabled ?? false,
    bucketStore: { ...storesConfig(), syncIntervalMs: 5 * MINUTE, ...over.bucketStore },
    ring: {
      instanceId: 'sg-1',
      instanceAddr: '',
      zone: '',
      heartbeatPeriodMs: 15_000,
      heartbeatTimeoutMs: 60_000,
      replicationFactor: 3,
      tokensFilePath: '',
      zoneAwarenessEnabled: false,
      waitStabilityMinMs: 0,
      waitStabilityMaxMs: 0,
      ringCheckPeriodMs: 5_000,
      ...over.ring,
    },
  };
}

export interface World {
  clock: ManualClock;
  bucket: CountingBucket;
  network: MemoryNetwork;
  kvStore: MemoryKVStore;
  logger: CapturingLogger;
  layer: FakeLayerStats;
}

export function newWorld(): World {
  const clock = new ManualClock(T0);
  return {
    clock,
    bucket: new CountingBucket(new MemoryBucket({ clock })),
    network: new MemoryNetwork(),
    kvStore: new MemoryKVStore(),
    logger: new CapturingLogger(),
    layer: new FakeLayerStats(),
  };
}

export interface TestGateway {
  gateway: StoreGateway;
  fs: FileSystem;
  metrics: MetricsRegistry;
  addr: string;
  transport: MemoryTransport;
}

/** A gateway listening at `name` on the world's network; not started. */
export async function newGateway(
  world: World,
  name: string,
  config: StoreGatewayConfig,
  opts: { fs?: FileSystem; metrics?: MetricsRegistry } = {},
): Promise<TestGateway> {
  const fs = opts.fs ?? new DiskFileSystem();
  const metrics = opts.metrics ?? newMetricsRegistry();
  const transport = world.network.transport(name);
  const gateway = new StoreGateway(
    { ...config, ring: { ...config.ring, instanceId: name } },
    {
      bucket: world.bucket,
      fs,
      clock: world.clock,
      random: createSeededRandom(`sg-${name}`),
      logger: world.logger.child({ node: name }),
      metrics,
      transport,
      kv: new MemoryKV({ prefix: 'collectors/' }, { store: world.kvStore }),
      blockLoader: fakeBlockLoader({
        bucket: world.bucket,
        fs,
        clock: world.clock,
        stats: world.layer,
      }),
    },
  );
  const addr = await transport.listen();
  return { gateway, fs, metrics, addr, transport };
}

/**
 * Lets pending promise chains run: the memory bucket, KV and simulated disk complete in
 * microtasks, so enough turns settle a whole sync without real time passing.
 */
export async function flush(): Promise<void> {
  for (let i = 0; i < 2_000; i++) await Promise.resolve();
}

/** Advances the clock in steps, flushing in between, until `until` holds or `maxMs` passed. */
export async function advanceUntil(
  world: World,
  until: () => boolean,
  maxMs: number,
  stepMs = 100,
): Promise<void> {
  for (let t = 0; t <= maxMs && !until(); t += stepMs) {
    await world.clock.advance(stepMs);
    await flush();
  }
}

/** Starts gateways together while advancing the clock (their ring waits poll it). */
export async function startGateways(world: World, gs: readonly TestGateway[]): Promise<void> {
  const outcomes = gs.map((g) => {
    const o: { done: boolean; err?: unknown } = { done: false };
    g.gateway.start(new AbortController().signal).then(
      () => (o.done = true),
      (err: unknown) => {
        o.err = err;
        o.done = true;
      },
    );
    return o;
  });
  await flush();
  await advanceUntil(world, () => outcomes.every((o) => o.done), 10 * 60_000);
  for (const o of outcomes)
    if (o.err !== undefined)
      throw o.err instanceof Error ? o.err : new Error(JSON.stringify(o.err));
  if (!outcomes.every((o) => o.done)) throw new Error('gateways did not start');
}

export async function metricValue(
  registry: MetricsRegistry,
  name: string,
  labels: Record<string, string> = {},
): Promise<number> {
  const metric = registry.getSingleMetric(name);
  if (metric === undefined) throw new Error(`no metric ${name}`);
  const data = await metric.get();
  const match = data.values.find(
    (v) =>
      Object.entries(labels).every(([k, val]) => v.labels[k] === val) &&
      !('metricName' in v && typeof v.metricName === 'string' && v.metricName.endsWith('_bucket')),
  );
  return match?.value ?? 0;
}

/** BucketStores without sharding over the world's bucket and the fake block layer. */
export function buildStores(
  world: World,
  over: Partial<BucketStoresConfig> = {},
  fs: FileSystem = new DiskFileSystem(),
) {
  const registry = newMetricsRegistry();
  const stores = new BucketStores(storesConfig(over), {
    bucket: world.bucket,
    fs,
    clock: world.clock,
    random: createSeededRandom('stores'),
    logger: world.logger,
    metrics: new StoreGatewayMetrics(registry),
    blockLoader: fakeBlockLoader({
      bucket: world.bucket,
      fs,
      clock: world.clock,
      stats: world.layer,
    }),
    sharding: NO_SHARDING,
  });
  return { stores, registry, fs };
}

/** A two-hour block with two series (`job` a: two chunks, b: one chunk). */
export async function twoSeriesBlock(
  world: World,
  tenant: string,
  seq: number,
  minTime: number,
  extra = {},
) {
  return uploadFakeBlock(world.bucket, {
    tenant,
    ulidTime: T0 - 10 * HOUR + seq,
    seq,
    minTime,
    maxTime: minTime + 2 * HOUR,
    series: [
      {
        labels: { __name__: 'up', job: 'a' },
        chunks: [
          [minTime, minTime + HOUR - 1],
          [minTime + HOUR, minTime + 2 * HOUR - 1],
        ],
      },
      { labels: { __name__: 'up', job: 'b' }, chunks: [[minTime, minTime + 2 * HOUR - 1]] },
    ],
    ...extra,
  });
}

export const heldIds = (stores: BucketStores, tenant: string) =>
  stores.blocks(tenant).map((b) => b.meta.ulid);
