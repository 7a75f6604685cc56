// The querier's query-shard selector: its syntax and errors, the partition it makes (every
// series in exactly one shard, groups kept together), the Queryable that applies it without
// storage ever seeing the reserved label, and the querier's HTTP API answering a malformed
// selector with 400 naming the value.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { TEST_BUILD_INFO } from '../api/testing/index.js';
import { fromWireMatchers, type QueryRequest } from '../ingester/index.js';
import { Labels, Matcher } from '../model/index.js';
import {
  MemoryStorage,
  type Querier as StorageQuerier,
  type SelectHints,
} from '../promql/index.js';
import { Ring, type InstanceDesc } from '../ring/index.js';
import {
  createSeededRandom,
  MemoryKV,
  MemoryKVStore,
  MemoryNetwork,
  newMetricsRegistry,
} from '../runtime/index.js';
import { CapturingLogger, ManualClock } from '../runtime/testing/index.js';
import { HttpServer } from '../server/index.js';
import { FakeIngesterClient } from './fake_ingesters.testing.js';
import { Querier } from './querier.js';
import {
  formatShardSelector,
  parseShardSelector,
  QUERY_SHARD_LABEL,
  QueryShardError,
  shardingQueryable,
  shardOf,
  type ShardHashLabels,
} from './query_shard.js';
import { registerQuerierRoutes } from './routes.js';

const L = (...kv: string[]): Labels => Labels.fromStrings(...kv);

function randomSeries(count: number): Labels[] {
  const rnd = createSeededRandom('query-shard').stream('labels');
  const out = new Map<string, Labels>();
  while (out.size < count) {
    const l = L(
      '__name__',
      ['up', 'http_requests_total', 'temp'][rnd.int(3)] as string,
      'job',
      `job-${rnd.int(5)}`,
      'instance',
      `i-${rnd.int(40)}`,
      ...(rnd.next() < 0.3 ? ['zone', `z${rnd.int(3)}`] : []),
    );
    out.set(l.toString(), l);
  }
  return [...out.values()];
}

describe('shard selector syntax', () => {
  it.each([
    ['1_of_1', { index: 0, count: 1, labels: { kind: 'all' } }],
    ['3_of_16', { index: 2, count: 16, labels: { kind: 'all' } }],
    ['2_of_4:by:job,zone', { index: 1, count: 4, labels: { kind: 'by', names: ['job', 'zone'] } }],
    [
      '4_of_4:without:instance',
      { index: 3, count: 4, labels: { kind: 'without', names: ['instance'] } },
    ],
    ['1_of_2:without:', { index: 0, count: 2, labels: { kind: 'without', names: [] } }],
  ])('%s', (value, want) => {
    expect(parseShardSelector(value)).toEqual(want);
    expect(formatShardSelector(parseShardSelector(value))).toBe(value);
  });

  it.each([
    '',
    '0_of_4',
    '5_of_4',
    '1of4',
    '1_of_0',
    '-1_of_2',
    '1_of_2:by:bad-name',
    '1_of_2:sum:a',
    ' 1_of_2',
  ])('rejects %j naming the value', (value) => {
    let caught: unknown;
    try {
      parseShardSelector(value);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(QueryShardError);
    expect((caught as QueryShardError).errorType).toBe('bad_data');
    expect((caught as Error).message).toContain(`__query_shard__=${JSON.stringify(value)}`);
  });
});

describe('shard partition', () => {
  const series = randomSeries(300);
  const kinds: ShardHashLabels[] = [
    { kind: 'all' },
    { kind: 'by', names: ['job'] },
    { kind: 'by', names: ['job', 'zone'] },
    { kind: 'without', names: ['instance'] },
  ];

  it.each(kinds)('puts every series in exactly one shard and spreads them ($kind)', (labels) => {
    for (const n of [2, 3, 7]) {
      const sizes = new Array<number>(n).fill(0);
      for (const s of series) {
        const shard = shardOf(s, n, labels);
        expect(Number.isInteger(shard) && shard >= 0 && shard < n).toBe(true);
        sizes[shard] = (sizes[shard] as number) + 1;
      }
      expect(sizes.reduce((a, b) => a + b)).toBe(series.length);
      // The grouping of `by (job)` has only 5 groups; otherwise every shard gets series.
      if (labels.kind !== 'by' || n <= 3)
        expect(sizes.filter((x) => x > 0).length).toBeGreaterThan(1);
    }
  });

  it('keeps each group in one shard and ignores the metric name', () => {
    const n = 4;
    const byJob: ShardHashLabels = { kind: 'by', names: ['job', '__name__'] };
    const shardOfJob = new Map<string, number>();
    for (const s of series) {
      const shard = shardOf(s, n, byJob);
      const seen = shardOfJob.get(s.get('job'));
      if (seen !== undefined) expect(shard).toBe(seen);
      shardOfJob.set(s.get('job'), shard);
      // Series equal but for their name meet in one shard, whatever is hashed.
      const renamed = L(
        '__name__',
        'other',
        ...s
          .without('__name__')
          .names()
          .flatMap((x) => [x, s.get(x)]),
      );
      for (const k of [
        { kind: 'all' },
        { kind: 'without', names: ['zone'] },
      ] as ShardHashLabels[]) {
        expect(shardOf(renamed, n, k)).toBe(shardOf(s, n, k));
      }
    }
  });
});

class RecordingQuerier implements StorageQuerier {
  readonly selects: { matchers: readonly Matcher[]; hints: SelectHints | undefined }[] = [];
  constructor(private readonly inner: StorageQuerier) {}
  select(matchers: readonly Matcher[], hints?: SelectHints) {
    this.selects.push({ matchers, hints });
    return this.inner.select(matchers, hints);
  }
  labelNames(matchers: readonly Matcher[]) {
    this.selects.push({ matchers, hints: undefined });
    return this.inner.labelNames(matchers);
  }
  labelValues(name: string, matchers: readonly Matcher[]) {
    return this.inner.labelValues(name, matchers);
  }
  close() {
    return this.inner.close();
  }
}

describe('sharding queryable', () => {
  const series = randomSeries(120);
  const storage = new MemoryStorage();
  for (const s of series) storage.add(s, 1000, 1);
  let recorder: RecordingQuerier | undefined;
  const queryable = shardingQueryable({
    querier: async (mint, maxt) =>
      (recorder = new RecordingQuerier(await storage.querier(mint, maxt))),
  });
  const name = Matcher.regex('__name__', 'up|temp');

  it('returns each shard once: the union over shards is the unsharded selection', async () => {
    const q = await queryable.querier(0, 2000);
    const all = (await q.select([name], { start: 0, end: 2000 })).map((s) => s.labels.toString());
    expect(all.length).toBeGreaterThan(40);
    for (const suffix of ['', ':by:job', ':without:instance']) {
      const seen: string[] = [];
      for (let i = 1; i <= 5; i++) {
        const shard = Matcher.equal(QUERY_SHARD_LABEL, `${i}_of_5${suffix}`);
        const got = await q.select([name, shard], { start: 0, end: 2000, limit: 3 });
        seen.push(...got.map((s) => s.labels.toString()));
      }
      expect(seen.sort()).toEqual([...all].sort());
    }
    // Storage saw neither the reserved label nor a series limit it would apply too early.
    for (const s of recorder?.selects ?? []) {
      expect(s.matchers.map((m) => m.name)).not.toContain(QUERY_SHARD_LABEL);
      expect(s.hints?.limit).toBeUndefined();
    }
    await expect(
      q.labelNames([name, Matcher.equal(QUERY_SHARD_LABEL, '1_of_2')]),
    ).resolves.toContain('job');
  });

  it('rejects a shard matcher that is not an equality or not well formed', async () => {
    const q = await queryable.querier(0, 2000);
    await expect(q.select([name, Matcher.regex(QUERY_SHARD_LABEL, '1_of_2')])).rejects.toThrow(
      'the matcher must be "=", not "=~"',
    );
    await expect(q.select([name, Matcher.equal(QUERY_SHARD_LABEL, 'x')])).rejects.toBeInstanceOf(
      QueryShardError,
    );
  });
});

const NOW = 1_700_000_000_000;
const ADDRS = ['ing-a', 'ing-b', 'ing-c'];

function ring(clock: ManualClock): Ring {
  const r = new Ring(
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
  const ingesters: Record<string, InstanceDesc> = {};
  ADDRS.forEach((addr, i) => {
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

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
});

async function serveQuerier(): Promise<{ base: string; client: FakeIngesterClient }> {
  const clock = new ManualClock(NOW);
  const client = new FakeIngesterClient();
  for (const addr of ADDRS) {
    for (const job of ['api', 'db']) {
      for (const instance of ['a', 'b', 'c']) {
        client.add(addr, 'team-a', L('__name__', 'up', 'job', job, 'instance', instance), [
          [NOW - 60_000, instance === 'a' ? 1 : 2],
        ]);
      }
    }
  }
  const querier = new Querier(
    {
      timeoutMs: 120_000,
      maxSamples: 1_000_000,
      lookbackDeltaMs: 300_000,
      queryIngestersWithinMs: 0,
    },
    {
      clock,
      logger: new CapturingLogger(),
      metrics: newMetricsRegistry(),
      transport: new MemoryNetwork().transport('querier-1'),
      ingesterRing: ring(clock),
      client,
      buildInfo: TEST_BUILD_INFO,
    },
  );
  const server = new HttpServer(
    {
      authEnabled: true,
      prefixes: { legacy: '/api/prom', prometheus: '/prometheus', alertmanager: '/alertmanager' },
    },
    { clock, logger: new CapturingLogger(), metrics: newMetricsRegistry() },
  );
  registerQuerierRoutes(server, querier);
  const http = createServer(server.handler);
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  closers.push(
    () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  );
  return { base: `http://127.0.0.1:${(http.address() as AddressInfo).port}`, client };
}

describe('the querier API', () => {
  const t = (NOW - 30_000) / 1000;
  const get = (base: string, query: string, engine = 'prometheus') =>
    fetch(
      `${base}/prometheus/api/v1/query_range?start=${t}&end=${t + 60}&step=15&query=${encodeURIComponent(query)}`,
      {
        headers: { 'X-Scope-OrgID': 'team-a', 'X-PromQL-EngineType': engine },
      },
    );

  it.each(['prometheus', 'thanos'])(
    'answers a malformed shard selector with 400 naming it (%s engine)',
    async (engine) => {
      const { base } = await serveQuerier();
      const res = await get(base, 'sum(up{__query_shard__="3_of_2"})', engine);
      expect(res.status).toBe(400);
      const body = (await res.json()) as { errorType: string; error: string };
      expect(body.errorType).toBe('bad_data');
      expect(body.error).toContain('invalid query shard selector __query_shard__="3_of_2"');
    },
  );

  it('filters shards before the ingesters, which never see the reserved label', async () => {
    const { base, client } = await serveQuerier();
    const counts: number[] = [];
    for (let i = 1; i <= 3; i++) {
      const res = await get(base, `count(up{__query_shard__="${i}_of_3"})`);
      expect(res.status).toBe(200);
      const body = (await res.json()) as { data: { result: { values: [number, string][] }[] } };
      counts.push(Number(body.data.result[0]?.values[0]?.[1] ?? 0));
    }
    expect(counts.reduce((a, b) => a + b)).toBe(6);
    const streamed = client.calls.filter((c) => c.method === 'queryStream');
    expect(streamed.length).toBeGreaterThan(0);
    for (const c of streamed) {
      const names = fromWireMatchers((c.req as QueryRequest).matchers).map((m) => m.name);
      expect(names).not.toContain(QUERY_SHARD_LABEL);
    }
  });
});
