// The query-frontend wired by -target: answers through the frontend's queue (its own, or a
// query-scheduler's) equal the querier's own, the results cache answers repeats, bad input
// gets the querier's status and message, and a full tenant queue answers 429.
import { afterEach, describe, expect, it } from 'vitest';
import type { Config } from '../config/index.js';
import {
  PUSH_HEADERS,
  T0,
  cluster as newCluster,
  nodeConfig,
  pushBody,
  request,
  series,
  startNode,
  stopCluster,
  type Cluster,
} from './cluster.testing.js';
import type { Strata } from './strata.js';

const HOUR = 3_600_000;
const clusters: Cluster[] = [];
afterEach(async () => {
  for (const c of clusters.splice(0)) await stopCluster(c);
});

function cluster(): Cluster {
  const c = newCluster();
  clusters.push(c);
  return c;
}

const single = (edit: (c: Config) => void = () => undefined) =>
  nodeConfig('ingester', (c) => {
    c.ingester.lifecycler.ring.replication_factor = 1;
    edit(c);
  });

/** One ingester (RF 1) holding two series over the six hours before now, every minute. */
async function ingesterWithData(c: Cluster): Promise<void> {
  // Now is the end of the data: the ingester refuses samples more than 10m in the future.
  await c.clock.advance(6 * HOUR);
  await startNode(c, 'ingester', single());
  await c.clock.advance(0);
  const distributor = await startNode(
    c,
    'distributor',
    single((cfg) => (cfg.target = 'distributor')),
  );
  const points = (f: (i: number) => number): [number, number][] =>
    Array.from({ length: 360 }, (_, i) => [T0 + i * 60_000, f(i)]);
  const res = await request(
    distributor,
    'POST',
    '/api/v1/push',
    pushBody([
      series(
        'requests_total',
        'a',
        points((i) => i * 3),
      ),
      series(
        'requests_total',
        'b',
        points((i) => i * 5),
      ),
    ]),
    { ...PUSH_HEADERS, 'X-Scope-OrgID': 'team-a' },
  );
  expect(res.status, res.text).toBe(200);
}

/** A node running only `target`, with `edit` applied. */
const node = (
  c: Cluster,
  name: string,
  target: string,
  edit: (cfg: Config) => void = () => undefined,
) =>
  startNode(
    c,
    name,
    single((cfg) => {
      cfg.target = target;
      edit(cfg);
    }),
  );

/** A querier that pulls its queries from the frontend (or scheduler) at `address`. */
const worker = (c: Cluster, address: string, from: 'frontend' | 'scheduler' = 'frontend') =>
  node(c, 'worker', 'querier', (cfg) => {
    if (from === 'frontend') cfg.frontend_worker.frontend_address = address;
    else cfg.frontend_worker.scheduler_address = address;
  });

const addressOf = (s: Strata): string => s.context.env.transport.address as string;

function rangePath(expr: string, start: number, end: number, step: number): string {
  return `/prometheus/api/v1/query_range?query=${encodeURIComponent(expr)}&start=${start / 1000}&end=${end / 1000}&step=${step / 1000}`;
}

const TENANT = { 'X-Scope-OrgID': 'team-a' };
const minute = (ms: number): number => Math.floor(ms / 60_000) * 60_000;

async function metric(node: Strata, name: string): Promise<number> {
  const text = (await request(node, 'GET', '/metrics')).text;
  let sum = 0;
  for (const line of text.split('\n'))
    if (line.startsWith(name)) sum += Number(line.split(' ').pop());
  return sum;
}

describe('query-frontend', () => {
  it('answers split and cached range queries exactly as the querier does, the repeat from the cache', async () => {
    const c = cluster();
    await ingesterWithData(c);
    const querier = await node(c, 'querier', 'querier');
    const frontend = await node(c, 'frontend', 'query-frontend', (cfg) => {
      cfg.query_range.split_queries_by_interval = HOUR;
      cfg.query_range.align_queries_with_step = true;
      cfg.query_range.cache_results = true;
      cfg.query_range.results_cache.cache.enable_fifocache = true;
      cfg.limits.query_vertical_shard_size = 3;
    });
    await worker(c, addressOf(frontend));
    const path = rangePath(
      'sum by (job) (rate(requests_total[5m]))',
      // Multiples of the step: alignment (on here) leaves the query as it is.
      minute(T0) + 10 * 60_000,
      minute(T0) + 5 * HOUR,
      60_000,
    );
    const direct = await request(querier, 'GET', path, undefined, TENANT);
    expect(direct.status, direct.text).toBe(200);
    const first = await request(frontend, 'GET', path, undefined, TENANT);
    expect(first.status, first.text).toBe(200);
    expect(first.text).toBe(direct.text);
    const hitsBefore = await metric(frontend, 'thanos_cache_inmemory_hits_total');
    const second = await request(frontend, 'GET', path, undefined, TENANT);
    expect(second.text).toBe(direct.text);
    expect(await metric(frontend, 'thanos_cache_inmemory_hits_total')).toBeGreaterThan(hitsBefore);
    expect(await metric(frontend, 'cortex_frontend_split_queries_total')).toBeGreaterThanOrEqual(5);
    expect(await metric(frontend, 'cortex_query_frontend_queries_total')).toBe(2);
    // `sum by (job)` ran as three shards per split interval, each group whole in one shard.
    expect(await metric(frontend, 'cortex_frontend_sharded_queries_total')).toBeGreaterThan(0);

    // Other API paths are queued as they came and answered as the querier answers.
    const labels = '/prometheus/api/v1/label/job/values';
    expect((await request(frontend, 'GET', labels, undefined, TENANT)).text).toBe(
      (await request(querier, 'GET', labels, undefined, TENANT)).text,
    );
  });

  it('shards instant aggregations across the queriers: the same samples as the querier', async () => {
    const c = cluster();
    await ingesterWithData(c);
    const querier = await node(c, 'querier', 'querier');
    const frontend = await node(c, 'frontend', 'query-frontend', (cfg) => {
      cfg.limits.query_vertical_shard_size = 3;
    });
    for (const name of ['worker-1', 'worker-2'])
      await node(c, name, 'querier', (cfg) => {
        cfg.frontend_worker.frontend_address = addressOf(frontend);
      });
    const at = (T0 + 3 * HOUR) / 1000;
    const instant = (q: string, extra = '') =>
      `/prometheus/api/v1/query?query=${encodeURIComponent(q)}&time=${at}${extra}`;
    const sorted = (text: string) => {
      const body = JSON.parse(text) as { data: { result: { metric: object }[] } };
      body.data.result.sort((a, b) =>
        JSON.stringify(a.metric).localeCompare(JSON.stringify(b.metric)),
      );
      return body;
    };
    let sharded = 0;
    for (const q of [
      'sum by (job) (rate(requests_total[5m]))',
      'count(requests_total)',
      'max without (job) (requests_total)',
      'topk(1, requests_total)',
      'avg by (job) (requests_total offset 1h)',
    ]) {
      const want = await request(querier, 'GET', instant(q), undefined, TENANT);
      expect(want.status, want.text).toBe(200);
      const before = await metric(frontend, 'cortex_frontend_sharded_queries_total');
      const got = await request(frontend, 'GET', instant(q), undefined, TENANT);
      expect(got.status, got.text).toBe(200);
      expect(sorted(got.text), q).toEqual(sorted(want.text));
      // Each ran as three shard sub-queries.
      expect(await metric(frontend, 'cortex_frontend_sharded_queries_total'), q).toBe(before + 3);
      sharded++;
    }
    expect(sharded).toBe(5);
    // Not shardable, or with `limit`: one query, forwarded as it came.
    for (const path of [
      instant('quantile(0.5, requests_total)'),
      instant('sum by (job) (requests_total)', '&limit=1'),
      instant('requests_total'),
    ]) {
      const before = await metric(frontend, 'cortex_frontend_sharded_queries_total');
      const got = await request(frontend, 'GET', path, undefined, TENANT);
      expect(got.text).toBe((await request(querier, 'GET', path, undefined, TENANT)).text);
      expect(await metric(frontend, 'cortex_frontend_sharded_queries_total')).toBe(before);
    }
  });

  it("gives bad input the querier's status and message", async () => {
    const c = cluster();
    await ingesterWithData(c);
    // A sample budget the aggregations below exceed: Prometheus answers 422.
    const tight = (cfg: Config) => (cfg.querier.max_samples = 100);
    const querier = await node(c, 'querier', 'querier', tight);
    const frontend = await node(c, 'frontend', 'query-frontend', (cfg) => {
      cfg.limits.query_vertical_shard_size = 2;
    });
    await node(c, 'worker', 'querier', (cfg) => {
      tight(cfg);
      cfg.frontend_worker.frontend_address = addressOf(frontend);
    });
    const instant = (q: string, extra = '') =>
      `/prometheus/api/v1/query?query=${encodeURIComponent(q)}${extra}`;
    const statuses = new Set<number>();
    for (const path of [
      rangePath('sum(', T0, T0 + HOUR, 60_000),
      rangePath('up', T0, T0 + HOUR, 0),
      rangePath('up', T0 + HOUR, T0, 60_000),
      rangePath('sum by (job) (requests_total)', T0, T0 + 5 * HOUR, 60_000),
      '/prometheus/api/v1/query?query=rate(up)',
      '/prometheus/api/v1/query_range?query=up&start=x&end=1&step=1',
      instant('sum by (job) (requests_total)', '&time=yesterday'),
      instant('sum by (job) (requests_total)', '&timeout=soon'),
      instant('sum by (job) (requests_total)', '&lookback_delta=-'),
      instant(
        'sum by (job) (max_over_time(requests_total[5h]))',
        `&time=${(T0 + 5 * HOUR) / 1000}`,
      ),
    ]) {
      const want = await request(querier, 'GET', path, undefined, TENANT);
      const got = await request(frontend, 'GET', path, undefined, TENANT);
      expect(want.status, path).toBeGreaterThanOrEqual(400);
      expect([got.status, got.text], path).toEqual([want.status, want.text]);
      statuses.add(want.status);
    }
    expect([...statuses].sort()).toEqual([400, 422]);
  });

  it('runs through a query-scheduler: the querier pulls there and answers the frontend', async () => {
    const c = cluster();
    await ingesterWithData(c);
    const querier = await node(c, 'querier', 'querier');
    const scheduler = await node(c, 'scheduler', 'query-scheduler');
    const frontend = await node(c, 'frontend', 'query-frontend', (cfg) => {
      cfg.frontend.scheduler_address = addressOf(scheduler);
      cfg.query_range.split_queries_by_interval = HOUR / 4;
    });
    await worker(c, addressOf(scheduler), 'scheduler');
    const path = rangePath('count_over_time(requests_total[10m])', T0, T0 + HOUR, 30_000);
    const got = await request(frontend, 'GET', path, undefined, TENANT);
    expect(got.status, got.text).toBe(200);
    expect(got.text).toBe((await request(querier, 'GET', path, undefined, TENANT)).text);
  });

  it('answers 429 when the tenant already has its bound of queries waiting', async () => {
    const c = cluster();
    const frontend = await node(c, 'frontend', 'query-frontend', (cfg) => {
      cfg.limits.max_outstanding_requests_per_tenant = 1;
    });
    // No querier: the first query waits in the queue, the second finds it full.
    const waiting = request(
      frontend,
      'GET',
      '/prometheus/api/v1/query?query=up',
      undefined,
      TENANT,
    );
    const refused = await request(
      frontend,
      'GET',
      '/prometheus/api/v1/query?query=up',
      undefined,
      TENANT,
    );
    expect(refused.status).toBe(429);
    expect(refused.text).toContain('too many outstanding requests');
    // Another tenant is not affected by team-a's full queue.
    const other = request(frontend, 'GET', '/prometheus/api/v1/query?query=up', undefined, {
      'X-Scope-OrgID': 'team-b',
    });
    await stopCluster(c);
    // Stopping answers what was still queued instead of dropping it.
    expect((await waiting).status).toBe(503);
    expect((await other).status).toBe(503);
  });
});
