/**
 * Long-term storage end to end on MinIO (issue 10): the single binary with `npm start`'s
 * configuration switched to the s3 backend (MinIO on loopback) takes Debian's Prometheus
 * 2.42 remote-writing its own and the node exporter's metrics for ~25 s.
 * `POST /ingester/flush?wait=true` cuts and ships the blocks (complete in MinIO, meta.json
 * with the Thanos section Cortex writes, counted by the shipper); the compactor's bucket
 * index lists them and the store-gateway loads them. Then Strata stops, its whole local
 * data directory (TSDB, store-gateway sync dir, compactor dir) is wiped, and it starts
 * again on the same bucket: once ready, with nothing in the ingester, the store-gateway
 * answers a list of instant and range queries, the series API and the label APIs exactly
 * as before the wipe and as Prometheus does.
 *
 * Then promtool (2.42) reads a shipped block downloaded from MinIO: `tsdb analyze`
 * accepts it and `tsdb dump` lists exactly the samples Strata's query API returns for that
 * block's time range.
 *
 * Prometheus is stopped (flushing its queue) before the comparisons and started again on
 * its data without scraping or remote-writing, so neither side changes while they are
 * compared. Evaluation times share the millisecond phase farthest from every scrape
 * timestamp and windows stay inside the run (see remote-write-prometheus.test.ts).
 */
import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Labels } from '../src/model/index.js';
import { formatLabelsPromtool } from '../src/tsdb/index.js';
import {
  completeBlocks,
  minioView,
  readBucketIndexDocument,
  readMeta,
  tenantBlocks,
  type BucketView,
} from './cluster/bucket-view.js';
import {
  FAST_READ_PATH_FLAGS,
  NO_MERGING_COMPACTION_FLAGS,
  StrataServer,
  listTree,
  npmStartCommand,
  s3Flags,
  sleep,
  waitUntil,
} from './cluster/long-term.js';
import { fetchRing, metricValue } from './cluster/nodes.js';
import { strataApi } from './cluster/query.js';
import {
  askPrometheus,
  diffAnswers,
  type Answer,
  type Question,
} from './promql-differential/ask.js';
import { diffResults } from './promql-differential/results.js';
import { farthestPhase } from './promql-differential/times.js';
import { startMinio, type MinioService } from './services/minio.js';
import { startNodeExporter, type NodeExporterService } from './services/node_exporter.js';
import {
  startPrometheus,
  type PrometheusApi,
  type PrometheusService,
} from './services/prometheus.js';
import { ensureBuilt } from './strata-process.js';

const TENANT = 'fake';
/** How long Prometheus scrapes and remote-writes. */
const RUN_MS = 25_000;
const PROMTOOL = '/usr/bin/promtool';

let minio: MinioService | undefined;
let view: BucketView;
let nodeExporter: NodeExporterService | undefined;
let prometheus: PrometheusService | undefined;
let strata: StrataServer | undefined;
let work: string | undefined;
/** When Prometheus started, and the comparison time. */
let startedAt = 0;
let at = 0;
/** Prometheus's own /metrics just before it stopped (the sender's counters). */
let senderMetrics = '';

/** Prometheus's answer time: 5 s behind the newest sample sent, at the farthest phase. */
async function comparisonTime(p: PrometheusService): Promise<number> {
  const text = await (await fetch(`${p.url}/metrics`)).text();
  const newest =
    (metricValue(text, 'prometheus_remote_storage_queue_highest_sent_timestamp_seconds') ?? 0) *
    1000;
  if (newest <= startedAt) throw new Error(`nothing sent yet (newest ${newest})`);
  const { data } = await p.api.query('up[60s]', newest);
  if (data.resultType !== 'matrix') throw new Error('up[60s] is not a matrix');
  const stamps = data.result.flatMap((s) => s.values.map(([t]) => Math.round(t * 1000)));
  const { phase } = farthestPhase(stamps);
  return Math.floor((newest - 5_000) / 1000) * 1000 + phase;
}

beforeAll(async () => {
  ensureBuilt();
  work = await mkdtemp(join(tmpdir(), 'strata-lt-minio-'));
  minio = await startMinio();
  const bucket = await minio.createBucket('lt');
  view = minioView(minio, bucket);
  nodeExporter = await startNodeExporter();
  const { nodeArgs, args } = npmStartCommand();
  await mkdir(join(work, 'strata'));
  strata = await StrataServer.start(
    'strata',
    [
      ...args,
      ...s3Flags(minio, bucket),
      ...FAST_READ_PATH_FLAGS,
      ...NO_MERGING_COMPACTION_FLAGS,
      '-log.level=warn',
    ],
    { cwd: join(work, 'strata'), nodeArgs },
  );
  await strata.waitReady(30_000);
  const promData = join(work, 'prometheus');
  const live = await startPrometheus({
    dataDir: promData,
    scrapeInterval: '1s',
    jobs: [{ job: 'node', targets: [nodeExporter.address] }],
    remoteWrite: [{ name: 'strata', url: `${strata.url}/api/v1/push`, batchSendDeadline: '1s' }],
  });
  prometheus = live;
  startedAt = Date.now();
  await sleep(RUN_MS);
  at = await comparisonTime(live);
  senderMetrics = await (await fetch(`${live.url}/metrics`)).text();
  // A clean stop sends what is queued; then the same data, read-only in effect.
  expect(await live.stop(30_000)).toBe(0);
  await nodeExporter.stop();
  prometheus = await startPrometheus({ dataDir: promData, scrapeSelf: false });
}, 180_000);

afterAll(async () => {
  await prometheus?.stop();
  await nodeExporter?.stop();
  await strata?.stop();
  await minio?.stop();
  if (work !== undefined) await rm(work, { recursive: true, force: true });
});

const prom = (): PrometheusService => {
  if (prometheus === undefined) throw new Error('prometheus did not start');
  return prometheus;
};
const server = (): StrataServer => {
  if (strata === undefined) throw new Error('strata did not start');
  return strata;
};
const strataQ = (): PrometheusApi => strataApi(server().url);

const QUERIES: readonly string[] = [
  'up',
  'count by (job) (up)',
  'rate(node_cpu_seconds_total[10s])',
  'sum by (mode) (rate(node_cpu_seconds_total[10s]))',
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

function questions(): { query: string; q: Question }[] {
  // From 10 s into the run (no rate window reaches back to a counter's first sample) to
  // `at`, every point at `at`'s phase.
  const start = Math.ceil((startedAt + 10_000) / 1000) * 1000 + (at % 1000);
  const whole = { kind: 'range' as const, start, end: at };
  return [
    { query: '{__name__=~".+"}[15s]', q: { kind: 'instant', time: at } },
    ...QUERIES.map((query) => ({ query, q: { kind: 'instant' as const, time: at } })),
    { query: 'up', q: { ...whole, step: 1_000 } },
    { query: 'count({__name__=~".+"})', q: { ...whole, step: 2_000 } },
    { query: 'sum by (mode) (rate(node_cpu_seconds_total[5s]))', q: { ...whole, step: 1_000 } },
    { query: 'node_load1', q: { kind: 'range', start: at - 10_000, end: at, step: 1_000 } },
  ];
}

/** Asks every question of Strata, compares with Prometheus, returns the answers. */
async function compareWithPrometheus(label: string): Promise<Map<string, Answer>> {
  const answers = new Map<string, Answer>();
  const problems: string[] = [];
  for (const { query, q } of questions()) {
    const expected = await askPrometheus(prom().api, query, q);
    if (!expected.ok) throw new Error(`prometheus failed ${query}: ${expected.error}`);
    if (expected.result.resultType !== 'scalar' && expected.result.series.length === 0)
      problems.push(`prometheus answered ${query} with nothing`);
    const got = await askPrometheus(strataQ(), query, q);
    answers.set(`${query} ${JSON.stringify(q)}`, got);
    const diff = diffAnswers(expected, got);
    if (diff.length > 0) problems.push(`${label} ${query}:\n  ${diff.slice(0, 5).join('\n  ')}`);
  }
  expect(problems, problems.join('\n')).toEqual([]);
  return answers;
}

/** Exact comparison of two of Strata's answer sets. */
function sameAnswers(a: Map<string, Answer>, b: Map<string, Answer>): string[] {
  const out: string[] = [];
  for (const [k, x] of a) {
    const y = b.get(k);
    if (y === undefined || !x.ok || !y.ok) {
      out.push(`${k}: ${JSON.stringify(x).slice(0, 200)} vs ${JSON.stringify(y).slice(0, 200)}`);
      continue;
    }
    const d = diffResults(x.result, y.result, 'none', { relative: 0, absolute: 0 });
    if (d.length > 0) out.push(`${k}:\n  ${d.slice(0, 3).join('\n  ')}`);
  }
  return out;
}

/** The series, label names and label values APIs over the run, on one side. */
async function metadataAnswers(api: PrometheusApi): Promise<Record<string, unknown>> {
  const start = startedAt - 60_000;
  const sortSeries = (s: Record<string, string>[]): string[] =>
    s.map((m) => JSON.stringify(Object.entries(m).sort())).sort();
  return {
    'series up': sortSeries(await api.series(['up'], start, at)),
    'series node_cpu': sortSeries(
      await api.series(['{__name__=~"node_cpu.*", job="node"}'], start, at),
    ),
    'series two matchers': sortSeries(
      await api.series(['prometheus_tsdb_head_series', '{__name__="node_load1"}'], start, at),
    ),
    'series last 10s': sortSeries(await api.series(['{job="node", mode="idle"}'], at - 10_000, at)),
    labels: await api.labelNames(start, at),
    'labels of up': await api.labelNames(start, at, ['up']),
    'values of job': await api.labelValues('job', start, at),
    'values of mode': await api.labelValues('mode', start, at),
    'values of __name__ (node)': (await api.labelValues('__name__', start, at)).filter((n) =>
      n.startsWith('node_'),
    ),
    'values of cpu for node_cpu_seconds_total': await api.labelValues('cpu', start, at, [
      'node_cpu_seconds_total',
    ]),
  };
}

function metadataDiff(a: Record<string, unknown>, b: Record<string, unknown>): string[] {
  return Object.keys(a)
    .filter((k) => JSON.stringify(a[k]) !== JSON.stringify(b[k]))
    .map(
      (k) =>
        `${k}: ${JSON.stringify(a[k]).slice(0, 300)}\n   vs ${JSON.stringify(b[k]).slice(0, 300)}`,
    );
}

let beforeFlush: Map<string, Answer>;
let beforeFlushMeta: Record<string, unknown>;
let blocks: string[] = [];

describe('single binary on MinIO with Prometheus 2.42 remote-writing', () => {
  it('received everything Prometheus sent, with no failures on either side', async () => {
    const v = (name: string): number | undefined => metricValue(senderMetrics, name);
    expect(v('prometheus_remote_storage_samples_total')).toBeGreaterThan(10_000);
    expect(v('prometheus_remote_storage_samples_failed_total')).toBe(0);
    expect(v('prometheus_remote_storage_samples_retried_total')).toBe(0);
    expect(v('prometheus_remote_storage_samples_dropped_total')).toBe(0);
    expect((await server().metric('cortex_discarded_samples_total')) ?? 0).toBe(0);
    expect(
      await server().metric('cortex_distributor_received_samples_total'),
    ).toBeGreaterThanOrEqual(v('prometheus_remote_storage_samples_total') ?? Infinity);
    expect(at - startedAt).toBeGreaterThan(15_000);
  });

  it('answers the queries, series and label APIs as Prometheus (ingester only)', async () => {
    beforeFlush = await compareWithPrometheus('before flush');
    beforeFlushMeta = await metadataAnswers(strataQ());
    expect(metadataDiff(await metadataAnswers(prom().api), beforeFlushMeta)).toEqual([]);
    expect(await completeBlocks(view, TENANT)).toEqual([]);
  }, 60_000);

  it('flush cuts and ships the blocks to MinIO, meta.json last, counted by the shipper', async () => {
    await server().flush();
    blocks = await completeBlocks(view, TENANT);
    // One 2h range, two if the run crossed a range boundary.
    expect(blocks.length).toBeGreaterThanOrEqual(1);
    expect(blocks.length).toBeLessThanOrEqual(2);
    const objects = await tenantBlocks(view, TENANT);
    for (const b of blocks) {
      expect(
        objects
          .get(b)
          ?.map((o) => o.name)
          .sort(),
      ).toEqual(['chunks/000001', 'index', 'meta.json']);
    }
    expect(await server().metric('cortex_ingester_shipper_uploads_total')).toBe(blocks.length);
    expect(await server().metric('cortex_ingester_shipper_upload_failures_total')).toBe(0);
    const record = JSON.parse(
      await readFile(join(server().dataDir, 'tsdb', TENANT, 'thanos.shipper.json'), 'utf8'),
    ) as { version: number; uploaded: string[] };
    expect(record.version).toBe(1);
    expect([...record.uploaded].sort()).toEqual(blocks);
  });

  it('the compactor indexes the blocks and the store-gateway loads them', async () => {
    await waitUntil(
      'the bucket index lists every shipped block',
      async () => {
        const ids = new Set(
          (await readBucketIndexDocument(view, TENANT))?.blocks.map((b) => b.block_id),
        );
        return blocks.every((b) => ids.has(b)) ? true : undefined;
      },
      20_000,
      () => server().tail(),
    );
    await waitUntil(
      'the store-gateway loads every block',
      async () =>
        (await server().metric('cortex_bucket_store_blocks_loaded')) === blocks.length
          ? true
          : undefined,
      20_000,
      () => server().tail(),
    );
  }, 60_000);

  it('answers the same after the flush (ingester blocks and store-gateway merged)', async () => {
    const after = await compareWithPrometheus('after flush');
    expect(sameAnswers(beforeFlush, after)).toEqual([]);
    expect(metadataDiff(beforeFlushMeta, await metadataAnswers(strataQ()))).toEqual([]);
  }, 60_000);

  it('after a restart with an empty local disk, answers as before from the store-gateway alone', async () => {
    const s = server();
    expect(await s.stop()).toBe(0);
    const tree = await listTree(s.dataDir);
    for (const dir of ['tsdb/', 'tsdb-sync/', 'compactor/']) expect(tree).toContain(dir);
    // The store-gateway had built index-headers there.
    expect(tree.some((p) => p.endsWith('/index-header'))).toBe(true);
    await rm(s.dataDir, { recursive: true, force: true });
    s.restart();
    await s.waitReady(60_000);
    // Ready means the querier discovered the blocks and the store-gateway loaded them.
    expect(await s.metric('cortex_bucket_store_blocks_loaded')).toBe(blocks.length);
    const after = await compareWithPrometheus('after restart');
    expect(sameAnswers(beforeFlush, after)).toEqual([]);
    // Nothing came from the ingester: it holds no series (and no tenant).
    expect(await s.metric('cortex_ingester_memory_series')).toBe(0);
    const stats = await fetch(`${s.url}/ingester/all_user_stats`, {
      headers: { Accept: 'application/json' },
    });
    expect(await stats.json()).toEqual([]);
    expect(await s.metric('cortex_ingester_shipper_uploads_total')).toBe(0);
    // The restart rebuilt the index-headers from MinIO.
    expect((await listTree(s.dataDir)).filter((p) => p.endsWith('/index-header'))).toHaveLength(
      blocks.length,
    );
  }, 90_000);

  it('answers the series, label names and label values APIs with start/end as Prometheus', async () => {
    const strataMeta = await metadataAnswers(strataQ());
    expect(metadataDiff(await metadataAnswers(prom().api), strataMeta)).toEqual([]);
    expect(metadataDiff(beforeFlushMeta, strataMeta)).toEqual([]);
  }, 30_000);
});

describe('promtool 2.42 on a block shipped to MinIO', () => {
  const promtool = (args: string[]): { status: number | null; stdout: string; stderr: string } =>
    spawnSync(PROMTOOL, ['tsdb', ...args], { encoding: 'utf8', maxBuffer: 512 * 1024 * 1024 });

  /** Downloads a block's objects into `<dir>/<ulid>/` (plus the `wal/` promtool expects). */
  async function download(block: string): Promise<string> {
    const dir = join(work!, 'promtool', block);
    for (const o of (await tenantBlocks(view, TENANT)).get(block) ?? []) {
      const path = join(dir, block, o.name);
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, await view.get(`${TENANT}/${block}/${o.name}`));
    }
    await mkdir(join(dir, 'wal'), { recursive: true });
    return dir;
  }

  it('meta.json carries the Thanos section Cortex writes', async () => {
    const ring = await fetchRing(`${server().url}/ingester/ring`);
    const objects = await tenantBlocks(view, TENANT);
    for (const b of blocks) {
      const meta = await readMeta(view, TENANT, b);
      const size = (name: string): number | undefined =>
        objects.get(b)?.find((o) => o.name === name)?.size;
      expect(meta.ulid).toBe(b);
      expect(meta.version).toBe(1);
      expect(meta.compaction?.level).toBe(1);
      expect(meta.thanos?.labels).toEqual({ __org_id__: TENANT, __ingester_id__: hostname() });
      // The ID the ingester had in its ring (the restarted one registered the same).
      expect(ring.map((r) => r.id)).toEqual([hostname()]);
      expect(meta.thanos?.source).toBe('receive');
      expect(meta.thanos?.downsample).toEqual({ resolution: 0 });
      expect(meta.thanos?.segment_files).toEqual(['000001']);
      // The block's largest series entry and stored chunk, which store-gateways size their
      // range reads by.
      const stats = meta.thanos?.index_stats as
        { series_max_size?: number; chunk_max_size?: number } | undefined;
      expect(stats?.series_max_size).toBeGreaterThan(0);
      expect(stats?.chunk_max_size).toBeGreaterThan(0);
      expect(stats?.chunk_max_size).toBeLessThan(size('chunks/000001') ?? 0);
      expect(meta.thanos?.files).toEqual([
        { rel_path: 'chunks/000001', size_bytes: size('chunks/000001') },
        { rel_path: 'index', size_bytes: size('index') },
        { rel_path: 'meta.json' },
      ]);
    }
  });

  it('tsdb analyze accepts every shipped block', async () => {
    for (const b of blocks) {
      const dir = await download(b);
      const r = promtool(['analyze', dir, b]);
      expect(r.status, r.stderr).toBe(0);
      expect(r.stdout).toContain(`Block ID: ${b}`);
      const meta = await readMeta(view, TENANT, b);
      expect(r.stdout).toContain(`Series: ${meta.stats?.numSeries}`);
    }
  }, 60_000);

  it('tsdb dump lists exactly the samples Strata returns for the block’s range', async () => {
    for (const b of blocks) {
      const meta = await readMeta(view, TENANT, b);
      const r = promtool(['dump', await download(b)]);
      expect(r.status, r.stderr).toBe(0);
      const lines = r.stdout.split('\n').filter((l) => l !== '');
      expect(lines.length).toBe(meta.stats?.numSamples);
      // promtool: `{labels} %g-value ms-timestamp`; staleness markers print as NaN.
      const dumped = new Map<string, number>();
      for (const line of lines) {
        const m = /^(\{.*\}) (\S+) (-?\d+)$/.exec(line);
        if (m === null) throw new Error(`unexpected dump line: ${line}`);
        const v = m[2] === '+Inf' ? Infinity : m[2] === '-Inf' ? -Infinity : Number(m[2]);
        dumped.set(`${m[1]} ${m[3]}`, v);
      }
      // Every raw sample of the block's [minTime, maxTime) through the query API.
      const range = meta.maxTime - meta.minTime;
      const { data } = await strataQ().query(`{__name__=~".+"}[${range}ms]`, meta.maxTime - 1);
      if (data.resultType !== 'matrix') throw new Error('not a matrix');
      const answered = new Map<string, number>();
      for (const s of data.result) {
        const key = formatLabelsPromtool(Labels.fromObject(s.metric));
        for (const [t, v] of s.values) answered.set(`${key} ${Math.round(t * 1000)}`, Number(v));
      }
      expect(answered.size).toBeGreaterThan(10_000);
      const problems: string[] = [];
      for (const [k, v] of answered) {
        const d = dumped.get(k);
        if (d === undefined) problems.push(`answered but not in the block: ${k} ${v}`);
        else if (!Object.is(d, v) && !(Number.isNaN(d) && Number.isNaN(v)))
          problems.push(`${k}: block ${d}, answered ${v}`);
      }
      // The query API leaves staleness markers out; nothing else may be missing.
      const notAnswered = [...dumped].filter(([k]) => !answered.has(k));
      for (const [k, v] of notAnswered) {
        if (!Number.isNaN(v)) problems.push(`in the block but not answered: ${k} ${v}`);
      }
      expect(problems.slice(0, 10), `${problems.length} differences`).toEqual([]);
    }
  }, 120_000);
});
