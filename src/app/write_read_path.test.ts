// The write and read path wired by -target, in process (see cluster.testing.ts).
import { compress } from 'snappyjs';
import { afterEach, describe, expect, it } from 'vitest';
import { buildWriteRequest, encodeWriteRequest } from '../distributor/index.js';
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

const clusters: Cluster[] = [];
afterEach(async () => {
  for (const c of clusters.splice(0)) await stopCluster(c);
});

function cluster(): Cluster {
  const c = newCluster();
  clusters.push(c);
  return c;
}

async function queryRange(
  querier: Strata,
  tenant: string,
  expr: string,
): Promise<{ metric: Record<string, string>; values: [number, string][] }[]> {
  const res = await request(
    querier,
    'GET',
    `/prometheus/api/v1/query?query=${encodeURIComponent(expr)}&time=${(T0 + 60_000) / 1000}`,
    undefined,
    { 'X-Scope-OrgID': tenant },
  );
  expect(res.status, res.text).toBe(200);
  return (JSON.parse(res.text) as { data: { result: never[] } }).data.result;
}

describe('the write and read path by -target', () => {
  it('microservices: a distributor, three ingesters (RF 3) and a querier share one ring', async () => {
    const c = cluster();
    const ingesters: Strata[] = [];
    for (const name of ['ingester-1', 'ingester-2', 'ingester-3']) {
      ingesters.push(
        await startNode(
          c,
          name,
          nodeConfig('ingester', (cfg) => (cfg.ingester.lifecycler.id = name)),
        ),
      );
    }
    await c.clock.advance(0); // join_after 0: the ingesters claim their tokens
    const distributor = await startNode(c, 'distributor', nodeConfig('distributor'));
    const querier = await startNode(c, 'querier', nodeConfig('querier'));

    const ring = await request(distributor, 'GET', '/ingester/ring');
    expect(ring.status).toBe(200);
    expect(ring.text.match(/ACTIVE/g)).toHaveLength(3);

    const ok = await request(
      distributor,
      'POST',
      '/api/v1/push',
      pushBody([
        series('up', 'a', [
          [T0, 1],
          [T0 + 15_000, 1],
        ]),
        series('up', 'b', [[T0, 0]]),
      ]),
      { ...PUSH_HEADERS, 'X-Scope-OrgID': 'team-a' },
    );
    expect(ok.status, ok.text).toBe(200);

    // Every ingester holds every series (RF 3 over 3 ingesters); the querier merges the
    // replicas so each sample appears once.
    const result = await queryRange(querier, 'team-a', 'up[2m]');
    expect(result).toEqual([
      {
        metric: { __name__: 'up', job: 'a' },
        values: [
          [T0 / 1000, '1'],
          [(T0 + 15_000) / 1000, '1'],
        ],
      },
      { metric: { __name__: 'up', job: 'b' }, values: [[T0 / 1000, '0']] },
    ]);
    // Tenant isolation.
    expect(await queryRange(querier, 'team-b', 'up[2m]')).toEqual([]);

    // One ingester gone: quorum (2 of 3) still acknowledges, and reads still succeed.
    c.net.disconnect('ingester-3');
    const degraded = await request(
      distributor,
      'POST',
      '/api/v1/push',
      pushBody([series('up', 'a', [[T0 + 30_000, 1]])]),
      { ...PUSH_HEADERS, 'X-Scope-OrgID': 'team-a' },
    );
    expect(degraded.status, degraded.text).toBe(200);
    const after = await queryRange(querier, 'team-a', 'up{job="a"}[2m]');
    expect(after[0]?.values).toHaveLength(3);

    // Two gone: no quorum, a 5xx, and the querier cannot answer either.
    c.net.disconnect('ingester-2');
    const failed = await request(
      distributor,
      'POST',
      '/api/v1/push',
      pushBody([series('up', 'a', [[T0 + 45_000, 1]])]),
      { ...PUSH_HEADERS, 'X-Scope-OrgID': 'team-a' },
    );
    expect(failed.status).toBeGreaterThanOrEqual(500);
    expect(failed.text).toContain('ingester');

    const stats = await request(querier, 'GET', '/api/v1/user_stats', undefined, {
      'X-Scope-OrgID': 'team-a',
    });
    expect(stats.status).toBeGreaterThanOrEqual(500);
    c.net.reconnect('ingester-2');
    c.net.reconnect('ingester-3');
    const statsBack = await request(querier, 'GET', '/api/v1/user_stats', undefined, {
      'X-Scope-OrgID': 'team-a',
    });
    expect(statsBack.status, statsBack.text).toBe(200);
    expect(JSON.parse(statsBack.text)).toMatchObject({ numSeries: 2 });
  });

  it('metric metadata pushed through the distributor is served by the querier, per tenant', async () => {
    const c = cluster();
    for (const name of ['ingester-1', 'ingester-2', 'ingester-3'])
      await startNode(
        c,
        name,
        nodeConfig('ingester', (cfg) => (cfg.ingester.lifecycler.id = name)),
      );
    await c.clock.advance(0);
    const distributor = await startNode(c, 'distributor', nodeConfig('distributor'));
    const querier = await startNode(c, 'querier', nodeConfig('querier'));
    const body = compress(
      encodeWriteRequest(
        buildWriteRequest({
          series: [series('up', 'a', [[T0, 1]])],
          metadata: [
            { metricFamilyName: 'up', type: 2, help: 'Whether the target is up.', unit: '' },
            {
              metricFamilyName: 'http_request_duration_seconds',
              type: 3,
              help: 'Latency.',
              unit: 'seconds',
            },
          ],
        }),
      ),
    );
    const pushed = await request(distributor, 'POST', '/api/v1/push', body, {
      ...PUSH_HEADERS,
      'X-Scope-OrgID': 'team-a',
    });
    expect(pushed.status, pushed.text).toBe(200);
    const metadata = async (tenant: string, query = ''): Promise<unknown> => {
      const res = await request(querier, 'GET', `/prometheus/api/v1/metadata${query}`, undefined, {
        'X-Scope-OrgID': tenant,
      });
      expect(res.status, res.text).toBe(200);
      return JSON.parse(res.text);
    };
    // Each family went to its three replicas; the querier lists it once.
    expect(await metadata('team-a')).toEqual({
      status: 'success',
      data: {
        http_request_duration_seconds: [{ type: 'histogram', help: 'Latency.', unit: 'seconds' }],
        up: [{ type: 'gauge', help: 'Whether the target is up.', unit: '' }],
      },
    });
    expect(await metadata('team-a', '?metric=up')).toEqual({
      status: 'success',
      data: { up: [{ type: 'gauge', help: 'Whether the target is up.', unit: '' }] },
    });
    expect(await metadata('team-b')).toEqual({ status: 'success', data: {} });
  });

  it('sizes the distributor label cache by -distributor.series-labels-cache-size and reports its hits', async () => {
    const lookups = async (size: number | undefined): Promise<string[]> => {
      const c = cluster();
      const node = await startNode(
        c,
        'strata',
        nodeConfig('all', (cfg) => {
          cfg.ingester.lifecycler.ring.replication_factor = 1;
          cfg.auth_enabled = false;
          if (size !== undefined) cfg.distributor.series_labels_cache_size = size;
        }),
      );
      await c.clock.advance(0);
      for (const t of [T0, T0 + 15_000]) {
        const res = await request(
          node,
          'POST',
          '/api/v1/push',
          pushBody([series('up', 'a', [[t, 1]]), series('up', 'b', [[t, 1]])]),
          PUSH_HEADERS,
        );
        expect(res.status, res.text).toBe(200);
      }
      const metrics = await request(node, 'GET', '/metrics');
      return metrics.text
        .split('\n')
        .filter((l) => l.startsWith('strata_distributor_series_labels_cache_'));
    };
    // The second push finds both series of the first.
    expect(await lookups(undefined)).toEqual([
      'strata_distributor_series_labels_cache_lookups_total{result="hit"} 2',
      'strata_distributor_series_labels_cache_lookups_total{result="miss"} 2',
      'strata_distributor_series_labels_cache_entries 2',
    ]);
    expect(await lookups(0)).toEqual([]);
  });

  it('the single binary pushes to and queries its own ingester; bad pushes keep the valid samples', async () => {
    const c = cluster();
    const all = await startNode(
      c,
      'strata',
      nodeConfig('all', (cfg) => {
        cfg.ingester.lifecycler.ring.replication_factor = 1;
        cfg.auth_enabled = false;
      }),
    );
    await c.clock.advance(0);
    const res = await request(
      all,
      'POST',
      '/api/v1/push',
      pushBody([
        series('requests_total', 'api', [[T0, 10]]),
        { labels: [['__name__', 'bad metric']], samples: [{ timestamp: T0, value: 1 }] },
      ]),
      PUSH_HEADERS,
    );
    expect(res.status).toBe(400);
    expect(res.text).toContain('bad metric');
    const result = await queryRange(all, 'fake', 'requests_total[2m]');
    expect(result).toEqual([
      { metric: { __name__: 'requests_total', job: 'api' }, values: [[T0 / 1000, '10']] },
    ]);
    const garbage = await request(
      all,
      'POST',
      '/api/prom/push',
      new TextEncoder().encode('not snappy'),
      PUSH_HEADERS,
    );
    expect(garbage.status).toBe(400);
    expect((await request(all, 'GET', '/distributor/all_user_stats')).status).toBe(200);
    expect((await request(all, 'GET', '/ingester/all_user_stats')).status).toBe(200);
    expect((await request(all, 'GET', '/ring')).status).toBe(200);
    expect((await request(all, 'GET', '/distributor/ring')).status).toBe(503);
  });
});
