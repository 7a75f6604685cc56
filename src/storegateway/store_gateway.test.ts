import { afterEach, describe, expect, it } from 'vitest';
import { DiskFileSystem } from '../../sim/testing/index.js';
import { Matcher } from '../model/index.js';
import { JSON_RING_CODEC } from '../ring/index.js';
import { MemoryKV, isAbortError, type RpcError } from '../runtime/index.js';
import { TransportStoreGatewayClient } from './client.js';
import { isRetryableStoreGatewayError } from './errors.js';
import { deleteBlockObjects, uploadFakeBlock } from './fake_blocks.testing.js';
import {
  HOUR,
  MINUTE,
  T0,
  advanceUntil,
  flush,
  gatewayConfig,
  metricValue,
  newGateway,
  newWorld,
  startGateways,
  type TestGateway,
  type World,
} from './gateway_harness.testing.js';
import { toWireMatchers } from '../ingester/index.js';
import { BLOCKS_OWNER_SYNC, STORE_GATEWAY_RING_KEY, blockReplicaSet } from './sharding.js';

const running: TestGateway[] = [];
afterEach(async () => {
  for (const g of running.splice(0)) await g.gateway.stop();
});

async function blocks(world: World, tenant: string, n: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const minTime = T0 - (n - i + 2) * 2 * HOUR;
    const meta = await uploadFakeBlock(world.bucket, {
      tenant,
      ulidTime: T0 - 10 * HOUR + i,
      seq: i,
      minTime,
      maxTime: minTime + 2 * HOUR,
      series: [
        { labels: { __name__: 'up', i: String(i) }, chunks: [[minTime, minTime + 2 * HOUR - 1]] },
      ],
    });
    ids.push(meta.ulid);
  }
  return ids;
}

const held = (g: TestGateway, tenant: string) =>
  g.gateway.stores.blocks(tenant).map((b) => b.meta.ulid);

describe('StoreGateway lifecycle', () => {
  it('is not ready and answers unavailable until the initial sync completes', async () => {
    const world = newWorld();
    const [id] = await blocks(world, 't', 1);
    const g = await newGateway(world, 'sg-1', gatewayConfig());
    running.push(g);
    // Hold the initial sync inside the bucket listing.
    let release!: () => void;
    const hold = new Promise<void>((r) => (release = r));
    const list = world.bucket.list.bind(world.bucket);
    world.bucket.list = async (dir, opts) => {
      await hold;
      return list(dir, opts);
    };
    const started = g.gateway.start(new AbortController().signal);
    await flush();
    expect(g.gateway.state).toBe('Starting');
    expect(g.gateway.isReady()).toMatch(/Starting/);
    const client = new TransportStoreGatewayClient(world.network.transport('querier'));
    const req = { start: 0, end: T0, matchers: [], blockIds: [id ?? ''] };
    const err = await client.series(g.addr, 't', req).catch((e: unknown) => e);
    expect((err as RpcError).code).toBe('unavailable');
    expect((err as Error).message).toContain('initial blocks sync');
    expect(isRetryableStoreGatewayError(err)).toBe(true);
    release();
    await started;
    expect(g.gateway.isReady()).toBeUndefined();
    expect(held(g, 't')).toEqual([id]);
    expect(
      await metricValue(g.metrics, 'cortex_storegateway_bucket_sync_total', { reason: 'initial' }),
    ).toBe(1);
  });

  it('retries a failing initial sync (3 attempts) and fails to start after the last', async () => {
    const world = newWorld();
    await blocks(world, 't', 1);
    const g = await newGateway(world, 'sg-1', gatewayConfig());
    let failures = 2;
    const list = world.bucket.list.bind(world.bucket);
    world.bucket.list = (dir, opts) =>
      dir === '' && failures-- > 0 ? Promise.reject(new Error('503 slow down')) : list(dir, opts);
    running.push(g);
    await startGateways(world, [g]);
    expect(held(g, 't')).toHaveLength(1);

    const g2 = await newGateway(world, 'sg-2', gatewayConfig());
    world.bucket.list = (dir, opts) =>
      dir === '' ? Promise.reject(new Error('503 slow down')) : list(dir, opts);
    await expect(startGateways(world, [g2])).rejects.toThrow(/503 slow down/);
    expect(g2.gateway.state).toBe('Failed');
  });

  it('picks up a block uploaded later at the next periodic sync, and forgets a deleted one', async () => {
    const world = newWorld();
    const [first] = await blocks(world, 't', 1);
    const g = await newGateway(
      world,
      'sg-1',
      gatewayConfig({ bucketStore: { syncIntervalMs: 5 * MINUTE } }),
    );
    running.push(g);
    await startGateways(world, [g]);
    const later = await uploadFakeBlock(world.bucket, {
      tenant: 't',
      ulidTime: T0,
      seq: 9,
      minTime: T0 - 2 * HOUR,
      maxTime: T0,
    });
    // Within the shortest jittered interval (4 minutes) nothing changes...
    await advanceUntil(world, () => false, 3 * MINUTE, 10_000);
    expect(held(g, 't')).toEqual([first]);
    // ...and by the longest (6 minutes) the block is there.
    await advanceUntil(world, () => held(g, 't').length === 2, 3 * MINUTE + 10_000, 10_000);
    expect(held(g, 't')).toEqual([first, later.ulid]);
    expect(
      await metricValue(g.metrics, 'cortex_storegateway_bucket_sync_total', { reason: 'periodic' }),
    ).toBe(1);
    await deleteBlockObjects(world.bucket, 't', first ?? '');
    await advanceUntil(world, () => held(g, 't').length === 1, 7 * MINUTE, 10_000);
    expect(held(g, 't')).toEqual([later.ulid]);
    expect(await g.fs.exists(`/data/tsdb-sync/t/${first}`)).toBe(false);
  });

  it('does no periodic sync when sync_interval is 0', async () => {
    const world = newWorld();
    await blocks(world, 't', 1);
    const g = await newGateway(
      world,
      'sg-1',
      gatewayConfig({ bucketStore: { syncIntervalMs: 0 } }),
    );
    running.push(g);
    await startGateways(world, [g]);
    await blocks(world, 'u', 1);
    await advanceUntil(world, () => false, 30 * MINUTE, MINUTE);
    expect(g.gateway.stores.tenants()).toEqual(['t']);
  });
});

describe('StoreGateway sharding', () => {
  const sharded = (rf: number) =>
    gatewayConfig({
      shardingEnabled: true,
      ring: { replicationFactor: rf },
      bucketStore: { syncIntervalMs: 0 },
    });

  function owners(g: TestGateway, id: string): string[] {
    const ring = g.gateway.ring;
    if (ring === undefined) throw new Error('no ring');
    return blockReplicaSet(ring, id, BLOCKS_OWNER_SYNC, {
      heartbeatTimeoutMs: 60_000,
      nowMs: g.gateway.nowMs(),
    })
      .map((i) => i.addr)
      .sort();
  }

  it('loads every block on exactly RF gateways, the owners the ring names; a ring change moves blocks', async () => {
    const world = newWorld();
    const ids = await blocks(world, 't', 12);
    const gs: TestGateway[] = [];
    for (const name of ['sg-1', 'sg-2', 'sg-3']) gs.push(await newGateway(world, name, sharded(2)));
    running.push(...gs);
    const [sg1, sg2, sg3] = gs as [TestGateway, TestGateway, TestGateway];
    await startGateways(world, [sg1, sg2]);
    // Two gateways, RF 2: both hold everything.
    for (const g of [sg1, sg2]) expect(held(g, 't').sort()).toEqual([...ids].sort());
    // A third joins: the ring check of the others sees it and they give blocks up.
    await startGateways(world, [sg3]);
    await advanceUntil(world, () => false, 20_000, 1_000);
    for (const g of gs) expect(g.gateway.ringState).toBe('ACTIVE');
    const holders = (id: string) =>
      gs
        .filter((g) => held(g, 't').includes(id))
        .map((g) => g.addr)
        .sort();
    for (const id of ids) {
      expect(holders(id)).toHaveLength(2);
      expect(holders(id)).toEqual(owners(sg1, id));
    }
    expect(held(sg3, 't').length).toBeGreaterThan(0);
    expect(held(sg1, 't').length).toBeLessThan(ids.length);
    expect(
      await metricValue(sg1.metrics, 'cortex_storegateway_bucket_sync_total', {
        reason: 'ring-change',
      }),
    ).toBeGreaterThan(0);

    // sg-3 leaves: the two others each hold every block.
    const leaving = gs.pop() as TestGateway;
    running.splice(running.indexOf(leaving), 1);
    await leaving.gateway.stop();
    await advanceUntil(
      world,
      () => gs.every((g) => held(g, 't').length === ids.length),
      30_000,
      1_000,
    );
    for (const g of gs) expect(held(g, 't').sort()).toEqual([...ids].sort());
    const ring = JSON_RING_CODEC.decode(
      await new MemoryKV({ prefix: 'collectors/' }, { store: world.kvStore }).get(
        STORE_GATEWAY_RING_KEY,
      ),
    );
    expect(Object.keys(ring.ingesters).sort()).toEqual(['sg-1', 'sg-2']);
  });

  it('registers JOINING with 512 tokens and turns ACTIVE only after its blocks are loaded', async () => {
    const world = newWorld();
    await blocks(world, 't', 2);
    const g = await newGateway(world, 'sg-1', sharded(1));
    running.push(g);
    let release!: () => void;
    const hold = new Promise<void>((r) => (release = r));
    const getRange = world.bucket.getRange.bind(world.bucket);
    world.bucket.getRange = async (...args) => {
      await hold;
      return getRange(...args);
    };
    const started = startGateways(world, [g]);
    const kv = new MemoryKV({ prefix: 'collectors/' }, { store: world.kvStore });
    await advanceUntil(world, () => g.gateway.ringState === 'JOINING', 5_000);
    await advanceUntil(world, () => false, 2_000);
    const joining = JSON_RING_CODEC.decode(await kv.get(STORE_GATEWAY_RING_KEY)).ingesters['sg-1'];
    expect(joining?.state).toBe('JOINING');
    expect(joining?.tokens).toHaveLength(512);
    expect(g.gateway.isReady()).toMatch(/Starting/);
    release();
    await started;
    expect(
      JSON_RING_CODEC.decode(await kv.get(STORE_GATEWAY_RING_KEY)).ingesters['sg-1']?.state,
    ).toBe('ACTIVE');
    expect(held(g, 't')).toHaveLength(2);
  });

  it('keeps its tokens across a restart through the tokens file', async () => {
    const world = newWorld();
    const fs = new DiskFileSystem();
    const config = gatewayConfig({
      shardingEnabled: true,
      ring: { replicationFactor: 1, tokensFilePath: '/data/tokens' },
    });
    const first = await newGateway(world, 'sg-1', config, { fs });
    await startGateways(world, [first]);
    const tokens = JSON_RING_CODEC.decode(
      await new MemoryKV({ prefix: 'collectors/' }, { store: world.kvStore }).get(
        STORE_GATEWAY_RING_KEY,
      ),
    ).ingesters['sg-1']?.tokens;
    await first.gateway.stop();
    await first.transport.close();
    const second = await newGateway(world, 'sg-1', config, { fs: new DiskFileSystem(fs.disk) });
    running.push(second);
    await startGateways(world, [second]);
    expect(
      JSON_RING_CODEC.decode(
        await new MemoryKV({ prefix: 'collectors/' }, { store: world.kvStore }).get(
          STORE_GATEWAY_RING_KEY,
        ),
      ).ingesters['sg-1']?.tokens,
    ).toEqual(tokens);
  });
});

describe('StoreGateway RPC', () => {
  it('serves Series, LabelNames and LabelValues over the transport, listing only held blocks', async () => {
    const world = newWorld();
    const ids = await blocks(world, 't', 3);
    const g = await newGateway(world, 'sg-1', gatewayConfig());
    running.push(g);
    await startGateways(world, [g]);
    const client = new TransportStoreGatewayClient(world.network.transport('querier'));
    const unknown = '01ARZ3NDEKTSV4RRFFQ69G5FAV';
    const matchers = toWireMatchers([Matcher.equal('__name__', 'up')]);
    const res = await client.series(g.addr, 't', {
      start: 0,
      end: T0,
      matchers,
      blockIds: [...ids, unknown],
    });
    expect(res.queriedBlocks).toEqual([...ids].sort());
    expect(res.series.map((s) => s.labels.get('i'))).toEqual(['0', '1', '2']);
    expect(new TextDecoder().decode(res.series[0]?.chunks[0]?.data)).toContain(ids[0] ?? '?');
    expect(res.stats.chunksFetched).toBe(3);
    const skip = await client.series(g.addr, 't', {
      start: 0,
      end: T0,
      matchers,
      blockIds: [ids[1] ?? ''],
      skipChunks: true,
    });
    expect(skip.series).toHaveLength(1);
    expect(skip.series[0]?.chunks).toEqual([]);
    const names = await client.labelNames(g.addr, 't', {
      start: 0,
      end: T0,
      matchers: [],
      blockIds: [ids[0] ?? '', unknown],
    });
    expect(names).toEqual({ values: ['__name__', 'i'], queriedBlocks: [ids[0]] });
    const values = await client.labelValues(g.addr, 't', {
      name: 'i',
      start: 0,
      end: T0,
      matchers: [],
      blockIds: ids,
    });
    expect(values.values).toEqual(['0', '1', '2']);
    // Another tenant's blocks are never served.
    const other = await client.series(g.addr, 'other', {
      start: 0,
      end: T0,
      matchers,
      blockIds: ids,
    });
    expect(other.queriedBlocks).toEqual([]);
  });

  it('tells retryable failures from the query’s own and from the caller’s abort', async () => {
    const world = newWorld();
    const ids = await blocks(world, 't', 1);
    const g = await newGateway(
      world,
      'sg-1',
      gatewayConfig({ bucketStore: { maxSampleCount: 100 } }),
    );
    running.push(g);
    await startGateways(world, [g]);
    const client = new TransportStoreGatewayClient(world.network.transport('querier'));
    const req = { start: 0, end: T0, matchers: [], blockIds: ids };
    const limit = await client.series(g.addr, 't', req).catch((e: unknown) => e);
    expect((limit as RpcError).code).toBe('failed_precondition');
    expect((limit as Error).message).toContain('max-sample-count');
    expect(isRetryableStoreGatewayError(limit)).toBe(false);
    const noTenant = await client.series(g.addr, '', req).catch((e: unknown) => e);
    expect((noTenant as RpcError).code).toBe('invalid_argument');
    const ctl = new AbortController();
    ctl.abort();
    const aborted = await client
      .labelNames(g.addr, 't', req, { signal: ctl.signal })
      .catch((e: unknown) => e);
    expect(isAbortError(aborted)).toBe(true);
    expect(isRetryableStoreGatewayError(aborted)).toBe(false);
    world.network.disconnect(g.addr);
    const down = await client.labelNames(g.addr, 't', req).catch((e: unknown) => e);
    expect((down as RpcError).code).toBe('unavailable');
    expect(isRetryableStoreGatewayError(down)).toBe(true);
  });
});
