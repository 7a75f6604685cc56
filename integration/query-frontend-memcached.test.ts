/**
 * Issue 13, integration (single binary): `strata -target=all` (the `npm start` configuration)
 * with its results, index, chunks and metadata caches on three real memcached processes
 * (Debian's) through `dns+localhost:PORT`, the frontend splitting by 1h and sharding
 * `by` aggregations three ways. A second single binary with no caches, no splitting and no
 * sharding takes the same samples: every answer of the first must equal its answer, byte
 * for byte.
 *
 * Six hours of samples ending ten minutes ago are pushed and flushed, so the store-gateway
 * serves them from shipped blocks (the store caches see traffic) while the frontend may
 * cache every split (older than `max_cache_freshness`). A dashboard run twice is answered
 * the second time from memcached; overwriting a cached entry with truncated bytes or with
 * another key's entry changes no answer and the entry is written back whole; SIGKILLing one
 * memcached mid-run changes no answer either.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  cacheFlags,
  expectedServers,
  findEntry,
  instantQuery,
  rangeQuery,
  resultsCacheKey,
  startMemcachedTrio,
  type MemcachedTrio,
  type RangeParams,
} from './cluster/caches.js';
import {
  FAST_READ_PATH_FLAGS,
  NO_MERGING_COMPACTION_FLAGS,
  StrataServer,
  listTree,
  npmStartCommand,
  syntheticSeries,
  waitUntil,
} from './cluster/long-term.js';
import { pushSeries } from './cluster/remote-write.js';
import { memcachedSet } from './services/memcached_text.js';
import { ensureBuilt } from './strata-process.js';

const TENANT = 'fake'; // auth disabled in the npm start configuration
const METRIC = 'qf_requests_total';
const HOUR = 3_600_000;
const STEP = 60_000;
const now = Date.now();
const END = Math.floor((now - 10 * 60_000) / STEP) * STEP;
const START = END - 6 * HOUR;
const PUSHED = [
  ...syntheticSeries(METRIC, 4, START - HOUR, now - 6 * 60_000, 30_000, { job: 'api' }, 'a'),
  ...syntheticSeries(METRIC, 3, START - HOUR, now - 6 * 60_000, 30_000, { job: 'db' }, 'd'),
];
const DASHBOARD: RangeParams[] = [
  `sum by (job) (rate(${METRIC}[5m]))`,
  `${METRIC}{job="api"}`,
  `max by (series) (${METRIC})`,
  `count by (job) (${METRIC})`,
  `topk(2, ${METRIC})`,
].map((query) => ({ query, start: START, end: END, step: STEP }));

let trio: MemcachedTrio | undefined;
let cached: StrataServer;
let plain: StrataServer;
const nodes: StrataServer[] = [];
const outputs = (): string => nodes.map((n) => n.tail(4_000)).join('\n');

async function blocksInBucket(server: StrataServer): Promise<number> {
  const dir = join(server.dataDir, 'blocks', TENANT);
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  return entries.filter((e) => e.isDirectory() && /^[0-9A-Z]{26}$/.test(e.name)).length;
}

/** Both binaries' answers to the dashboard: the cached one's must equal the plain one's. */
async function dashboardMatches(label: string): Promise<void> {
  for (const p of DASHBOARD) {
    const [a, b] = await Promise.all([rangeQuery(cached.url, p), rangeQuery(plain.url, p)]);
    expect(b.status, `${label}: ${p.query}: ${b.text}`).toBe(200);
    expect(a.text, `${label}: ${p.query}`).toBe(b.text);
  }
}

const frontendCache = { name: 'frontend-cache' };
const metric = (name: string, labels: Record<string, string> = {}): Promise<number> =>
  cached.metric(name, labels).then((v) => v ?? 0);

/**
 * Waits until the frontend's asynchronous cache writes are done: one finished set (a
 * duration observed) per miss so far.
 */
async function setsSettled(): Promise<void> {
  await waitUntil(
    'every results-cache miss written back',
    async () => {
      const [sets, requests, hits] = await Promise.all([
        metric('thanos_memcached_operation_duration_seconds_count', {
          ...frontendCache,
          operation: 'set',
        }),
        metric('thanos_cache_memcached_requests_total', frontendCache),
        metric('thanos_cache_memcached_hits_total', frontendCache),
      ]);
      return requests > 0 && sets >= requests - hits ? true : undefined;
    },
    10_000,
    outputs,
  );
}

// Building dist/ (when stale) is not part of the test's own time.
beforeAll(() => ensureBuilt(), 300_000);

beforeAll(async () => {
  trio = await startMemcachedTrio();
  const { nodeArgs, args } = npmStartCommand();
  const common = [
    ...args,
    ...FAST_READ_PATH_FLAGS,
    ...NO_MERGING_COMPACTION_FLAGS,
    '-log.level=warn',
  ];
  [cached, plain] = await Promise.all([
    StrataServer.start(
      'cached',
      [...common, ...cacheFlags(trio), '-frontend.query-vertical-shard-size=3'],
      { nodeArgs },
    ),
    StrataServer.start('plain', common, { nodeArgs }),
  ]);
  nodes.push(cached, plain);
  await Promise.all(nodes.map((n) => n.waitReady(60_000)));
  for (const n of nodes) {
    expect(await pushSeries(n.url, PUSHED), n.name).toEqual({ status: 200, text: '' });
  }
  await Promise.all(nodes.map((n) => n.flush()));
  for (const n of nodes) {
    const blocks = await blocksInBucket(n);
    expect(blocks, n.name).toBeGreaterThanOrEqual(3);
    let seen: unknown[] = [];
    await waitUntil(
      `${n.name}: the compactor indexes and the store-gateway loads every block`,
      async () => {
        seen = [
          await n.metric('cortex_bucket_blocks_count', { user: TENANT }),
          await n.metric('cortex_bucket_store_blocks_loaded'),
        ];
        return seen.every((v) => v === blocks) ? true : undefined;
      },
      20_000,
      () => `${blocks} blocks, indexed and loaded: ${JSON.stringify(seen)}\n${outputs()}`,
    ).catch(async (e: unknown) => {
      throw new Error(`${String(e)}\n${(await listTree(n.cwd)).join('\n')}`);
    });
  }
}, 120_000);

afterAll(async () => {
  await Promise.all(nodes.map((n) => n.dispose()));
  await Promise.all((trio?.servers ?? []).map((s) => s.stop()));
});

describe('single binary with its caches on three memcached', () => {
  it('answers a dashboard as the uncached binary does, the repeat from the results cache', async () => {
    await dashboardMatches('cold');
    await setsSettled();
    const hits = await metric('thanos_cache_memcached_hits_total', frontendCache);
    const requests = await metric('thanos_cache_memcached_requests_total', frontendCache);
    const firstRun = await Promise.all(DASHBOARD.map((p) => rangeQuery(cached.url, p)));
    const secondRun = await Promise.all(DASHBOARD.map((p) => rangeQuery(cached.url, p)));
    expect(secondRun.map((a) => a.text)).toEqual(firstRun.map((a) => a.text));
    // Every split of both runs (six or seven per query) was a hit.
    const moreHits = (await metric('thanos_cache_memcached_hits_total', frontendCache)) - hits;
    const moreRequests =
      (await metric('thanos_cache_memcached_requests_total', frontendCache)) - requests;
    expect(moreHits).toBeGreaterThanOrEqual(2 * 6 * DASHBOARD.length);
    expect(moreHits).toBe(moreRequests);
    expect(await metric('cortex_frontend_split_queries_total')).toBeGreaterThan(0);
    expect(await metric('cortex_frontend_sharded_queries_total')).toBeGreaterThan(0);
    await dashboardMatches('warm');
  });

  it('reads the shipped blocks through the index, chunks and metadata caches', async () => {
    // Instant queries are not results-cached: each one reads the store-gateway.
    const raw = [`${METRIC}[6h]`, `count_over_time(${METRIC}{job="db"}[5h])`];
    for (let round = 0; round < 2; round++) {
      for (const q of raw) {
        const [a, b] = await Promise.all([
          instantQuery(cached.url, q, END),
          instantQuery(plain.url, q, END),
        ]);
        expect(b.status, b.text).toBe(200);
        expect(a.text, q).toBe(b.text);
      }
    }
    for (const name of ['index-cache', 'chunks-cache', 'metadata-cache']) {
      expect(await metric('thanos_cache_memcached_hits_total', { name }), name).toBeGreaterThan(0);
    }
    for (const name of ['frontend-cache', 'index-cache', 'chunks-cache', 'metadata-cache']) {
      expect(await metric('cortex_memcache_client_servers', { name }), name).toBe(
        expectedServers(trio!, [0, 1, 2]),
      );
    }
  });

  it('ignores and replaces a truncated entry and an entry of another key', async () => {
    const p = { ...DASHBOARD[1]!, step: STEP };
    const first = resultsCacheKey(TENANT, p, START, HOUR);
    const second = resultsCacheKey(TENANT, p, (Math.trunc(START / HOUR) + 1) * HOUR, HOUR);
    const want = (await rangeQuery(plain.url, p)).text;
    const decodedKey = async (): Promise<string | undefined> => {
      const found = await findEntry(trio!, first.hashed);
      if (found === undefined) return undefined;
      try {
        return (JSON.parse(found.value.toString('utf8')) as { key?: string }).key;
      } catch {
        return undefined;
      }
    };
    expect(await decodedKey()).toBe(first.key);
    const holder = (await findEntry(trio!, first.hashed))!;
    const other = (await findEntry(trio!, second.hashed))!;
    expect(other, 'the second split is cached too').toBeDefined();

    const invalid = (reason: string): Promise<number> =>
      metric('strata_frontend_results_cache_invalid_entries_total', { reason });
    const cases = [
      { reason: 'decode', bytes: holder.value.subarray(0, Math.floor(holder.value.length / 2)) },
      { reason: 'key_mismatch', bytes: other.value },
    ];
    for (const { reason, bytes } of cases) {
      await memcachedSet(holder.server.port, first.hashed, bytes);
      expect(await decodedKey(), reason).not.toBe(first.key);
      const before = await invalid(reason);
      const answer = await rangeQuery(cached.url, p);
      expect(answer.status, reason).toBe(200);
      expect(answer.text, reason).toBe(want);
      expect(await invalid(reason), reason).toBe(before + 1);
      await waitUntil(
        `the ${reason} entry is written back whole`,
        async () => ((await decodedKey()) === first.key ? true : undefined),
        10_000,
        outputs,
      );
    }
  });

  it('changes no answer when one memcached is SIGKILLed mid-run', async () => {
    const victim = trio!.servers[1]!;
    let stop = false;
    const answers: { query: string; status: number; text: string }[] = [];
    const load = (async () => {
      while (!stop) {
        for (const p of DASHBOARD) {
          const a = await rangeQuery(cached.url, p);
          answers.push({ query: p.query, ...a });
        }
      }
    })();
    await new Promise((r) => setTimeout(r, 300));
    await victim.kill();
    await new Promise((r) => setTimeout(r, 700));
    stop = true;
    await load;
    expect(answers.length).toBeGreaterThan(DASHBOARD.length);
    const want = new Map<string, string>();
    for (const p of DASHBOARD) want.set(p.query, (await rangeQuery(plain.url, p)).text);
    for (const a of answers) {
      expect(a.status, a.text).toBe(200);
      expect(a.text, a.query).toBe(want.get(a.query));
    }
    await dashboardMatches('after the kill');
    expect(
      await metric('thanos_memcached_operation_failures_total', frontendCache),
    ).toBeGreaterThan(0);
    // The address list did not change: every server is still counted.
    expect(await metric('cortex_memcache_client_servers', frontendCache)).toBe(
      expectedServers(trio!, [0, 1, 2]),
    );
  });
});
