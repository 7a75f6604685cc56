// Remote-write throughput, latency and memory of Strata's single binary next to Prometheus's
// remote-write receiver (issue 5, part 8). For each scale (active series) the same pre-built
// requests go to a fresh process of each system: first one round that creates every series,
// then steady-state rounds (one new sample per series each) for at most a fixed time. The
// target's CPU time and resident memory come from /proc, so per-core figures and memory per
// series describe the system under test, not this generator.
import { RemoteWriteLoad, SCRAPE_INTERVAL_MS, type Round } from './remote_write_gen.js';
import { pushRounds, quantile } from './remote_write_load.js';
import {
  ProcReader,
  startTarget,
  type StrataTargetOptions,
  type SystemName,
} from './remote_write_targets.js';

export interface RemoteWriteOptions {
  /** Active-series counts, one scale each (e.g. 100k and 1M). */
  readonly scales: readonly number[];
  /** Concurrent keep-alive HTTP clients. */
  readonly clients: number;
  /** Time limit of each steady-state phase, seconds. */
  readonly maxSeconds: number;
  /** Samples pre-built for each steady-state phase (whole rounds, at least one). */
  readonly steadySamples: number;
  readonly systems: readonly SystemName[];
  readonly strata: StrataTargetOptions;
  /** Progress lines (building rounds, starting processes). */
  readonly progress: (line: string) => void;
}

export type PhaseName = 'create' | 'steady';

export interface PhaseResult {
  readonly system: SystemName;
  readonly series: number;
  readonly phase: PhaseName;
  readonly samples: number;
  readonly requests: number;
  readonly errors: number;
  readonly firstError: string;
  readonly wallSeconds: number;
  /** The target's utime + stime over the phase. */
  readonly cpuSeconds: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** VmRSS at the end of the phase. */
  readonly rssBytes: number;
  /** VmRSS of the idle process right after it became ready. */
  readonly idleRssBytes: number;
  readonly timedOut: boolean;
}

/** Issue 5 target: samples per second per CPU core of the target process. */
export const RW_PER_CORE_TARGET = 300_000;
/** Issue 3's memory target, here for resident memory growth per active series. */
export const RW_MEMORY_TARGET_BYTES = 3 * 1024;
/** The creation round is never cut short; this only bounds a hung target. */
const CREATE_TIMEOUT_SECONDS = 600;

/** Steady-state rounds for a scale: enough for `steadySamples`, at least one. */
export function steadyRounds(series: number, steadySamples: number): number {
  return Math.max(1, Math.ceil(steadySamples / series));
}

export async function runRemoteWriteBench(opts: RemoteWriteOptions): Promise<PhaseResult[]> {
  const results: PhaseResult[] = [];
  for (const series of opts.scales) {
    const rounds = steadyRounds(series, opts.steadySamples);
    // The newest scrape is at most one interval old, so every system takes every sample.
    const startMs = Math.floor(Date.now() / SCRAPE_INTERVAL_MS - rounds - 1) * SCRAPE_INTERVAL_MS;
    opts.progress(`remote-write: building 1 + ${rounds} rounds of ${series} series`);
    const load = new RemoteWriteLoad(series, startMs);
    const create = load.buildRound(0);
    const steady: Round[] = [];
    for (let r = 1; r <= rounds; r++) steady.push(load.buildRound(r));
    for (const system of opts.systems) {
      opts.progress(`remote-write: ${system}, ${series} series`);
      results.push(...(await runOne(system, series, create, steady, opts)));
    }
  }
  return results;
}

async function runOne(
  system: SystemName,
  series: number,
  create: Round,
  steady: readonly Round[],
  opts: RemoteWriteOptions,
): Promise<PhaseResult[]> {
  const target = await startTarget(system, opts.strata);
  try {
    const proc = new ProcReader(target.pid);
    const idle = proc.sample();
    const phase = async (
      name: PhaseName,
      rounds: readonly Round[],
      maxSeconds: number,
    ): Promise<PhaseResult> => {
      const before = proc.sample();
      const stats = await pushRounds(target.pushUrl, rounds, opts.clients, maxSeconds);
      const after = proc.sample();
      return {
        system,
        series,
        phase: name,
        samples: stats.samples,
        requests: stats.requests,
        errors: stats.errors,
        firstError: stats.firstError,
        wallSeconds: stats.wallSeconds,
        cpuSeconds: after.cpuSeconds - before.cpuSeconds,
        p50Ms: quantile(stats.latenciesMs, 0.5),
        p99Ms: quantile(stats.latenciesMs, 0.99),
        rssBytes: after.rssBytes,
        idleRssBytes: idle.rssBytes,
        timedOut: stats.timedOut,
      };
    };
    const created = await phase('create', [create], CREATE_TIMEOUT_SECONDS);
    const steadyResult = await phase('steady', steady, opts.maxSeconds);
    return [created, steadyResult];
  } finally {
    const exit = await target.stop();
    if (exit !== 0 && exit !== 'SIGTERM') {
      opts.progress(`remote-write: ${system} exited with ${exit}:\n${target.output()}`);
    }
  }
}

/** Samples per CPU-second of the target (Infinity when the phase took no measurable CPU). */
export function perCore(r: PhaseResult): number {
  return r.samples / r.cpuSeconds;
}

/** Resident memory growth over the idle process, per active series. */
export function rssPerSeries(r: PhaseResult): number {
  return (r.rssBytes - r.idleRssBytes) / r.series;
}

function k(n: number): string {
  return n >= 1e6 ? `${(n / 1e6).toFixed(2)}M` : `${(n / 1e3).toFixed(1)}k`;
}

function mib(bytes: number): string {
  return (bytes / 2 ** 20).toFixed(1);
}

function scaleName(series: number): string {
  return series >= 1e6 && series % 1e6 === 0
    ? `${series / 1e6}M`
    : series >= 1e3 && series % 1e3 === 0
      ? `${series / 1e3}k`
      : String(series);
}

export function remoteWriteTable(
  results: readonly PhaseResult[],
  opts: RemoteWriteOptions,
): string {
  const lines = [
    `## Remote write: Strata single binary vs Prometheus 2.42 receiver (${opts.clients} clients, 1,000 series × 10 labels per request)`,
    '',
    '| system | active series | phase | samples | wall s | samples/s | CPU s | samples/s per core | p50 push ms | p99 push ms | RSS MiB | RSS growth B/series | errors |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const r of results) {
    lines.push(
      `| ${r.system} | ${r.series} | ${r.phase}${r.timedOut ? ' (time limit)' : ''} | ${r.samples} | ${r.wallSeconds.toFixed(2)} | ${k(r.samples / r.wallSeconds)} | ${r.cpuSeconds.toFixed(2)} | ${k(perCore(r))} | ${r.p50Ms.toFixed(1)} | ${r.p99Ms.toFixed(1)} | ${mib(r.rssBytes)} | ${rssPerSeries(r).toFixed(0)} | ${r.errors === 0 ? '0' : `${r.errors}: ${r.firstError.replaceAll('|', '/')}`} |`,
    );
  }
  lines.push('', ...verdictTable(results), '', '');
  return lines.join('\n');
}

function verdictTable(results: readonly PhaseResult[]): string[] {
  const steady = (system: SystemName, series: number): PhaseResult | undefined =>
    results.find((r) => r.system === system && r.series === series && r.phase === 'steady');
  const scales = [...new Set(results.map((r) => r.series))];
  const lines = [
    `| target (steady state) | ${scales.map(scaleName).join(' | ')} |`,
    `|---|${scales.map(() => '---').join('|')}|`,
  ];
  const row = (
    name: string,
    cell: (s: PhaseResult, p: PhaseResult | undefined) => string,
  ): void => {
    lines.push(
      `| ${name} | ${scales
        .map((n) => {
          const s = steady('strata', n);
          return s === undefined ? 'not run' : cell(s, steady('prometheus', n));
        })
        .join(' | ')} |`,
    );
  };
  const pass = (ok: boolean, errors: number): string =>
    errors > 0 ? 'FAIL (push errors)' : ok ? 'pass' : 'FAIL';
  row(`Strata ≥ ${k(RW_PER_CORE_TARGET)} samples/s per core`, (s) => {
    const v = perCore(s);
    return `${pass(v >= RW_PER_CORE_TARGET, s.errors)} (${k(v)})`;
  });
  row('Strata per core ≥ Prometheus per core', (s, p) => {
    if (p === undefined) return 'Prometheus not run';
    const ratio = perCore(s) / perCore(p);
    return `${pass(ratio >= 1, s.errors + p.errors)} (${ratio.toFixed(2)}×: ${k(perCore(s))} vs ${k(perCore(p))})`;
  });
  row(`Strata RSS growth ≤ ${RW_MEMORY_TARGET_BYTES} B per active series`, (s) => {
    const v = rssPerSeries(s);
    return `${pass(v <= RW_MEMORY_TARGET_BYTES, s.errors)} (${v.toFixed(0)} B)`;
  });
  return lines;
}

/** Whether any push failed (a correctness problem, unlike a missed performance target). */
export function remoteWriteFailed(results: readonly PhaseResult[]): boolean {
  return results.some((r) => r.errors > 0);
}
