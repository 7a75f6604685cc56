/**
 * Issue 13, integration (microservices): the write path (distributor, ingester and compactor
 * in one process, to spare a two-CPU runner three Node start-ups), a store-gateway and a
 * querier answering its own API, plus two query paths in front of pulling queriers — a
 * query-frontend with its own queue (`-querier.frontend-address`) and a query-frontend
 * behind a query-scheduler (`-frontend.scheduler-address`, `-querier.scheduler-address`) —
 * each its own process, sharing three real memcached processes through `dns+localhost:PORT`:
 * the results cache on all three, the index cache on all three, the chunks cache on two and
 * the metadata cache on one, so `cortex_memcache_client_servers` shows each list.
 *
 * Every answer through either frontend (split by 1h, results cached, `by` aggregations
 * sharded three ways) equals the querier's own answer byte for byte, bad input gets the
 * querier's status and body (400 for a bad expression or step, 422 for an execution error),
 * and SIGKILLing one memcached changes no answer.
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  cacheFlags,
  expectedServers,
  instantQuery,
  rangeQuery,
  startMemcachedTrio,
  type CacheLayout,
  type MemcachedTrio,
  type RangeParams,
  type RawAnswer,
} from './cluster/caches.js';
import {
  FAST_READ_PATH_FLAGS,
  NO_MERGING_COMPACTION_FLAGS,
  StrataServer,
  syntheticSeries,
  waitUntil,
} from './cluster/long-term.js';
import { pushSeries } from './cluster/remote-write.js';
import { startEtcd, type EtcdService } from './services/etcd.js';
import { ensureBuilt } from './strata-process.js';

const TENANT = 'team-q';
const METRIC = 'qf_micro_total';
const HOUR = 3_600_000;
const STEP = 60_000;
const now = Date.now();
// Multiples of 2 × STEP: the scheduled frontend runs the dashboard at twice the step.
const END = Math.floor((now - 10 * 60_000) / (2 * STEP)) * (2 * STEP);
const START = END - 5 * HOUR;
const PUSHED = [
  ...syntheticSeries(METRIC, 4, START - HOUR, now - 6 * 60_000, 30_000, { job: 'api' }, 'a'),
  ...syntheticSeries(METRIC, 3, START - HOUR, now - 6 * 60_000, 30_000, { job: 'db' }, 'd'),
];
const range = (query: string): RangeParams => ({ query, start: START, end: END, step: STEP });
const DASHBOARD: RangeParams[] = [
  `sum by (job) (rate(${METRIC}[5m]))`,
  `sum by (series) (${METRIC})`,
  `${METRIC}{job="db"}`,
  `min by (job) (${METRIC})`,
  `count(${METRIC})`,
].map(range);
const LAYOUT: CacheLayout = {
  results: [0, 1, 2],
  index: [0, 1, 2],
  chunks: [0, 1],
  metadata: [2],
};

let etcd: EtcdService | undefined;
let trio: MemcachedTrio | undefined;
let bucketDir: string | undefined;
const nodes: StrataServer[] = [];
let writer: StrataServer;
let gateway: StrataServer;
let querier: StrataServer;
let frontend: StrataServer;
let scheduledFrontend: StrataServer;
const frontends = (): StrataServer[] => [frontend, scheduledFrontend];
const outputs = (): string => nodes.map((n) => n.tail(3_000)).join('\n');
const value = async (
  n: StrataServer,
  name: string,
  labels: Record<string, string> = {},
): Promise<number> => (await n.metric(name, labels)) ?? 0;

// Building dist/ (when stale) is not part of the test's own time.
beforeAll(() => ensureBuilt(), 300_000);

beforeAll(async () => {
  [etcd, trio] = await Promise.all([startEtcd(), startMemcachedTrio()]);
  bucketDir = await mkdtemp(join(tmpdir(), 'strata-qf-bucket-'));
  const common = [
    '-ring.store=etcd',
    `-etcd.endpoints=${etcd.endpoint}`,
    '-distributor.replication-factor=1',
    '-ring.heartbeat-timeout=10s',
    '-experimental.tsdb.backend=filesystem',
    `-experimental.tsdb.filesystem.dir=${bucketDir}`,
    ...FAST_READ_PATH_FLAGS,
    ...NO_MERGING_COMPACTION_FLAGS,
    ...cacheFlags(trio, LAYOUT),
    '-frontend.query-vertical-shard-size=3',
    '-auth.enabled=true',
    '-log.level=warn',
  ];
  const start = async (name: string, args: string[]): Promise<StrataServer> => {
    const n = await StrataServer.start(name, [...args, ...common]);
    nodes.push(n);
    return n;
  };
  // The addresses the others need: the store-gateway's, the frontend's, the scheduler's.
  gateway = await start('store-gateway', ['-target=store-gateway']);
  frontend = await start('query-frontend', ['-target=query-frontend']);
  const scheduler = await start('query-scheduler', ['-target=query-scheduler']);
  scheduledFrontend = await start('scheduled-frontend', [
    '-target=query-frontend',
    `-frontend.scheduler-address=${scheduler.rpcAddress}`,
  ]);
  const querierArgs = [
    '-target=querier',
    '-experimental.tsdb.store-gateway-enabled=true',
    `-querier.store-gateway-addresses=${gateway.rpcAddress}`,
  ];
  [writer, querier] = await Promise.all([
    start('writer', [
      '-target=distributor,ingester,compactor',
      '-ingester.lifecycler.ID=ingester-1',
      '-ingester.join-after=0s',
      '-ingester.min-ready-duration=0s',
      '-ingester.heartbeat-period=1s',
    ]),
    start('querier', querierArgs),
    start('frontend-worker', [...querierArgs, `-querier.frontend-address=${frontend.rpcAddress}`]),
    start('scheduler-worker', [
      ...querierArgs,
      `-querier.scheduler-address=${scheduler.rpcAddress}`,
    ]),
  ]);
  await Promise.all(nodes.map((n) => n.waitReady(60_000)));
  expect(await pushSeries(writer.url, PUSHED, TENANT), outputs()).toEqual({
    status: 200,
    text: '',
  });
  await writer.flush();
  const blocks = (await readdir(join(bucketDir, TENANT))).filter((d) =>
    /^[0-9A-Z]{26}$/.test(d),
  ).length;
  expect(blocks).toBeGreaterThanOrEqual(3);
  await waitUntil(
    'the compactor indexes and the store-gateway loads every block',
    async () =>
      (await writer.metric('cortex_bucket_blocks_count', { user: TENANT })) === blocks &&
      (await gateway.metric('cortex_bucket_store_blocks_loaded')) === blocks
        ? true
        : undefined,
    20_000,
    outputs,
  );
}, 120_000);

afterAll(async () => {
  await Promise.all(nodes.map((n) => n.dispose()));
  await Promise.all((trio?.servers ?? []).map((s) => s.stop()));
  await etcd?.stop();
  if (bucketDir !== undefined) await rm(bucketDir, { recursive: true, force: true });
});

/** The querier's own answer, which must be a success for the comparisons to mean anything. */
async function querierAnswer(p: RangeParams): Promise<RawAnswer> {
  const a = await rangeQuery(querier.url, p, TENANT);
  expect(a.status, `${p.query}: ${a.text}`).toBe(200);
  return a;
}

describe('microservices with a query-frontend and a query-scheduler on three memcached', () => {
  it('answers split, cached and sharded range queries exactly as the querier does', async () => {
    // Each frontend its own step, so that each one's first round misses the shared cache.
    for (const [i, f] of frontends().entries()) {
      for (let round = 0; round < 2; round++) {
        for (const p of DASHBOARD.map((d) => ({ ...d, step: (i + 1) * STEP }))) {
          const [want, got] = await Promise.all([querierAnswer(p), rangeQuery(f.url, p, TENANT)]);
          expect(got.text, `${f.name}, round ${round}: ${p.query}`).toBe(want.text);
        }
      }
      expect(await value(f, 'cortex_frontend_split_queries_total'), f.name).toBeGreaterThan(0);
      expect(await value(f, 'cortex_frontend_sharded_queries_total'), f.name).toBeGreaterThan(0);
      expect(await value(f, 'cortex_query_frontend_queries_total'), f.name).toBe(
        2 * DASHBOARD.length,
      );
    }
    // Each second round came from the results cache: five or six splits per query.
    for (const f of frontends()) {
      expect(
        await value(f, 'thanos_cache_memcached_hits_total', { name: 'frontend-cache' }),
        f.name,
      ).toBeGreaterThanOrEqual(5 * DASHBOARD.length);
    }
  });

  it('reads the blocks through the store caches, each on its own address list', async () => {
    for (let round = 0; round < 2; round++) {
      for (const q of [`${METRIC}[5h]`, `count_over_time(${METRIC}{job="api"}[4h])`]) {
        const a = await instantQuery(querier.url, q, END, TENANT);
        expect(a.status, a.text).toBe(200);
        expect(a.text).toContain(`"job":"`);
        expect((await instantQuery(frontend.url, q, END, TENANT)).text, q).toBe(a.text);
      }
    }
    // A shardable instant query runs as three one-step shards: the querier's samples, in
    // label order (Prometheus promises no order for an instant vector).
    const q = `sum by (job) (count_over_time(${METRIC}[4h]))`;
    const bySeries = (text: string): unknown => {
      const body = JSON.parse(text) as { data: { result: { metric: object }[] } };
      return body.data.result.sort((x, y) =>
        JSON.stringify(x.metric).localeCompare(JSON.stringify(y.metric)),
      );
    };
    const before = await value(frontend, 'cortex_frontend_sharded_queries_total');
    const want = await instantQuery(querier.url, q, END, TENANT);
    const got = await instantQuery(frontend.url, q, END, TENANT);
    expect([got.status, bySeries(got.text)]).toEqual([200, bySeries(want.text)]);
    expect(await value(frontend, 'cortex_frontend_sharded_queries_total')).toBe(before + 3);
    for (const name of ['index-cache', 'chunks-cache', 'metadata-cache']) {
      expect(
        await value(gateway, 'thanos_cache_memcached_hits_total', { name }),
        name,
      ).toBeGreaterThan(0);
    }
    const servers = (n: StrataServer, name: string): Promise<number> =>
      value(n, 'cortex_memcache_client_servers', { name });
    expect(await servers(gateway, 'index-cache')).toBe(expectedServers(trio!, LAYOUT.index));
    expect(await servers(gateway, 'chunks-cache')).toBe(expectedServers(trio!, LAYOUT.chunks));
    expect(await servers(gateway, 'metadata-cache')).toBe(expectedServers(trio!, LAYOUT.metadata));
    expect(await servers(querier, 'metadata-cache')).toBe(expectedServers(trio!, LAYOUT.metadata));
    for (const f of frontends()) {
      expect(await servers(f, 'frontend-cache'), f.name).toBe(
        expectedServers(trio!, LAYOUT.results),
      );
    }
  });

  it('answers bad input with the querier’s status and body', async () => {
    const cases: { what: string; p: RangeParams; status: number }[] = [
      { what: 'bad expression', p: range(`sum(${METRIC}`), status: 400 },
      { what: 'range vector', p: range(`${METRIC}[5m]`), status: 400 },
      { what: 'zero step', p: { ...range(METRIC), step: '0' }, status: 400 },
      { what: 'negative step', p: { ...range(METRIC), step: '-60' }, status: 400 },
      { what: 'unparsable step', p: { ...range(METRIC), step: 'often' }, status: 400 },
      { what: 'end before start', p: { ...range(METRIC), start: END, end: START }, status: 400 },
      {
        // Many-to-many matching fails while evaluating: Prometheus answers 422.
        what: 'execution error',
        p: range(`${METRIC} * on(job) ${METRIC}`),
        status: 422,
      },
    ];
    for (const { what, p, status } of cases) {
      const want = await rangeQuery(querier.url, p, TENANT);
      expect(want.status, `${what}: ${want.text}`).toBe(status);
      for (const f of frontends()) {
        const got = await rangeQuery(f.url, p, TENANT);
        expect({ status: got.status, text: got.text }, `${f.name}: ${what}`).toEqual(want);
      }
    }
    const bad = await instantQuery(querier.url, `rate(${METRIC})`, END, TENANT);
    expect(bad.status).toBe(400);
    for (const f of frontends()) {
      expect(await instantQuery(f.url, `rate(${METRIC})`, END, TENANT), f.name).toEqual(bad);
    }
  });

  it('changes no answer when one memcached is SIGKILLed mid-run', async () => {
    const want = new Map<string, string>();
    for (const p of DASHBOARD) want.set(p.query, (await querierAnswer(p)).text);
    let stop = false;
    const answers: { who: string; query: string; status: number; text: string }[] = [];
    const load = Promise.all(
      frontends().map(async (f) => {
        while (!stop) {
          for (const p of DASHBOARD) {
            answers.push({ who: f.name, query: p.query, ...(await rangeQuery(f.url, p, TENANT)) });
          }
        }
      }),
    );
    await new Promise((r) => setTimeout(r, 300));
    await trio!.servers[0]!.kill();
    await new Promise((r) => setTimeout(r, 700));
    stop = true;
    await load;
    for (const a of answers) {
      expect(a.status, `${a.who}: ${a.text}`).toBe(200);
      expect(a.text, `${a.who}: ${a.query}`).toBe(want.get(a.query));
    }
    // After the kill: a longer range (new splits, some keys on the dead server) and the
    // store-gateway reading through its caches with one server gone.
    const longer = DASHBOARD.map((p) => ({ ...p, start: START - HOUR }));
    for (const p of longer) {
      const expected = (await querierAnswer(p)).text;
      for (const f of frontends()) {
        expect((await rangeQuery(f.url, p, TENANT)).text, `${f.name}: ${p.query}`).toBe(expected);
      }
    }
    expect(
      await value(frontend, 'thanos_memcached_operation_failures_total', {
        name: 'frontend-cache',
      }),
    ).toBeGreaterThan(0);
    expect(
      await value(frontend, 'cortex_memcache_client_servers', { name: 'frontend-cache' }),
    ).toBe(expectedServers(trio!, LAYOUT.results));
  });
});
