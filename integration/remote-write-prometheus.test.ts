/**
 * A real client (issue 5, Real client; Acceptance "a real Prometheus remote-writes to
 * `npm start` with no errors at the sender and the compared queries agree"): Debian's
 * Prometheus 2.42 scrapes the node exporter, itself and Strata every second and
 * remote-writes to two Strata single binaries started with `npm start`'s configuration:
 * one as configured (auth disabled, tenant `fake`), one with auth enabled behind a local
 * proxy that adds `X-Scope-OrgID` (2.42 cannot send custom headers). After about half a
 * minute the sender must report no failed, retried or dropped samples, and a list of
 * queries asked of Prometheus and of each Strata at a time both have data must agree; so
 * must every raw sample of the last 15 s before that time. Then the node exporter stops:
 * Prometheus's staleness markers must reach Strata, so the node series end at the same time
 * on both sides.
 *
 * Evaluation times share the millisecond phase farthest from every scrape timestamp, and
 * rates of counters that started inside their window are left out, which keeps clear of
 * the documented 2.42 vs 3.x differences (docs/promql-differential.md).
 */
import { isDeepStrictEqual } from 'node:util';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StrataNode, metricValue } from './cluster/nodes.js';
import { strataApi } from './cluster/query.js';
import { startTenantProxy, type TenantProxy } from './cluster/tenant-proxy.js';
import { askPrometheus, diffAnswers, type Question } from './promql-differential/ask.js';
import { farthestPhase } from './promql-differential/times.js';
import { startNodeExporter, type NodeExporterService } from './services/node_exporter.js';
import {
  startPrometheus,
  type PrometheusApi,
  type PrometheusService,
} from './services/prometheus.js';
import { ensureBuilt, REPO_ROOT } from './strata-process.js';

const AUTH_TENANT = 'prom-tenant';
/** How long Prometheus scrapes and remote-writes before the comparisons. */
const RUN_MS = 25_000;

let nodeExporter: NodeExporterService | undefined;
let prometheus: PrometheusService | undefined;
let proxy: TenantProxy | undefined;
const stratas: StrataNode[] = [];
let promDir: string | undefined;
let startedAt = 0;

interface Target {
  readonly name: string;
  readonly node: () => StrataNode;
  readonly api: () => PrometheusApi;
}
const open = (): StrataNode => stratas[0]!;
const authed = (): StrataNode => stratas[1]!;
const TARGETS: readonly Target[] = [
  { name: 'strata-open', node: open, api: () => strataApi(open().url) },
  { name: 'strata-auth', node: authed, api: () => strataApi(authed().url, AUTH_TENANT) },
];

const npmStart = [
  'serve',
  `-config.file=${join(REPO_ROOT, 'docs/configuration/single-process.yaml')}`,
  '-log.level=warn',
];

beforeAll(async () => {
  ensureBuilt();
  promDir = await mkdtemp(join(tmpdir(), 'strata-rw-prom-'));
  nodeExporter = await startNodeExporter();
  stratas.push(await StrataNode.start('strata-open', npmStart));
  stratas.push(await StrataNode.start('strata-auth', [...npmStart, '-auth.enabled=true']));
  await Promise.all(stratas.map((s) => s.waitReady(30_000)));
  proxy = await startTenantProxy(authed().url, AUTH_TENANT);
  prometheus = await startPrometheus({
    dataDir: join(promDir, 'data'),
    scrapeInterval: '1s',
    jobs: [
      { job: 'node', targets: [nodeExporter.address] },
      { job: 'strata', targets: [new URL(open().url).host] },
    ],
    remoteWrite: [
      {
        name: 'strata-open',
        url: `${open().url}/api/v1/push`,
        batchSendDeadline: '1s',
        metadataSendInterval: '5s',
      },
      {
        name: 'strata-auth',
        url: `${proxy.url}/api/v1/push`,
        batchSendDeadline: '1s',
        metadataSendInterval: '5s',
      },
    ],
  });
  startedAt = Date.now();
  await new Promise((r) => setTimeout(r, RUN_MS));
}, 120_000);

afterAll(async () => {
  await prometheus?.stop();
  await proxy?.close();
  await nodeExporter?.stop();
  await Promise.all(stratas.map((s) => s.stop()));
  if (promDir !== undefined) await rm(promDir, { recursive: true, force: true });
});

const prom = (): PrometheusService => {
  if (prometheus === undefined) throw new Error('prometheus did not start');
  return prometheus;
};

async function promMetrics(): Promise<string> {
  return (await fetch(`${prom().url}/metrics`)).text();
}

/**
 * The comparison time: 5 s behind the newest sample every queue has sent, at the phase
 * farthest from all scrape timestamps (so no window boundary meets a sample).
 */
async function comparisonTime(): Promise<number> {
  const text = await promMetrics();
  const sent = TARGETS.map(
    (t) =>
      metricValue(text, 'prometheus_remote_storage_queue_highest_sent_timestamp_seconds', {
        remote_name: t.name,
      }) ?? 0,
  );
  const newest = Math.min(...sent) * 1000;
  expect(newest).toBeGreaterThan(startedAt);
  const { data } = await prom().api.query('up[60s]', newest);
  if (data.resultType !== 'matrix') throw new Error('up[60s] is not a matrix');
  const stamps = data.result.flatMap((s) => s.values.map(([t]) => Math.round(t * 1000)));
  const { phase } = farthestPhase(stamps);
  return Math.floor((newest - 5_000) / 1000) * 1000 + phase;
}

const QUERIES: readonly string[] = [
  'up',
  'count by (job) (up)',
  'rate(node_cpu_seconds_total[20s])',
  'sum by (mode) (rate(node_cpu_seconds_total[20s]))',
  'prometheus_tsdb_head_series',
  'count({__name__=~"node_.*"})',
  'count({__name__=~".+"})',
  'count by (job) ({__name__=~".+"})',
  'sum by (job) (scrape_samples_scraped)',
  'max_over_time(node_load1[15s])',
  'node_memory_MemAvailable_bytes / node_memory_MemTotal_bytes',
  'histogram_quantile(0.9, sum by (le) (rate(prometheus_http_request_duration_seconds_bucket[10s])))',
  'sum by (job) (rate(process_cpu_seconds_total[10s]))',
];

describe('Prometheus 2.42 remote-writing to Strata (npm start configuration)', () => {
  it('reports no failed, retried or dropped samples at the sender for either queue', async () => {
    const text = await promMetrics();
    for (const t of TARGETS) {
      const q = { remote_name: t.name };
      const v = (name: string): number | undefined => metricValue(text, name, q);
      expect(v('prometheus_remote_storage_samples_total'), t.name).toBeGreaterThan(1_000);
      expect(v('prometheus_remote_storage_samples_failed_total'), t.name).toBe(0);
      expect(v('prometheus_remote_storage_samples_retried_total'), t.name).toBe(0);
      expect(v('prometheus_remote_storage_samples_dropped_total'), t.name).toBe(0);
      expect(v('prometheus_remote_storage_metadata_total'), t.name).toBeGreaterThan(0);
      expect(v('prometheus_remote_storage_metadata_failed_total'), t.name).toBe(0);
      expect(v('prometheus_remote_storage_metadata_retried_total'), t.name).toBe(0);
    }
    // The authenticated Strata got its writes through the proxy, all answered 2xx.
    const statuses = [...(proxy?.forwarded.keys() ?? [])];
    expect(statuses.length).toBeGreaterThan(0);
    expect(
      statuses.every((s) => s >= 200 && s < 300),
      JSON.stringify([...proxy!.forwarded]),
    ).toBe(true);
    expect(prom().output()).not.toMatch(/remote|Failed to send/i);
    // Nor did Strata drop anything on its side.
    for (const t of TARGETS) {
      const text = await (await fetch(`${t.node().url}/metrics`)).text();
      expect(metricValue(text, 'cortex_discarded_samples_total') ?? 0, t.name).toBe(0);
      expect(
        metricValue(text, 'cortex_distributor_received_samples_total'),
        t.name,
      ).toBeGreaterThan(1_000);
    }
  });

  it('holds exactly the raw samples Prometheus holds, and agrees on the query list', async () => {
    const at = await comparisonTime();
    expect(at - startedAt).toBeGreaterThan(15_000);
    const questions: { query: string; q: Question }[] = [
      { query: '{__name__=~".+"}[15s]', q: { kind: 'instant', time: at } },
      ...QUERIES.map((query): { query: string; q: Question } => ({
        query,
        q: { kind: 'instant', time: at },
      })),
      {
        query: 'sum by (mode) (rate(node_cpu_seconds_total[5s]))',
        q: { kind: 'range', start: at - 10_000, end: at, step: 1_000 },
      },
      { query: 'up', q: { kind: 'range', start: at - 10_000, end: at, step: 1_000 } },
    ];
    const problems: string[] = [];
    for (const { query, q } of questions) {
      const expected = await askPrometheus(prom().api, query, q);
      if (!expected.ok) throw new Error(`prometheus failed ${query}: ${expected.error}`);
      if (query === questions[0]?.query) {
        // The raw comparison covers every job's series, many samples each.
        const jobs = new Set(expected.result.series.map((s) => /job="([^"]*)"/.exec(s.key)?.[1]));
        expect([...jobs].sort()).toEqual(['node', 'prometheus', 'strata']);
        const points = expected.result.series.reduce((n, s) => n + s.points.length, 0);
        expect(expected.result.series.length).toBeGreaterThan(500);
        expect(points).toBeGreaterThan(10 * expected.result.series.length);
      }
      // Every query must have an answer on Prometheus's side to compare with.
      const r = expected.result;
      if (r.resultType !== 'scalar' && r.series.length === 0)
        problems.push(`prometheus answered ${query} with nothing`);
      for (const t of TARGETS) {
        const got = await askPrometheus(t.api(), query, q);
        const diff = diffAnswers(expected, got);
        if (diff.length > 0)
          problems.push(`${t.name} ${query}:\n  ${diff.slice(0, 5).join('\n  ')}`);
      }
    }
    expect(problems, problems.join('\n')).toEqual([]);
  }, 60_000);

  it('keeps tenants apart: the proxied tenant sees its data, others see none', async () => {
    const at = await comparisonTime();
    const seen = await strataApi(authed().url, AUTH_TENANT).query('count(up)', at);
    expect(seen.data.resultType).toBe('vector');
    expect(seen.data.result).toHaveLength(1);
    const other = await strataApi(authed().url, 'someone-else').query('count(up)', at);
    expect(other.data.result).toEqual([]);
    const noHeader = await fetch(`${authed().url}/prometheus/api/v1/query?query=up`);
    expect(noHeader.status).toBe(401);
    // The open Strata acts for the tenant `fake`.
    const stats = await fetch(`${open().url}/api/v1/user_stats`);
    expect(stats.status).toBe(200);
    const body = (await stats.json()) as { numSeries: number };
    expect(body.numSeries).toBeGreaterThan(100);
  });

  it('serves the metric metadata Prometheus sends, as Prometheus itself lists it', async () => {
    type Listing = Record<string, { type: string; help: string; unit: string }[]>;
    const listing = async (url: string, headers: Record<string, string> = {}): Promise<Listing> => {
      const res = await fetch(url, { headers });
      expect(res.status).toBe(200);
      const body = (await res.json()) as { status: string; data: Listing };
      expect(body.status).toBe('success');
      for (const entries of Object.values(body.data))
        entries.sort((a, b) => (a.type + a.help + a.unit).localeCompare(b.type + b.help + b.unit));
      return body.data;
    };
    const promNow = (): Promise<Listing> => listing(`${prom().url}/api/v1/metadata`);
    const before = await promNow();
    expect(Object.keys(before).length).toBeGreaterThan(100);
    expect(before['node_cpu_seconds_total']).toEqual([
      { type: 'counter', help: 'Seconds the CPUs spent in each mode.', unit: '' },
    ]);
    // One metadata send interval (5 s) and a margin: all of `before` has been sent since.
    await new Promise((r) => setTimeout(r, 7_000));
    const sides: [string, Listing][] = [
      ['strata-open', await listing(`${open().url}/prometheus/api/v1/metadata`)],
      [
        'strata-auth',
        await listing(`${authed().url}/prometheus/api/v1/metadata`, {
          'X-Scope-OrgID': AUTH_TENANT,
        }),
      ],
    ];
    const after = await promNow();
    for (const [name, strata] of sides) {
      // Field order aside (2.42 prints type, help, unit; Prometheus 3 and Strata type, unit,
      // help), every family Prometheus listed a send interval ago is there, identical.
      const differing = Object.keys(before).filter(
        (family) => !isDeepStrictEqual(strata[family], before[family]),
      );
      expect(
        differing
          .slice(0, 3)
          .map((f) => `${f}: ${JSON.stringify(strata[f])} vs ${JSON.stringify(before[f])}`),
        name,
      ).toEqual([]);
      // Nothing Prometheus does not know (families new since `before` are in `after`).
      expect(
        Object.keys(strata).filter((family) => !(family in after)),
        name,
      ).toEqual([]);
    }
    const other = await listing(`${authed().url}/prometheus/api/v1/metadata`, {
      'X-Scope-OrgID': 'someone-else',
    });
    expect(other).toEqual({});
  });

  it('passes staleness markers through: series of a stopped target end at the same time on both sides', async () => {
    const stoppedAt = Date.now();
    await nodeExporter?.stop();
    // Wait until every queue has sent samples well past the first failed scrape.
    const end = Date.now() + 30_000;
    let newest = 0;
    while (Date.now() < end) {
      const text = await promMetrics();
      newest =
        Math.min(
          ...TARGETS.map(
            (t) =>
              metricValue(text, 'prometheus_remote_storage_queue_highest_sent_timestamp_seconds', {
                remote_name: t.name,
              }) ?? 0,
          ),
        ) * 1000;
      if (newest >= stoppedAt + 9_000) break;
      await new Promise((r) => setTimeout(r, 500));
    }
    expect(newest).toBeGreaterThanOrEqual(stoppedAt + 9_000);
    const at = await comparisonTime();
    expect(at).toBeGreaterThan(stoppedAt + 2_000);
    const questions: { query: string; q: Question }[] = [
      { query: 'count({__name__=~"node_.*"})', q: { kind: 'instant', time: at } },
      { query: 'up{job="node"}', q: { kind: 'instant', time: at } },
      { query: '{job="node"}', q: { kind: 'instant', time: at } },
      { query: '{job="node"}[20s]', q: { kind: 'instant', time: at } },
      {
        query: 'count({job="node"})',
        q: { kind: 'range', start: at - 15_000, end: at, step: 1_000 },
      },
    ];
    const expectedStale = await askPrometheus(prom().api, questions[0]!.query, questions[0]!.q);
    // Prometheus itself has marked every node_* series stale by then: nothing is left.
    expect(expectedStale).toEqual({ ok: true, result: { resultType: 'vector', series: [] } });
    const problems: string[] = [];
    for (const { query, q } of questions) {
      const expected = await askPrometheus(prom().api, query, q);
      for (const t of TARGETS) {
        const diff = diffAnswers(expected, await askPrometheus(t.api(), query, q));
        if (diff.length > 0)
          problems.push(`${t.name} ${query}:\n  ${diff.slice(0, 5).join('\n  ')}`);
      }
    }
    expect(problems, problems.join('\n')).toEqual([]);
  }, 60_000);
});
