// The query benchmark's markdown tables (see query_bench.ts for what is measured): one per
// scale with each query's median latency on both Strata engines and Prometheus 3, the ratios
// and whether the answers are equal, the geometric mean of the ratios; then the stall table.
import { RANGE_STEP_SECONDS, type BenchQuery, type Comparison } from './query_bench_queries.js';

import type { StallResult } from './query_bench_stall.js';

/** The three ways a query is answered, in table order. */
export const ENGINES = ['default', 'vectorised', 'prometheus'] as const;
export type EngineName = (typeof ENGINES)[number];

export interface EngineTiming {
  /** Median of the timed runs, ms; NaN when the query failed. */
  medianMs: number;
  /** The failure (status and start of the body), if the query failed. */
  error: string | undefined;
}

export interface QueryRow {
  query: BenchQuery;
  /** Series and points of Prometheus 3's answer (of Strata's when Prometheus failed). */
  series: number;
  points: number;
  timings: Record<EngineName, EngineTiming>;
  /** Strata's answers against Prometheus 3's; undefined when one of them failed. */
  compared: { default: Comparison | undefined; vectorised: Comparison | undefined };
  /** Nodes the vectorised engine handed to the default engine (its stats), if any. */
  fallbacks: string[];
}

export interface ScaleResult {
  series: number;
  samples: number;
  pushSeconds: number;
  /** Push outcome per system: requests and the first refusal, if any. */
  pushes: { system: string; requests: number; errors: number; firstError: string }[];
  /** Series each system reports after the push (count of everything). */
  seriesSeen: { strata: number; prometheus: number | undefined };
  /** Failed attempts of the series count (shown, never retried away silently). */
  countErrors: string[];
  startMs: number;
  rows: QueryRow[];
}

export interface QueryBenchResult {
  command: string;
  machine: string;
  date: string;
  loadBefore: number[];
  loadAfter: number[];
  prometheusVersion: string;
  runs: number;
  scales: ScaleResult[];
  stall: StallResult | undefined;
  stallSkipped: string | undefined;
}

/** Geometric mean of positive finite numbers; NaN when there are none. */
export function geometricMean(values: readonly number[]): number {
  const ok = values.filter((v) => Number.isFinite(v) && v > 0);
  if (ok.length === 0) return NaN;
  return Math.exp(ok.reduce((a, v) => a + Math.log(v), 0) / ok.length);
}

/** A Strata engine's time over Prometheus 3's for one row (NaN if either failed). */
export function ratio(row: QueryRow, engine: 'default' | 'vectorised'): number {
  return row.timings[engine].medianMs / row.timings.prometheus.medianMs;
}

/** Whether any answer differs or any query failed: the run fails so it is seen. */
export function queryBenchFailed(r: QueryBenchResult): boolean {
  return r.scales.some(
    (s) =>
      s.pushes.some((p) => p.errors > 0) ||
      s.seriesSeen.strata !== s.series ||
      (s.seriesSeen.prometheus !== undefined && s.seriesSeen.prometheus !== s.series) ||
      s.rows.some((row) => !rowEqual(row)),
  );
}

function rowEqual(row: QueryRow): boolean {
  return row.compared.default?.equal === true && row.compared.vectorised?.equal === true;
}

function ms(n: number): string {
  if (!Number.isFinite(n)) return 'failed';
  return n.toFixed(n < 10 ? 1 : 0);
}

function timing(t: EngineTiming): string {
  return t.error === 'not run' ? 'not run' : ms(t.medianMs);
}

function times(n: number): string {
  return Number.isFinite(n) ? `${n.toFixed(2)}×` : '–';
}

function load(l: readonly number[]): string {
  return l.map((x) => x.toFixed(2)).join(' ');
}

function cell(s: string): string {
  return s.replaceAll('|', '\\|').replaceAll('\n', ' ');
}

function verdict(row: QueryRow): string {
  if (rowEqual(row)) {
    const rel = Math.max(
      row.compared.default?.maxRelative ?? 0,
      row.compared.vectorised?.maxRelative ?? 0,
    );
    return rel === 0 ? 'yes' : `yes (max rel. ${rel.toExponential(0)})`;
  }
  const parts: string[] = [];
  for (const engine of ['default', 'vectorised'] as const) {
    const c = row.compared[engine];
    const err = row.timings[engine].error ?? row.timings.prometheus.error;
    if (c === undefined) parts.push(`${engine}: failed: ${err ?? 'no answer'}`);
    else if (!c.equal) parts.push(`${engine}: ${c.reason ?? 'differs'}`);
  }
  return `**NO**: ${cell(parts.join('; ').slice(0, 400))}`;
}

export function scaleTable(r: QueryBenchResult, s: ScaleResult): string {
  const lines = [
    `## Query path vs Prometheus 3: ${s.series} series × ${s.samples / s.series} samples (issue 14)`,
    '',
    `Command: \`${r.command}\`. Machine: ${r.machine}; load average ${load(r.loadBefore)} before, ${load(r.loadAfter)} after; ${r.date}. Prometheus: ${r.prometheusVersion}.`,
    '',
    `${s.series} series (10 labels each), one sample per second for 5 minutes from ${new Date(s.startMs).toISOString()}, pushed as remote-write 1.0 to both systems at once in ${s.pushSeconds.toFixed(1)} s (${s.pushes.map((p) => `${p.system}: ${p.requests} requests, ${p.errors} refused${p.firstError === '' ? '' : ` (${cell(p.firstError.slice(0, 200))})`}`).join('; ')}); series seen: Strata ${s.seriesSeen.strata}, Prometheus ${s.seriesSeen.prometheus ?? 'not run'}${s.countErrors.length === 0 ? '' : ` (failed counts: ${cell(s.countErrors.join('; ').slice(0, 600))})`}. Range queries over the 5 minutes at step ${RANGE_STEP_SECONDS}s, instant queries at the end; median of ${r.runs} runs after a warm-up (engines in turn, the order rotating each round), wall time of the HTTP request including the body.`,
    '',
    '| query | type | expression | series × points | Strata default ms | Strata vectorised ms | Prometheus 3 ms | default / P3 | vectorised / P3 | answers equal? |',
    '|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const row of s.rows) {
    const t = row.timings;
    lines.push(
      `| ${row.query.name} | ${row.query.kind} | \`${cell(row.query.expr)}\` | ${row.series} × ${row.points} | ${timing(t.default)} | ${timing(t.vectorised)} | ${timing(t.prometheus)} | ${times(ratio(row, 'default'))} | ${times(ratio(row, 'vectorised'))} | ${verdict(row)} |`,
    );
  }
  const equal = s.rows.filter(rowEqual).length;
  lines.push(
    `| **geometric mean** | | | | | | | **${times(geometricMean(s.rows.map((row) => ratio(row, 'default'))))}** | **${times(geometricMean(s.rows.map((row) => ratio(row, 'vectorised'))))}** | ${equal} of ${s.rows.length} equal |`,
  );
  const fallbacks = s.rows.filter((row) => row.fallbacks.length > 0);
  if (fallbacks.length > 0) {
    lines.push(
      '',
      `Vectorised engine fallbacks (nodes evaluated by the default engine): ${fallbacks.map((row) => `${row.query.name}: ${row.fallbacks.join(', ')}`).join('; ')}.`,
    );
  }
  lines.push('', '');
  return lines.join('\n');
}

function latencies(p: StallResult['quiet']): string {
  return `${p.requests} | ${p.errors} | ${ms(p.p50Ms)} | ${ms(p.p99Ms)} | ${ms(p.maxMs)} | ${p.heartbeats} | ${(p.maxHeartbeatGapMs / 1000).toFixed(1)} | ${p.missedHeartbeats}`;
}

/** The first refused push of each phase, as lines under the stall table. */
function refusals(st: StallResult): string[] {
  const phases = [
    ['no query', st.quiet],
    ['heavy query running', st.loaded],
  ] as const;
  return phases
    .filter(([, p]) => p.firstError !== '')
    .flatMap(([name, p]) => [
      '',
      `First refused push (${name}): ${cell(p.firstError.slice(0, 300))}.`,
    ]);
}

export function stallTable(st: StallResult): string {
  return [
    `## Query path: pushes and heartbeats while a heavy query runs (Strata single binary, ${st.series} series)`,
    '',
    `${st.clients} clients push ${st.seriesPerRequest}-series requests of fresh samples back to back for ${st.seconds} s without a query, split around ${st.seconds} s while the heavy query runs back to back (${st.seconds / 2} s quiet, the loaded phase, ${st.seconds / 2} s quiet again: what drifts over the run weighs on both phases alike). Heavy query (range, step ${st.heavy.stepSeconds}s): \`${cell(st.heavy.expr)}\`, ${st.heavy.totalQueryableSamples} samples (stats=all totalQueryableSamples); ${st.heavy.runs} runs during the phase, latency median ${ms(st.heavy.medianMs)} ms, max ${ms(st.heavy.maxMs)} ms, statuses ${st.heavy.statuses}${st.heavy.firstError === '' ? '' : ` (${cell(st.heavy.firstError.slice(0, 200))})`}. Heartbeats: \`${st.heartbeatMetric}\` on /metrics polled every ${st.pollMs} ms; period ${st.heartbeatPeriodMs / 1000}s, missed = a gap longer than the period + 1 s.`,
    '',
    '| phase | pushes | refused | p50 ms | p99 ms | max ms | heartbeats seen | largest heartbeat gap s | missed |',
    '|---|---|---|---|---|---|---|---|---|',
    `| no query | ${latencies(st.quiet)} |`,
    `| heavy query running | ${latencies(st.loaded)} |`,
    `| **p99 ratio (loaded / quiet)** | | | | **${times(st.loaded.p99Ms / st.quiet.p99Ms)}** | | | | |`,
    ...refusals(st),
    '',
    '',
  ].join('\n');
}
