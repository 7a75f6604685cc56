// The query-frontend benchmark (issue 13): a dashboard of ten range queries over 24h of 10k
// series held in blocks that a store-gateway serves, timed against a querier asked directly,
// a query-frontend (split by 3h, results cache) first cold then warm, the same frontend with
// query sharding (shard size 3) cold then warm, and Debian's Prometheus over a copy of the
// same blocks. Every answer is compared with the querier's: the frontend's must be identical
// (any difference fails the run); Prometheus's differences are reported, not failed.
//
// The data is the long-term benchmark's (long_term_data.ts): consecutive 2h blocks of the four
// series shapes, uploaded as the shipper does to a filesystem bucket. Each component is its own
// process (frontend_bench_procs.ts), so the timings include the HTTP hops a deployment has.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { FilesystemBucket, NodeFileSystem, RealClock } from '../src/runtime/real/index.js';
import { createRealRandom } from '../src/runtime/real/index.js';
import {
  SHARD_SIZE,
  SPLIT_INTERVAL,
  frontendFlags,
  querierFlags,
  startPrometheusOver,
  startStrataProcess,
  type BenchProcess,
} from './frontend_bench_procs.js';
import {
  DASHBOARD,
  compareMatrix,
  counterSeries,
  matrixPoints,
  parseMatrix,
  type Difference,
  type Matrix,
} from './frontend_bench_queries.js';
import { LT_TENANT, TWO_HOURS_MS, uploadBlocks, writeLocalBlocks } from './long_term_data.js';
import { median } from './long_term_bench.js';
import { PROMETHEUS_BIN, ensureStrataBuilt } from './remote_write_targets.js';
import { BENCH_START_MS } from './series_shapes.js';

export interface FrontendOptions {
  /** Series per 2h block (a quarter of each shape). */
  series: number;
  /** Hours of data and of each query's range (whole 2h blocks). */
  hours: number;
  /** Whether to run Prometheus too (when its binary is installed). */
  prometheus: boolean;
  progress?: (line: string) => void;
}

/** The dashboard's resolution: Grafana's step for a 24h panel ~1,400 px wide. */
export const STEP_SECONDS = 60;

export interface QueryRow {
  name: string;
  ms: number;
  series: number;
  points: number;
  /** Against the querier's answer; undefined when identical. */
  difference: Difference | undefined;
}

export interface ScenarioResult {
  scenario: string;
  totalMs: number;
  p50Ms: number;
  maxMs: number;
  queries: QueryRow[];
  /** Whether a difference from the querier's answers fails the run. */
  mustMatch: boolean;
}

export interface FrontendResult {
  series: number;
  hours: number;
  blocks: number;
  start: number;
  end: number;
  writeSeconds: number;
  machine: string;
  loadBefore: number[];
  loadAfter: number[];
  date: string;
  scenarios: ScenarioResult[];
  /** Why Prometheus was not measured, if it was not. */
  prometheusSkipped: string | undefined;
}

const HEADERS = { 'X-Scope-OrgID': LT_TENANT };

async function get(url: string): Promise<{ status: number; body: string }> {
  const res = await fetch(url, { headers: HEADERS });
  return { status: res.status, body: await res.text() };
}

function rangeUrl(p: BenchProcess, expr: string, start: number, end: number): string {
  const q = new URLSearchParams({
    query: expr,
    start: String(start / 1000),
    end: String(end / 1000),
    step: String(STEP_SECONDS),
  });
  return `${p.api}/query_range?${q.toString()}`;
}

function instantUrl(p: BenchProcess, expr: string, time: number): string {
  return `${p.api}/query?${new URLSearchParams({ query: expr, time: String(time / 1000) }).toString()}`;
}

/**
 * Waits until `p` sees every block (the store-gateway's and querier's first syncs), then runs
 * the dashboard's expressions once as instant queries (never cached): each path starts the
 * timed runs with its code compiled and the blocks' files in the page cache.
 */
async function warmUp(p: BenchProcess, series: number, end: number): Promise<void> {
  const want = counterSeries(series);
  const deadline = performance.now() + 120_000;
  for (;;) {
    const r = await get(instantUrl(p, 'count(bench_counter)', end));
    const last = `${r.status} ${r.body.slice(0, 300)}`;
    const json =
      r.status === 200
        ? (JSON.parse(r.body) as { data?: { result?: { value: [number, string] }[] } })
        : {};
    if (json.data?.result?.[0]?.value[1] === String(want)) break;
    if (performance.now() > deadline) {
      throw new Error(
        `${p.name} does not see the ${want} counters (${last}):\n${p.target.output()}`,
      );
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  for (const q of DASHBOARD) {
    const r = await get(instantUrl(p, q.expr, end));
    if (r.status !== 200) throw new Error(`${p.name}: ${q.expr}: ${r.status} ${r.body}`);
  }
}

/** One pass over the dashboard, panel after panel; answers compared with `reference`. */
async function runDashboard(
  scenario: string,
  p: BenchProcess,
  start: number,
  end: number,
  reference: Matrix[] | undefined,
  mustMatch: boolean,
): Promise<{ result: ScenarioResult; answers: Matrix[] }> {
  const answers: Matrix[] = [];
  const queries: QueryRow[] = [];
  for (const [i, q] of DASHBOARD.entries()) {
    const t0 = performance.now();
    const r = await get(rangeUrl(p, q.expr, start, end));
    const ms = performance.now() - t0;
    const m = parseMatrix(r.status, r.body);
    answers.push(m);
    const want = reference?.[i];
    queries.push({
      name: q.name,
      ms,
      series: m.size,
      points: matrixPoints(m),
      difference: want === undefined ? undefined : compareMatrix(want, m),
    });
  }
  const times = queries.map((q) => q.ms);
  return {
    result: {
      scenario,
      totalMs: times.reduce((a, b) => a + b, 0),
      p50Ms: median(times),
      maxMs: Math.max(...times),
      queries,
      mustMatch,
    },
    answers,
  };
}

export function frontendFailed(r: FrontendResult): boolean {
  return r.scenarios.some((s) => s.mustMatch && s.queries.some((q) => q.difference !== undefined));
}

export async function runFrontendBench(opts: FrontendOptions): Promise<FrontendResult> {
  if (opts.hours < 2 || opts.hours % 2 !== 0) {
    throw new Error(`--fe-hours=${opts.hours}: a positive even number of hours (2h blocks)`);
  }
  const progress = opts.progress ?? (() => undefined);
  ensureStrataBuilt();
  const blocks = opts.hours / 2;
  const start = BENCH_START_MS;
  const end = BENCH_START_MS + blocks * TWO_HOURS_MS;
  const work = mkdtempSync(join(tmpdir(), 'strata-bench-fe-'));
  const procs: BenchProcess[] = [];
  const loadBefore = loadavg();
  try {
    const fs = new NodeFileSystem();
    const clock = new RealClock();
    const local = join(work, 'local');
    const t0 = performance.now();
    const deps = { fs, clock, random: createRealRandom().stream('bench-fe') };
    const metas = await writeLocalBlocks(local, blocks, opts.series, deps, progress);
    const bucketDir = join(work, 'bucket');
    const bucket = new FilesystemBucket(bucketDir, clock);
    await uploadBlocks(bucket, local, metas, fs);
    await bucket.close();
    const writeSeconds = (performance.now() - t0) / 1000;

    progress('frontend: starting the store-gateway');
    const gateway = await startStrataProcess('store-gateway', work, bucketDir, [
      '-target=store-gateway',
    ]);
    procs.push(gateway);
    progress('frontend: starting the querier, the frontends and their queriers');
    const [querier, plain, sharded] = await Promise.all([
      startStrataProcess('querier', work, bucketDir, querierFlags(gateway.rpc)),
      startStrataProcess('frontend', work, bucketDir, frontendFlags(false)),
      startStrataProcess('frontend-sharded', work, bucketDir, frontendFlags(true)),
    ]);
    procs.push(querier, plain, sharded);
    const workers = await Promise.all(
      [plain, sharded].map((fe) =>
        startStrataProcess(`${fe.name}-querier`, work, bucketDir, [
          ...querierFlags(gateway.rpc),
          `-querier.frontend-address=${fe.rpc}`,
        ]),
      ),
    );
    procs.push(...workers);
    let prometheus: BenchProcess | undefined;
    let prometheusSkipped: string | undefined;
    if (!opts.prometheus) prometheusSkipped = 'not asked for';
    else if (!existsSync(PROMETHEUS_BIN)) prometheusSkipped = `${PROMETHEUS_BIN} is missing`;
    else {
      progress('frontend: starting Prometheus over a copy of the blocks');
      prometheus = await startPrometheusOver(local);
      procs.push(prometheus);
    }
    for (const p of [querier, plain, sharded, ...(prometheus ? [prometheus] : [])]) {
      progress(`frontend: warming up ${p.name}`);
      await warmUp(p, opts.series, end);
    }

    const scenarios: ScenarioResult[] = [];
    const run = async (
      name: string,
      p: BenchProcess,
      ref: Matrix[] | undefined,
      mustMatch = true,
    ): Promise<Matrix[]> => {
      progress(`frontend: dashboard: ${name}`);
      const { result, answers } = await runDashboard(name, p, start, end, ref, mustMatch);
      scenarios.push(result);
      return answers;
    };
    const reference = await run('querier (direct)', querier, undefined);
    await run(`frontend, split ${SPLIT_INTERVAL}, cache empty (cold)`, plain, reference);
    await run(`frontend, split ${SPLIT_INTERVAL}, cache filled (warm)`, plain, reference);
    await run(`frontend sharded ×${SHARD_SIZE}, split ${SPLIT_INTERVAL}, cold`, sharded, reference);
    await run(`frontend sharded ×${SHARD_SIZE}, split ${SPLIT_INTERVAL}, warm`, sharded, reference);
    if (prometheus)
      await run('Prometheus (Debian) over the same blocks', prometheus, reference, false);
    return {
      series: opts.series,
      hours: opts.hours,
      blocks,
      start,
      end,
      writeSeconds,
      machine: `${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB`,
      loadBefore,
      loadAfter: loadavg(),
      date: new Date().toISOString(),
      scenarios,
      prometheusSkipped,
    };
  } finally {
    for (const p of procs.reverse()) await p.target.stop(10_000).catch(() => undefined);
    rmSync(work, { recursive: true, force: true });
  }
}
