/**
 * Benchmarks behind `strata bench` (npm run bench): bytes per sample side by side with
 * promtool, append and iterate cost, head memory per series, remote-write load against
 * Strata's single binary next to Prometheus's receiver, the long-term read path (one series
 * over 24h through a store-gateway vs an ingester's TSDB) and compaction (three replicas of a
 * 2h block merged by the compactor), the simulator's speed and the query-frontend (a dashboard
 * through a querier, a frontend cold and warm, sharded, and Prometheus) and the query path (both
 * engines next to Prometheus 3 on the same pushed data); printed as markdown tables for
 * docs/benchmarks.md. Benchmarks use real time, real disk and child processes;
 * they must never run as timed tests or be imported by production modules other than the CLI.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { runBytesBench, type BytesResult } from './bytes_bench.js';
import { runCompactionBench, type CompactionOptions } from './compaction_bench.js';
import { frontendFailed, runFrontendBench, type FrontendOptions } from './frontend_bench.js';
import { frontendTable } from './frontend_bench_table.js';
import { runQueryBench, type QueryOptions } from './query_bench.js';
import { queryBenchFailed, scaleTable, stallTable } from './query_bench_table.js';
import { compactionFailed, compactionTable } from './compaction_table.js';
import {
  defaultLongTermBuckets,
  LT_BUCKET_KINDS,
  runLongTermBench,
  type LongTermBucketKind,
  type LongTermOptions,
} from './long_term_bench.js';
import { longTermTable } from './long_term_table.js';
import { exposedGc, runMemoryBench, type MemoryResult } from './memory_bench.js';
import {
  remoteWriteFailed,
  remoteWriteTable,
  runRemoteWriteBench,
  type RemoteWriteOptions,
} from './remote_write_bench.js';
import { SYSTEM_NAMES, type SystemName } from './remote_write_targets.js';
import { SAMPLES_PER_2H_BLOCK } from './series_shapes.js';
import {
  runSimBench,
  SIM_BENCH_SCENARIOS,
  simBenchFailed,
  simTable,
  type SimBenchOptions,
} from './sim_bench.js';
import {
  runBlockIterateBench,
  runHeadAppendBench,
  runHeadIterateBench,
  runXorAppendBench,
  type SpeedResult,
} from './speed_bench.js';

export interface BenchIO {
  stdout(s: string): void;
  stderr(s: string): void;
}

export const BENCH_NAMES = [
  'bytes',
  'append',
  'iterate',
  'memory',
  'remote-write',
  'long-term',
  'compaction',
  'sim',
  'frontend',
  'query',
] as const;
export type BenchName = (typeof BENCH_NAMES)[number];

export const BENCH_USAGE = `Usage: strata bench [--quick] [--only=<${BENCH_NAMES.join('|')}>] [--series=N] [--samples=M] [--memory-series=K]

  --quick            smaller sizes (about a minute)
  --only=NAME        run one benchmark (repeatable)
  --series=N         series per shape for bytes/append/iterate
  --samples=M        samples per series at 15s for bytes/iterate (at most ${SAMPLES_PER_2H_BLOCK}: one 2h block)
  --memory-series=K  series in the head-memory benchmark (default 1000000, --quick 100000)

remote-write (Strata's single binary from dist/ next to /usr/bin/prometheus):
  --rw-series=A,B    active-series scales (default 100000,1000000; --quick 2000,5000)
  --rw-clients=N     concurrent keep-alive HTTP clients (default 4; --quick 2)
  --rw-seconds=S     time limit of each steady-state phase (default 30; --quick 2)
  --rw-samples=M     samples pre-built per steady-state phase, whole rounds (default 6000000; --quick 20000)
  --rw-systems=LIST  strata,prometheus (default both)
  --rw-cpu-prof=DIR  run Strata under node --cpu-prof, profiles written to DIR on exit

long-term (one series over 24h through a store-gateway vs an ingester's TSDB):
  --lt-series=N      series per 2h block (default 10000; --quick 2000)
  --lt-blocks=B      consecutive 2h blocks, at least 2 (default 12: 24h; --quick 4)
  --lt-runs=R        timed queries per path after 2 warm-ups (default 20; --quick 5)
  --lt-buckets=LIST  filesystem,minio (default filesystem, plus minio when its binary is in
                     ~/.cache/strata-services/bin)

compaction (3 replicas of a 2h block merged by one compactor run over a filesystem bucket):
  --compact-series=N   series per block (default 100000; --quick 10000)
  --compact-samples=M  samples per series at 15s (default ${SAMPLES_PER_2H_BLOCK}: 2h)
  --compact-verify     also read the output back and compare every sample (slow)

sim (the deterministic simulator's speed: built-in scenarios run in this process):
  --sim-runs=R         timed runs per scenario after a warm-up (default 3; --quick 1, no warm-up)
  --sim-scenarios=LIST built-in scenarios (default ${SIM_BENCH_SCENARIOS.join(',')})

frontend (a 10-query dashboard through a store-gateway: querier, query-frontend cold/warm,
sharded/unsharded, and Debian's Prometheus over the same blocks; Strata from dist/):
  --fe-series=N        series per 2h block (default 10000; --quick 2000)
  --fe-hours=H         hours of data and of each query, even (default 24; --quick 6)

query (issue 14: instant and range queries on Strata's two engines and Prometheus 3 over the
same pushed data, answers compared; Prometheus 3 from $STRATA_SERVICES_CACHE/prometheus, else
~/.cache/strata-services/bin/prometheus, built there with go install when missing):
  --query-series=A,B       series per table (default 10000,100000; --quick 1000)
  --query-runs=R           timed runs per query and engine after a warm-up (default 5)
  --query-cpu-prof=DIR     run Strata under node --cpu-prof, profiles written to DIR on exit
  --query-no-stall         skip the stall measurement (pushes and heartbeats under a heavy query)
  --query-stall-seconds=S  length of each stall phase (default 20; --quick 3)
  --query-stall-samples=M  samples the heavy query loads at least (default 10000000; --quick 1000000)
  --query-no-prometheus    Strata only: the vectorised engine's answers compared with the default's
`;

export interface BenchOptions {
  quick: boolean;
  only: Set<BenchName>;
  series: number;
  samples: number;
  memorySeries: number;
  remoteWrite: Omit<RemoteWriteOptions, 'progress'>;
  longTerm: Omit<LongTermOptions, 'progress'>;
  compaction: Omit<CompactionOptions, 'progress'>;
  sim: Omit<SimBenchOptions, 'progress'>;
  frontend: Omit<FrontendOptions, 'progress'>;
  query: Omit<QueryOptions, 'progress'>;
}

/** Append target of issue 3: 2M samples/s on one core into an existing series set. */
export const APPEND_TARGET_PER_SECOND = 2_000_000;
/** Head memory target of issue 3: 3 KiB per series including its open chunk. */
export const MEMORY_TARGET_BYTES = 3 * 1024;
/** The whole block may differ from promtool's by at most this fraction. */
export const BLOCK_SIZE_TOLERANCE = 0.02;

export function parseBenchArgs(argv: readonly string[]): BenchOptions {
  let quick = false;
  const only = new Set<BenchName>();
  let series: number | undefined;
  let samples: number | undefined;
  let memorySeries: number | undefined;
  let rwSeries: number[] | undefined;
  let rwClients: number | undefined;
  let rwSeconds: number | undefined;
  let rwSamples: number | undefined;
  let rwSystems: SystemName[] | undefined;
  let rwCpuProf: string | undefined;
  let ltSeries: number | undefined;
  let ltBlocks: number | undefined;
  let ltRuns: number | undefined;
  let ltBuckets: LongTermBucketKind[] | undefined;
  let compactSeries: number | undefined;
  let compactSamples: number | undefined;
  let compactVerify = false;
  let simRuns: number | undefined;
  let simScenarios: string[] | undefined;
  let feSeries: number | undefined;
  let feHours: number | undefined;
  let querySeries: number[] | undefined;
  let queryRuns: number | undefined;
  let queryCpuProf: string | undefined;
  let queryStall = true;
  let queryPrometheus = true;
  let queryStallSeconds: number | undefined;
  let queryStallSamples: number | undefined;
  for (const arg of argv) {
    const [flag, value] = arg.replace(/^--?/, '').split('=', 2) as [string, string | undefined];
    switch (flag) {
      case 'quick':
        quick = true;
        break;
      case 'only': {
        if (!(BENCH_NAMES as readonly string[]).includes(value ?? '')) {
          throw new Error(
            `unknown benchmark "${value ?? ''}" in ${arg}; one of ${BENCH_NAMES.join(', ')}`,
          );
        }
        only.add(value as BenchName);
        break;
      }
      case 'series':
        series = positiveInt(arg, value);
        break;
      case 'samples':
        samples = positiveInt(arg, value);
        if (samples > SAMPLES_PER_2H_BLOCK) {
          throw new Error(
            `--samples=${samples} exceeds ${SAMPLES_PER_2H_BLOCK} (one 2h block at 15s)`,
          );
        }
        break;
      case 'memory-series':
        memorySeries = positiveInt(arg, value);
        break;
      case 'rw-series':
        rwSeries = (value ?? '').split(',').map((v) => positiveInt(arg, v));
        break;
      case 'rw-clients':
        rwClients = positiveInt(arg, value);
        break;
      case 'rw-seconds':
        rwSeconds = positiveInt(arg, value);
        break;
      case 'rw-samples':
        rwSamples = positiveInt(arg, value);
        break;
      case 'rw-systems':
        rwSystems = (value ?? '').split(',').map((v) => {
          if (!(SYSTEM_NAMES as readonly string[]).includes(v)) {
            throw new Error(`unknown system "${v}" in ${arg}; one of ${SYSTEM_NAMES.join(', ')}`);
          }
          return v as SystemName;
        });
        break;
      case 'rw-cpu-prof':
        if (value === undefined || value === '') throw new Error(`${arg}: expected a directory`);
        rwCpuProf = value;
        break;
      case 'lt-series':
        ltSeries = positiveInt(arg, value);
        break;
      case 'lt-blocks':
        ltBlocks = positiveInt(arg, value);
        if (ltBlocks < 2) throw new Error(`${arg}: at least 2 blocks`);
        break;
      case 'lt-runs':
        ltRuns = positiveInt(arg, value);
        break;
      case 'lt-buckets':
        ltBuckets = (value ?? '').split(',').map((v) => {
          if (!(LT_BUCKET_KINDS as readonly string[]).includes(v)) {
            throw new Error(
              `unknown bucket "${v}" in ${arg}; one of ${LT_BUCKET_KINDS.join(', ')}`,
            );
          }
          return v as LongTermBucketKind;
        });
        break;
      case 'compact-series':
        compactSeries = positiveInt(arg, value);
        break;
      case 'compact-verify':
        compactVerify = true;
        break;
      case 'compact-samples':
        compactSamples = positiveInt(arg, value);
        if (compactSamples > SAMPLES_PER_2H_BLOCK) {
          throw new Error(`${arg}: at most ${SAMPLES_PER_2H_BLOCK} (2h at 15s)`);
        }
        break;
      case 'sim-runs':
        simRuns = positiveInt(arg, value);
        break;
      case 'sim-scenarios':
        simScenarios = (value ?? '').split(',').filter((v) => v !== '');
        if (simScenarios.length === 0) throw new Error(`${arg}: expected scenario names`);
        break;
      case 'fe-series':
        feSeries = positiveInt(arg, value);
        break;
      case 'fe-hours':
        feHours = positiveInt(arg, value);
        if (feHours % 2 !== 0) throw new Error(`${arg}: an even number of hours (2h blocks)`);
        break;
      case 'query-series':
        querySeries = (value ?? '').split(',').map((v) => positiveInt(arg, v));
        break;
      case 'query-runs':
        queryRuns = positiveInt(arg, value);
        break;
      case 'query-cpu-prof':
        if (value === undefined || value === '') throw new Error(`${arg}: expected a directory`);
        queryCpuProf = value;
        break;
      case 'query-no-stall':
        queryStall = false;
        break;
      case 'query-no-prometheus':
        queryPrometheus = false;
        break;
      case 'query-stall-seconds':
        queryStallSeconds = positiveInt(arg, value);
        break;
      case 'query-stall-samples':
        queryStallSamples = positiveInt(arg, value);
        break;
      default:
        throw new Error(`unknown bench flag "${arg}"`);
    }
  }
  if (only.size === 0) for (const n of BENCH_NAMES) only.add(n);
  return {
    quick,
    only,
    series: series ?? (quick ? 2_000 : 10_000),
    samples: samples ?? SAMPLES_PER_2H_BLOCK,
    memorySeries: memorySeries ?? (quick ? 100_000 : 1_000_000),
    remoteWrite: {
      scales: rwSeries ?? (quick ? [2_000, 5_000] : [100_000, 1_000_000]),
      clients: rwClients ?? (quick ? 2 : 4),
      maxSeconds: rwSeconds ?? (quick ? 2 : 30),
      steadySamples: rwSamples ?? (quick ? 20_000 : 6_000_000),
      systems: rwSystems ?? SYSTEM_NAMES,
      strata: {
        nodeArgs: rwCpuProf === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${rwCpuProf}`],
      },
    },
    longTerm: {
      series: ltSeries ?? (quick ? 2_000 : 10_000),
      blocks: ltBlocks ?? (quick ? 4 : 12),
      runs: ltRuns ?? (quick ? 5 : 20),
      buckets: ltBuckets ?? defaultLongTermBuckets(),
    },
    compaction: {
      series: compactSeries ?? (quick ? 10_000 : 100_000),
      samples: compactSamples ?? SAMPLES_PER_2H_BLOCK,
      verifySamples: compactVerify,
    },
    sim: {
      scenarios: simScenarios ?? SIM_BENCH_SCENARIOS,
      runs: simRuns ?? (quick ? 1 : 3),
      warmup: !quick,
    },
    frontend: {
      series: feSeries ?? (quick ? 2_000 : 10_000),
      hours: feHours ?? (quick ? 6 : 24),
      prometheus: true,
    },
    query: {
      scales: querySeries ?? (quick ? [1_000] : [10_000, 100_000]),
      runs: queryRuns ?? 5,
      stall: queryStall,
      stallSeconds: queryStallSeconds ?? (quick ? 3 : 20),
      stallClients: 2,
      stallSamples: queryStallSamples ?? (quick ? 1_000_000 : 10_000_000),
      prometheus: queryPrometheus,
      strata: {
        nodeArgs:
          queryCpuProf === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${queryCpuProf}`],
      },
    },
  };
}

function positiveInt(arg: string, value: string | undefined): number {
  const n = Number(value);
  if (value === undefined || !Number.isSafeInteger(n) || n < 1) {
    throw new Error(`${arg}: expected a positive integer, got "${value ?? ''}"`);
  }
  return n;
}

/**
 * Runs `strata bench` and resolves with its exit code: 1 if a check against promtool fails,
 * a remote-write push was refused or the long-term paths answered differently (missed
 * performance targets are reported, not failed).
 */
export async function runBenchCommand(argv: readonly string[], io: BenchIO): Promise<number> {
  if (argv.includes('help') || argv.includes('--help') || argv.includes('-h')) {
    io.stdout(BENCH_USAGE);
    return 0;
  }
  let opts: BenchOptions;
  try {
    opts = parseBenchArgs(argv);
  } catch (err) {
    io.stderr(`${(err as Error).message}\n\n${BENCH_USAGE}`);
    return 2;
  }
  if ((opts.only.has('memory') || opts.only.has('long-term')) && exposedGc() === undefined) {
    const code = rerunWithExposedGc(argv);
    if (code !== undefined) return code;
    if (opts.only.has('memory')) {
      io.stderr(
        'head memory needs node --expose-gc: run node --expose-gc dist/src/cli/main.js bench\n',
      );
      opts.only.delete('memory');
    }
  }

  let failed = false;
  io.stdout(`# strata bench${argv.length > 0 ? ' ' + argv.join(' ') : ''}\n\n`);
  if (opts.only.has('bytes')) {
    const results = await runBytesBench({
      numSeries: opts.quick ? Math.min(opts.series, 200) : Math.min(opts.series, 1_000),
      samplesPerSeries: opts.samples,
    });
    io.stdout(bytesTable(results));
    failed ||= results.some(
      (r) => !r.chunksIdentical || Math.abs(relDiff(r)) > BLOCK_SIZE_TOLERANCE,
    );
  }
  if (opts.only.has('append') || opts.only.has('iterate')) {
    const rounds = opts.quick ? 60 : 200;
    const { result, head } = await runHeadAppendBench({ numSeries: opts.series, rounds });
    const speed: SpeedResult[] = [];
    if (opts.only.has('append')) {
      speed.push(result, runXorAppendBench(opts.quick ? 20_000 : 100_000));
    }
    if (opts.only.has('iterate')) {
      speed.push(await runHeadIterateBench(head));
      speed.push(await runBlockIterateBench(opts.series, opts.samples));
    }
    io.stdout(speedTable(speed));
  }
  if (opts.only.has('memory')) {
    io.stdout(memoryTable(await runMemoryBench(opts.memorySeries)));
  }
  if (opts.only.has('remote-write')) {
    const rw: RemoteWriteOptions = {
      ...opts.remoteWrite,
      progress: (line) => io.stderr(`${line}\n`),
    };
    const results = await runRemoteWriteBench(rw);
    io.stdout(remoteWriteTable(results, rw));
    failed ||= remoteWriteFailed(results);
  }
  if (opts.only.has('long-term')) {
    const result = await runLongTermBench({
      ...opts.longTerm,
      progress: (line) => io.stderr(`${line}\n`),
    });
    io.stdout(longTermTable(result));
    failed ||= result.mismatches.length > 0;
  }
  if (opts.only.has('compaction')) {
    const result = await runCompactionBench({
      ...opts.compaction,
      progress: (line) => io.stderr(`${line}\n`),
    });
    io.stdout(compactionTable(result));
    for (const c of result.checks) {
      if (!c.ok) io.stderr(`compaction: CHECK FAILED: ${c.name}: ${c.detail}\n`);
    }
    failed ||= compactionFailed(result);
  }
  if (opts.only.has('sim')) {
    const results = await runSimBench({ ...opts.sim, progress: (line) => io.stderr(`${line}\n`) });
    io.stdout(simTable(results, opts.sim));
    for (const r of results) {
      for (const p of r.problems) io.stderr(`sim: ${r.scenario}: ${p}\n`);
    }
    failed ||= simBenchFailed(results);
  }
  if (opts.only.has('frontend')) {
    const result = await runFrontendBench({
      ...opts.frontend,
      progress: (line) => io.stderr(`${line}\n`),
    });
    io.stdout(frontendTable(result));
    failed ||= frontendFailed(result);
  }
  if (opts.only.has('query')) {
    const result = await runQueryBench({
      ...opts.query,
      command: `npm run bench -- ${argv.join(' ')}`,
      progress: (line) => io.stderr(`${line}\n`),
    });
    for (const s of result.scales) io.stdout(scaleTable(result, s));
    if (result.stall !== undefined) io.stdout(stallTable(result.stall));
    else if (result.stallSkipped !== undefined) {
      io.stdout(`## Query path: stall measurement ${result.stallSkipped}\n\n`);
    }
    failed ||= queryBenchFailed(result);
  }
  return failed ? 1 : 0;
}

/**
 * Without --expose-gc, runs the same command in a child node that has it. Returns its exit
 * code, or undefined when this process is not the built CLI (e.g. under vitest).
 */
function rerunWithExposedGc(argv: readonly string[]): number | undefined {
  const main = fileURLToPath(new URL('../src/cli/main.js', import.meta.url));
  if (!import.meta.url.endsWith('.js') || !existsSync(main)) return undefined;
  const r = spawnSync(process.execPath, ['--expose-gc', main, 'bench', ...argv], {
    stdio: 'inherit',
  });
  return r.status ?? 1;
}

function relDiff(r: BytesResult): number {
  return (r.oursBlockBytes - r.promtoolBlockBytes) / r.promtoolBlockBytes;
}

function fixed(n: number, digits: number): string {
  return n.toFixed(digits);
}

export function bytesTable(results: readonly BytesResult[]): string {
  const lines = [
    '## Bytes per sample (ours: writeBlock, rules v2.42, 4h chunk range; promtool 2.42 create-blocks-from openmetrics)',
    '',
    '| shape | series × samples | chunk B/sample ours | chunk B/sample promtool | chunks/000001 identical | block bytes ours | block bytes promtool | block diff |',
    '|---|---|---|---|---|---|---|---|',
  ];
  for (const r of results) {
    lines.push(
      `| ${r.shape} | ${r.series} × ${r.samples / r.series} | ${fixed(r.oursChunkBytes / r.samples, 3)} | ${fixed(r.promtoolChunkBytes / r.samples, 3)} | ${r.chunksIdentical ? 'yes' : 'NO'} | ${r.oursBlockBytes} | ${r.promtoolBlockBytes} | ${relDiff(r) >= 0 ? '+' : ''}${fixed(relDiff(r) * 100, 3)}% |`,
    );
  }
  return lines.join('\n') + '\n\n';
}

export function speedTable(results: readonly SpeedResult[]): string {
  const lines = [
    `## Append and iterate cost (target: append ≥ ${APPEND_TARGET_PER_SECOND / 1e6}M samples/s on one core)`,
    '',
    '| benchmark | samples | ns/sample | samples/s | CPU ns/sample | samples/CPU-s |',
    '|---|---|---|---|---|---|',
  ];
  for (const r of results) {
    lines.push(
      `| ${r.name} | ${r.samples} | ${fixed(r.nsPerSample, 1)} | ${fixed(1e9 / r.nsPerSample / 1e6, 2)}M | ${fixed(r.cpuNsPerSample, 1)} | ${fixed(1e9 / r.cpuNsPerSample / 1e6, 2)}M |`,
    );
  }
  return lines.join('\n') + '\n\n';
}

export function memoryTable(r: MemoryResult): string {
  const verdict = r.bytesPerSeries <= MEMORY_TARGET_BYTES ? 'within' : 'over';
  return [
    `## Head memory per series (target ≤ ${MEMORY_TARGET_BYTES} B including the open chunk)`,
    '',
    '| series | heap + ArrayBuffer delta (MiB) | bytes/series | vs target |',
    '|---|---|---|---|',
    `| ${r.series} | ${fixed(r.heapDeltaBytes / 2 ** 20, 1)} | ${fixed(r.bytesPerSeries, 0)} | ${verdict} (${fixed((r.bytesPerSeries / MEMORY_TARGET_BYTES) * 100, 0)}%) |`,
    '',
    '',
  ].join('\n');
}
