/**
 * The simulator's speed (`strata bench --only=sim`): built-in scenarios run in this process,
 * each a few times with its default seed, reporting kernel events per wall second and the
 * virtual/wall time ratio. The wall time is the kernel's (loading the scenario and judging the
 * checks are not in it), the same figure as `wall_ms` in a `strata sim` report. Every run must
 * pass its checks and all runs of one scenario must leave the same trace hash: a fast but
 * nondeterministic simulator is worthless.
 */
import { loadScenario, runScenario, type SimReport } from '../sim/index.js';

/** Issue 12 targets for `ingester-crash-1k` on one core. */
export const SIM_TARGET_RATIO = 1_000;
export const SIM_TARGET_EVENTS_PER_S = 100_000;
/** The scenario the targets apply to. */
export const SIM_TARGET_SCENARIO = 'ingester-crash-1k';

export const SIM_BENCH_SCENARIOS = ['pingpong', 'ingester-crash', SIM_TARGET_SCENARIO] as const;

export interface SimBenchOptions {
  /** Built-in scenario names. */
  scenarios: readonly string[];
  /** Timed runs per scenario (after one untimed warm-up run when `warmup`). */
  runs: number;
  warmup: boolean;
  progress?: (line: string) => void;
}

export interface SimBenchResult {
  scenario: string;
  seed: number;
  events: number;
  virtualMs: number;
  /** Kernel wall time of every timed run, ms. */
  wallMs: number[];
  /**
   * Process CPU time (user + system) of every timed run, ms: the whole run including setup
   * and judging the checks. Steadier than wall time on a shared machine.
   */
  cpuMs: number[];
  /** The fastest run's figures. */
  bestEventsPerS: number;
  bestRatio: number;
  medianEventsPerS: number;
  medianRatio: number;
  traceHash: string;
  /** Every run passed its checks and left the same trace hash. */
  ok: boolean;
  problems: string[];
}

export async function runSimBench(opts: SimBenchOptions): Promise<SimBenchResult[]> {
  const results: SimBenchResult[] = [];
  for (const name of opts.scenarios) {
    const scenario = await loadScenario(name);
    const commit = (): string => 'bench';
    const reports: SimReport[] = [];
    if (opts.warmup) {
      opts.progress?.(`sim: ${name} warm-up`);
      reports.push(await runScenario(scenario, scenario.seed, { commit }));
    }
    const timed: SimReport[] = [];
    const cpuMs: number[] = [];
    for (let i = 0; i < opts.runs; i++) {
      const before = process.cpuUsage();
      const r = await runScenario(scenario, scenario.seed, { commit });
      const cpu = process.cpuUsage(before);
      cpuMs.push((cpu.user + cpu.system) / 1000);
      opts.progress?.(
        `sim: ${name} run ${i + 1}/${opts.runs}: ${r.events} events in ${r.wall_ms}ms (x${r.virtual_wall_ratio}, ${r.events_per_s} events/s), ${Math.round(cpuMs[i] as number)}ms CPU`,
      );
      timed.push(r);
    }
    reports.push(...timed);
    results.push({ ...summarise(name, scenario.seed, reports, timed), cpuMs });
  }
  return results;
}

function summarise(
  name: string,
  seed: number,
  all: readonly SimReport[],
  timed: readonly SimReport[],
): Omit<SimBenchResult, 'cpuMs'> {
  const first = all[0] as SimReport;
  const problems: string[] = [];
  for (const r of all) {
    for (const c of r.checks) {
      if (c.verdict !== 'pass') problems.push(`check ${c.name} failed: ${c.detail}`);
    }
    if (r.trace_hash !== first.trace_hash)
      problems.push(`trace hash ${r.trace_hash} differs from ${first.trace_hash}`);
  }
  const walls = timed.map((r) => r.wall_ms);
  const best = Math.min(...walls);
  const median = medianOf(walls);
  return {
    scenario: name,
    seed,
    events: first.events,
    virtualMs: first.virtual_ms,
    wallMs: walls,
    bestEventsPerS: perSecond(first.events, best),
    bestRatio: first.virtual_ms / Math.max(best, 0.1),
    medianEventsPerS: perSecond(first.events, median),
    medianRatio: first.virtual_ms / Math.max(median, 0.1),
    traceHash: first.trace_hash,
    ok: problems.length === 0,
    problems: [...new Set(problems)],
  };
}

function perSecond(events: number, wallMs: number): number {
  return (events * 1000) / Math.max(wallMs, 0.1);
}

function medianOf(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1
    ? (s[mid] as number)
    : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
}

export function simBenchFailed(results: readonly SimBenchResult[]): boolean {
  return results.some((r) => !r.ok);
}

export function simTable(results: readonly SimBenchResult[], opts: SimBenchOptions): string {
  const lines = [
    `## Simulator speed (kernel wall time, ${opts.runs} timed run(s) per scenario${opts.warmup ? ' after a warm-up' : ''}, default seed)`,
    '',
    '| scenario | seed | events | virtual | wall ms (best / median) | events/s (best / median) | virtual/wall (best / median) | CPU ms per run (best / median) | deterministic, checks pass |',
    '|---|---|---|---|---|---|---|---|---|',
  ];
  for (const r of results) {
    lines.push(
      `| ${r.scenario} | ${r.seed} | ${r.events} | ${(r.virtualMs / 1000).toFixed(0)}s | ${Math.min(...r.wallMs).toFixed(0)} / ${medianOf(r.wallMs).toFixed(0)} | ${r.bestEventsPerS.toFixed(0)} / ${r.medianEventsPerS.toFixed(0)} | ${r.bestRatio.toFixed(1)}× / ${r.medianRatio.toFixed(1)}× | ${Math.min(...r.cpuMs).toFixed(0)} / ${medianOf(r.cpuMs).toFixed(0)} | ${r.ok ? 'yes' : `NO: ${r.problems.join('; ')}`} |`,
    );
  }
  const target = results.find((r) => r.scenario === SIM_TARGET_SCENARIO);
  if (target !== undefined) {
    const ratioMet = target.medianRatio >= SIM_TARGET_RATIO;
    const rateMet = target.medianEventsPerS >= SIM_TARGET_EVENTS_PER_S;
    lines.push(
      '',
      `| target (${SIM_TARGET_SCENARIO}, median run) | wanted | measured | |`,
      '|---|---|---|---|',
      `| virtual/wall | ≥ ${SIM_TARGET_RATIO}× | ${target.medianRatio.toFixed(1)}× | ${ratioMet ? 'met' : 'MISSED'} |`,
      `| events/s | ≥ ${SIM_TARGET_EVENTS_PER_S} | ${target.medianEventsPerS.toFixed(0)} | ${rateMet ? 'met' : 'MISSED'} |`,
    );
  }
  return lines.join('\n') + '\n\n';
}
