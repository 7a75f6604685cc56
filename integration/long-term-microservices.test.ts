/**
 * Acceptance (issue 10), microservices mode on MinIO: one distributor, one ingester
 * (shipping to MinIO), a compactor (its cleaner writes the bucket indexes), two
 * store-gateways sharding the blocks over an etcd ring (replication factor 1, so each
 * block lives on exactly one of them) and a querier reading the store-gateways through
 * that ring (`-experimental.tsdb.store-gateway-enabled=true
 * -experimental.store-gateway.sharding-enabled=true`), each its own process.
 *
 * Several hours of samples are pushed and flushed; the querier answers them through the
 * ingester and the store-gateways. Then every Strata process stops, every local disk is
 * wiped (the ingester's TSDB, the gateways' index-headers, the compactor's directory), and
 * all start again on the same bucket, etcd and ports: once they are ready, the querier
 * answers every sample exactly once from the store-gateways alone.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  completeBlocks,
  minioView,
  readBucketIndexDocument,
  type BucketView,
} from './cluster/bucket-view.js';
import {
  StrataServer,
  FAST_READ_PATH_FLAGS,
  NO_MERGING_COMPACTION_FLAGS,
  expectedSamples,
  listTree,
  pastWindow,
  readBack,
  s3Flags,
  sampleDiff,
  syntheticSeries,
  waitUntil,
} from './cluster/long-term.js';
import { fetchRing } from './cluster/nodes.js';
import { strataApi } from './cluster/query.js';
import { pushSeries } from './cluster/remote-write.js';
import { startEtcd, type EtcdService } from './services/etcd.js';
import { startMinio, type MinioService } from './services/minio.js';
import { ensureBuilt } from './strata-process.js';

const TENANT = 'team-m';
const METRIC = 'lt_micro';
const now = Date.now();
const OLD = pastWindow(now, 12, 1);
const PUSHED = [
  ...syntheticSeries(METRIC, 6, OLD.from, OLD.to, 60_000, { part: 'old' }, 'old-'),
  ...syntheticSeries(METRIC, 3, now - 600_000, now - 1_000, 15_000, { part: 'recent' }, 'new-'),
];
const EXPECTED = expectedSamples(PUSHED);

let etcd: EtcdService | undefined;
let minio: MinioService | undefined;
let view: BucketView;
const nodes: StrataServer[] = [];
let distributor: StrataServer;
let ingester: StrataServer;
let querier: StrataServer;
let compactor: StrataServer;
let gateways: StrataServer[] = [];
let blocks: string[] = [];

const outputs = (): string => nodes.map((n) => n.tail(3_000)).join('\n');
const read = (): Promise<Map<string, [number, number][]>> =>
  readBack(strataApi(querier.url, TENANT), METRIC, OLD.from, now);
const loadedOnGateways = async (): Promise<number[]> =>
  Promise.all(
    gateways.map(async (g) => (await g.metric('cortex_bucket_store_blocks_loaded')) ?? 0),
  );

beforeAll(async () => {
  ensureBuilt();
  etcd = await startEtcd();
  minio = await startMinio();
  const bucket = await minio.createBucket('micro');
  view = minioView(minio, bucket);
  const ring = [
    '-ring.store=etcd',
    `-etcd.endpoints=${etcd.endpoint}`,
    '-distributor.replication-factor=1',
    '-ring.heartbeat-timeout=10s',
    '-experimental.store-gateway.sharding-enabled=true',
    '-experimental.store-gateway.sharding-ring.store=etcd',
    `-experimental.store-gateway.sharding-ring.etcd.endpoints=${etcd.endpoint}`,
    '-experimental.store-gateway.replication-factor=1',
    '-experimental.store-gateway.sharding-ring.heartbeat-period=1s',
    '-experimental.store-gateway.sharding-ring.heartbeat-timeout=10s',
    '-experimental.store-gateway.sharding-ring.wait-stability-min-duration=0s',
  ];
  const storage = [
    ...s3Flags(minio, bucket),
    ...FAST_READ_PATH_FLAGS,
    ...NO_MERGING_COMPACTION_FLAGS,
  ];
  const common = [...ring, ...storage, '-auth.enabled=true', '-log.level=warn'];
  const start = async (name: string, args: string[]): Promise<StrataServer> => {
    const n = await StrataServer.start(name, [...args, ...common]);
    nodes.push(n);
    return n;
  };
  [ingester, distributor, querier, compactor, ...gateways] = await Promise.all([
    start('ingester', [
      '-target=ingester',
      '-ingester.lifecycler.ID=ingester-1',
      '-ingester.join-after=0s',
      '-ingester.min-ready-duration=0s',
      '-ingester.heartbeat-period=1s',
    ]),
    start('distributor', ['-target=distributor']),
    start('querier', ['-target=querier', '-experimental.tsdb.store-gateway-enabled=true']),
    start('compactor', ['-target=compactor']),
    ...[1, 2].map((i) =>
      start(`store-gateway-${i}`, [
        '-target=store-gateway',
        `-experimental.store-gateway.sharding-ring.instance-id=store-gateway-${i}`,
      ]),
    ),
  ]);
  await Promise.all(nodes.map((n) => n.waitReady(60_000)));
}, 180_000);

afterAll(async () => {
  await Promise.all(nodes.map((n) => n.dispose()));
  await minio?.stop();
  await etcd?.stop();
});

describe('microservices on MinIO: store-gateways sharded over etcd', () => {
  it('both store-gateways are ACTIVE in the ring the querier reads', async () => {
    const rows = await waitUntil(
      'two ACTIVE store-gateways',
      async () => {
        const r = await fetchRing(`${gateways[0]!.url}/store-gateway/ring`);
        return r.length === 2 && r.every((x) => x.state === 'ACTIVE') ? r : undefined;
      },
      30_000,
      outputs,
    );
    expect(rows.map((r) => r.id).sort()).toEqual(['store-gateway-1', 'store-gateway-2']);
    expect(rows.map((r) => r.addr).sort()).toEqual(gateways.map((g) => g.rpcAddress).sort());
  });

  it('pushes, flushes and ships the blocks; the querier answers through the store-gateways', async () => {
    const res = await pushSeries(distributor.url, PUSHED, TENANT);
    expect(res, outputs()).toEqual({ status: 200, text: '' });
    await ingester.flush();
    blocks = await completeBlocks(view, TENANT);
    // Six 2h ranges of old data (twelve hours never fit in fewer) and the recent one.
    expect(blocks.length).toBeGreaterThanOrEqual(7);
    // The index is written just before the run's gauges are set: wait for both.
    await waitUntil(
      'the compactor indexes every block',
      async () =>
        (await readBucketIndexDocument(view, TENANT))?.blocks.length === blocks.length &&
        (await compactor.metric('cortex_bucket_blocks_count', { user: TENANT })) === blocks.length
          ? true
          : undefined,
      20_000,
      outputs,
    );
    await waitUntil(
      'the store-gateways load every block once between them',
      async () =>
        (await loadedOnGateways()).reduce((a, b) => a + b, 0) === blocks.length ? true : undefined,
      20_000,
      outputs,
    );
    expect(sampleDiff(EXPECTED, await read())).toEqual([]);
  }, 60_000);

  it('after every process restarts with an empty local disk, answers every sample once from the store-gateways', async () => {
    expect(await Promise.all(nodes.map((n) => n.stop()))).toEqual(nodes.map(() => 0));
    // The gateways had index-headers on disk, the ingester its blocks.
    for (const g of gateways) {
      expect((await listTree(g.cwd)).some((p) => p.endsWith('/index-header'))).toBe(true);
    }
    for (const n of nodes) await n.wipe();
    for (const n of nodes) n.restart();
    await Promise.all(nodes.map((n) => n.waitReady(60_000)));
    await waitUntil(
      'two ACTIVE store-gateways again',
      async () => {
        const r = await fetchRing(`${querier.url}/store-gateway/ring`).catch(() =>
          fetchRing(`${gateways[0]!.url}/store-gateway/ring`),
        );
        return r.length === 2 && r.every((x) => x.state === 'ACTIVE') ? true : undefined;
      },
      30_000,
      outputs,
    );
    expect(sampleDiff(EXPECTED, await read()), outputs()).toEqual([]);
    // While the second gateway joins, the first may hold blocks it will hand over: wait
    // for the shards to settle, each block on one gateway.
    await waitUntil(
      'every block loaded once between the store-gateways',
      async () =>
        (await loadedOnGateways()).reduce((a, b) => a + b, 0) === blocks.length ? true : undefined,
      30_000,
      outputs,
    );
    expect(sampleDiff(EXPECTED, await read()), outputs()).toEqual([]);
    expect(await ingester.metric('cortex_ingester_memory_series')).toBe(0);
    // The index-headers were rebuilt from MinIO.
    const headers = await Promise.all(
      gateways.map(async (g) => (await listTree(g.cwd)).filter((p) => p.endsWith('/index-header'))),
    );
    expect(headers.flat()).toHaveLength(blocks.length);
    const series = await strataApi(querier.url, TENANT).series(
      [`${METRIC}{part="old"}`],
      OLD.from,
      now,
    );
    expect(series).toHaveLength(6);
  }, 120_000);
});
