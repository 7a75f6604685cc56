// The query benchmark (issue 14, `strata bench --only=query`): the same data pushed at once
// into Strata's single binary (dist/) and Prometheus 3 (built from Go into the services
// cache), then a standard set of instant and range queries (query_bench_queries.ts) timed on
// Strata's default engine, its vectorised engine (`X-PromQL-EngineType: thanos`) and
// Prometheus 3: one warm-up each, then `runs` rounds of one timed run per engine in an order
// that turns each round, the median per query, the geometric
// mean of the ratios, and every Strata answer compared with Prometheus 3's (a difference
// fails the run). After the largest scale, the stall measurement (query_bench_stall.ts) runs
// against the same Strata process.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cpus, homedir, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import { pushRounds } from './remote_write_load.js';
import type { Round } from './remote_write_gen.js';
import {
  ensureStrataBuilt,
  startPrometheus,
  startStrata,
  type StrataTargetOptions,
  type Target,
} from './remote_write_targets.js';
import { DATA_SPAN_MS, MINUTES, SAMPLES_PER_SERIES, querySlots } from './query_bench_data.js';
import {
  QUERIES,
  answerPoints,
  compareAnswers,
  isOrdered,
  medianOf,
  parseAnswer,
  postQuery,
  queryParams,
  type Answer,
  type BenchQuery,
} from './query_bench_queries.js';
import { runStall } from './query_bench_stall.js';
import {
  ENGINES,
  type EngineName,
  type EngineTiming,
  type QueryBenchResult,
  type QueryRow,
  type ScaleResult,
} from './query_bench_table.js';

export interface QueryOptions {
  /** Series counts, one table each. */
  scales: readonly number[];
  /** Timed runs per query and engine after one warm-up. */
  runs: number;
  /** Whether to measure pushes and heartbeats under a heavy query after the last scale. */
  stall: boolean;
  stallSeconds: number;
  stallClients: number;
  /** The heavy query loads at least this many samples. */
  stallSamples: number;
  strata: StrataTargetOptions;
  /**
   * Whether to run Prometheus 3 (built when missing); without it Strata's vectorised engine
   * is compared with its default engine (for tests on machines without Go).
   */
  prometheus: boolean;
  /** The command line, for the tables. */
  command?: string;
  progress?: (line: string) => void;
}

export const PROMETHEUS3_MODULE = 'github.com/prometheus/prometheus/cmd/prometheus@v0.316.0';
/** Concurrent clients pushing the data to each system. */
const PUSH_CLIENTS = 4;
const ENGINE_HEADERS: Record<EngineName, Record<string, string>> = {
  default: {},
  vectorised: { 'X-PromQL-EngineType': 'thanos' },
  prometheus: {},
};

/** The services cache the integration tests build binaries into. */
export function servicesBinDir(): string {
  const fromEnv = process.env['STRATA_SERVICES_CACHE'];
  return fromEnv !== undefined && fromEnv !== ''
    ? fromEnv
    : join(homedir(), '.cache', 'strata-services', 'bin');
}

export function prometheus3Binary(): string {
  return join(servicesBinDir(), 'prometheus');
}

export function prometheus3BuildCommand(): string {
  return `GOBIN=${servicesBinDir()} go install ${PROMETHEUS3_MODULE}`;
}

/**
 * The Prometheus 3 binary, built with `go install` when missing (and Go is installed), and
 * its version, checked to be 3.x. A `go install` build has an empty `--version`; its module
 * version (`go version -m`: v0.3xx.y is Prometheus 3.xx.y) says which release it is.
 */
export function ensurePrometheus3(progress: (line: string) => void): {
  bin: string;
  version: string;
} {
  const bin = prometheus3Binary();
  const cmd = prometheus3BuildCommand();
  if (!existsSync(bin)) {
    if (spawnSync('go', ['version']).status !== 0) {
      throw new Error(`${bin} is missing and go is not installed; build it with: ${cmd}`);
    }
    progress(`query: building Prometheus 3: ${cmd}`);
    const r = spawnSync('go', ['install', PROMETHEUS3_MODULE], {
      env: { ...process.env, GOBIN: servicesBinDir() },
      encoding: 'utf8',
    });
    if (r.status !== 0 || !existsSync(bin)) {
      throw new Error(`building Prometheus 3 failed (${cmd}):\n${r.stderr.slice(-2000)}`);
    }
  }
  const v = spawnSync(bin, ['--version'], { encoding: 'utf8' });
  const line = `${v.stdout}${v.stderr}`.split('\n')[0]?.trim() ?? '';
  const version = prometheusVersion(line, () => {
    const m = spawnSync('go', ['version', '-m', bin], { encoding: 'utf8' });
    return m.status === 0 ? m.stdout : '';
  });
  if (version === undefined || !version.startsWith('3.')) {
    throw new Error(
      `${bin} is not Prometheus 3.x ("${line}", version ${version ?? 'unknown'}); rebuild it with: ${cmd}`,
    );
  }
  return { bin, version: `Prometheus ${version} (${bin})` };
}

/**
 * The release of a Prometheus binary from its `--version` line, else from the module version
 * `goVersionM()` prints (`mod github.com/prometheus/prometheus v0.316.0` is 3.16.0).
 */
export function prometheusVersion(line: string, goVersionM: () => string): string | undefined {
  const m = /version v?(\d+\.\d+\.\d+\S*)/.exec(line);
  if (m !== null) return m[1];
  const mod = /^\s*mod\s+github\.com\/prometheus\/prometheus\s+v0\.(\d+)\.(\d+)/m.exec(
    goVersionM(),
  );
  if (mod === null) return undefined;
  const minor = Number(mod[1]);
  return `${Math.floor(minor / 100)}.${minor % 100}.${mod[2]}`;
}

/** Pushes the dataset minute by minute to every target at once, the same bytes to each. */
async function pushData(
  series: number,
  startMs: number,
  targets: readonly Target[],
): Promise<{ seconds: number; pushes: ScaleResult['pushes'] }> {
  const slots = querySlots(series);
  const pushes = targets.map((t) => ({
    system: t.system,
    requests: 0,
    errors: 0,
    firstError: '',
  }));
  const t0 = performance.now();
  for (let m = 0; m < MINUTES; m++) {
    const bodies = slots.map((s) => s.body(startMs, m));
    const round: Round = {
      round: m,
      bodies,
      samplesPerBody: slots.map((s) => s.count * (SAMPLES_PER_SERIES / MINUTES)),
      samples: series * (SAMPLES_PER_SERIES / MINUTES),
    };
    const stats = await Promise.all(
      targets.map((t) => pushRounds(t.pushUrl, [round], PUSH_CLIENTS, 600)),
    );
    stats.forEach((st, i) => {
      const p = pushes[i] as (typeof pushes)[number];
      p.requests += st.requests;
      p.errors += st.errors;
      if (p.firstError === '') p.firstError = st.firstError;
    });
  }
  return { seconds: (performance.now() - t0) / 1000, pushes };
}

/**
 * Series `base` holds (count of everything at the data's end); -1 when the query keeps
 * failing. Each failure is kept in `errors` for the table (tried 3 times, 2 s apart).
 */
async function countAll(base: string, startMs: number, errors: string[]): Promise<number> {
  const q: BenchQuery = { name: 'count', expr: 'count({__name__=~".+"})', kind: 'instant' };
  for (let attempt = 1; attempt <= 3; attempt++) {
    try {
      const r = await postQuery(base, 'instant', queryParams(q, startMs));
      return Number(parseAnswer(r.status, r.body).series[0]?.points[0]?.[1] ?? 0);
    } catch (err) {
      errors.push(`${base}: count attempt ${attempt}: ${(err as Error).message.slice(0, 300)}`);
      await new Promise((r) => setTimeout(r, 2_000));
    }
  }
  return -1;
}

/** One engine's runs of one query so far. */
interface EngineRuns {
  readonly base: string;
  readonly ms: number[];
  last: { status: number; body: string } | undefined;
  error: string | undefined;
}

/** One more run of `q` on `r`'s engine (none after a failure); timed unless a warm-up. */
async function runOnce(
  r: EngineRuns,
  engine: EngineName,
  q: BenchQuery,
  startMs: number,
  timed: boolean,
): Promise<void> {
  if (r.error !== undefined || (r.last !== undefined && r.last.status !== 200)) return;
  try {
    // A refused connection counts as a failed query, like an error status.
    const got = await postQuery(r.base, q.kind, queryParams(q, startMs), ENGINE_HEADERS[engine]);
    r.last = got;
    if (timed && got.status === 200) r.ms.push(got.ms);
  } catch (err) {
    r.error = (err as Error).message;
  }
}

/**
 * Every engine: a warm-up each, then `runs` rounds of one timed run each, the order turned
 * by one engine per round. A fixed order made one engine always run right after another
 * system's query, in the wake of its garbage collection and background work on a
 * two-core machine (the default engine, right after Prometheus 3, measured up to twice
 * the vectorised engine's time on queries where they run alike).
 */
async function timeQuery(
  bases: Record<EngineName, string | undefined>,
  q: BenchQuery,
  startMs: number,
  runs: number,
): Promise<Map<EngineName, { timing: EngineTiming; answer: Answer | undefined }>> {
  const engines = ENGINES.filter((e) => bases[e] !== undefined);
  const state = new Map<EngineName, EngineRuns>(
    engines.map((e) => [
      e,
      { base: bases[e] as string, ms: [], last: undefined, error: undefined },
    ]),
  );
  for (const e of engines) await runOnce(state.get(e) as EngineRuns, e, q, startMs, false);
  for (let i = 0; i < runs; i++) {
    for (let k = 0; k < engines.length; k++) {
      const e = engines[(i + k) % engines.length] as EngineName;
      await runOnce(state.get(e) as EngineRuns, e, q, startMs, true);
    }
  }
  const out = new Map<EngineName, { timing: EngineTiming; answer: Answer | undefined }>();
  for (const [e, r] of state) {
    out.set(
      e,
      r.error !== undefined || r.last === undefined
        ? { timing: { medianMs: NaN, error: r.error ?? 'not run' }, answer: undefined }
        : {
            timing: { medianMs: medianOf(r.ms), error: undefined },
            answer: parseAnswer(r.last.status, r.last.body),
          },
    );
  }
  return out;
}

/** Nodes the vectorised engine did not cover (its stats' fallbackNodes). */
async function fallbacksOf(base: string, q: BenchQuery, startMs: number): Promise<string[]> {
  const r = await postQuery(
    base,
    q.kind,
    { ...queryParams(q, startMs), stats: 'all' },
    ENGINE_HEADERS.vectorised,
  ).catch(() => undefined);
  if (r?.status !== 200) return [];
  const json = JSON.parse(r.body) as { data?: { stats?: { fallbackNodes?: string[] } } };
  return json.data?.stats?.fallbackNodes ?? [];
}

async function runQueries(
  bases: Record<EngineName, string | undefined>,
  startMs: number,
  runs: number,
  progress: (line: string) => void,
): Promise<QueryRow[]> {
  const rows: QueryRow[] = [];
  for (const q of QUERIES) {
    progress(`query: ${q.name}: ${q.expr}`);
    const timings = {} as Record<EngineName, EngineTiming>;
    const answers = {} as Record<EngineName, Answer | undefined>;
    const measured = await timeQuery(bases, q, startMs, runs);
    for (const engine of ENGINES) {
      const r = measured.get(engine);
      timings[engine] = r?.timing ?? { medianMs: NaN, error: 'not run' };
      answers[engine] = r?.answer;
    }
    // Without Prometheus 3 the default engine is the reference.
    const ref = bases.prometheus === undefined ? answers.default : answers.prometheus;
    const compare = (got: Answer | undefined) =>
      ref === undefined || got === undefined ? undefined : compareAnswers(ref, got, isOrdered(q));
    const shown = ref ?? answers.default;
    rows.push({
      query: q,
      series: shown?.series.length ?? 0,
      points: shown === undefined ? 0 : answerPoints(shown),
      timings,
      compared: { default: compare(answers.default), vectorised: compare(answers.vectorised) },
      fallbacks: await fallbacksOf(bases.vectorised ?? '', q, startMs),
    });
  }
  return rows;
}

export async function runQueryBench(opts: QueryOptions): Promise<QueryBenchResult> {
  const progress = opts.progress ?? (() => undefined);
  ensureStrataBuilt();
  const prom3 = opts.prometheus ? ensurePrometheus3(progress) : undefined;
  const loadBefore = loadavg();
  const scales: ScaleResult[] = [];
  let stall: QueryBenchResult['stall'];
  let stallSkipped: string | undefined = opts.stall ? undefined : 'skipped (--query-no-stall)';
  for (const [i, series] of opts.scales.entries()) {
    progress(`query: ${series} series: starting Strata and ${prom3?.version ?? 'no Prometheus'}`);
    const [strata, prometheus] = await Promise.all([
      startStrata(opts.strata),
      prom3 === undefined ? undefined : startPrometheus({ bin: prom3.bin }),
    ]);
    let strataStopped = false;
    try {
      const strataRoot = strata.pushUrl.replace(/\/api\/v1\/push$/, '');
      const strataApi = `${strataRoot}/prometheus`;
      const promApi = prometheus?.pushUrl.replace(/\/api\/v1\/write$/, '');
      // The data ends about now: five minutes of samples, the last second just passed.
      const startMs = Math.floor(Date.now() / 1000) * 1000 - DATA_SPAN_MS;
      progress(`query: pushing ${series} series × ${SAMPLES_PER_SERIES} samples to both`);
      const pushed = await pushData(series, startMs, prometheus ? [strata, prometheus] : [strata]);
      const countErrors: string[] = [];
      const seriesSeen = {
        strata: await countAll(strataApi, startMs, countErrors),
        prometheus:
          promApi === undefined ? undefined : await countAll(promApi, startMs, countErrors),
      };
      for (const e of countErrors) progress(`query: ${e}`);
      const rows = await runQueries(
        { default: strataApi, vectorised: strataApi, prometheus: promApi },
        startMs,
        opts.runs,
        progress,
      );
      scales.push({
        series,
        samples: series * SAMPLES_PER_SERIES,
        pushSeconds: pushed.seconds,
        pushes: pushed.pushes,
        seriesSeen,
        countErrors,
        startMs,
        rows,
      });
      await prometheus?.stop(10_000);
      if (opts.stall && i === opts.scales.length - 1) {
        progress(`query: stall measurement on Strata with ${series} series`);
        try {
          stall = await runStall({
            base: strataRoot,
            pushUrl: strata.pushUrl,
            series,
            startMs,
            clients: opts.stallClients,
            seconds: opts.stallSeconds,
            heavySamples: opts.stallSamples,
            progress,
          });
        } catch (err) {
          stallSkipped = `failed: ${(err as Error).message}`;
        }
      }
      strataStopped = true;
      const code = await strata.stop(30_000);
      if (code !== 0) progress(`query: Strata exited with ${code}`);
    } finally {
      await prometheus?.stop(10_000).catch(() => undefined);
      if (!strataStopped) await strata.stop(30_000).catch(() => undefined);
    }
  }
  return {
    command: opts.command ?? 'npm run bench -- --only=query',
    machine: `${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB`,
    date: new Date().toISOString(),
    loadBefore,
    loadAfter: loadavg(),
    prometheusVersion:
      prom3?.version ??
      `not run (--query-no-prometheus): the vectorised engine's answers are compared with the default engine's; build Prometheus 3 with ${prometheus3BuildCommand()}`,
    runs: opts.runs,
    scales,
    stall,
    stallSkipped,
  };
}
