import type { CheckResult, RunEvent } from '../workloads/index.js';
import type { FirstFailure } from './failure_window.js';

/** The machine-readable result of one run (printed as the last line by `strata sim`). */
export interface SimReport {
  scenario: string;
  seed: number;
  commit: string;
  node_version: string;
  /** Kernel events executed. */
  events: number;
  virtual_ms: number;
  wall_ms: number;
  virtual_wall_ratio: number;
  /** Kernel events executed per wall-clock second (the simulator's throughput). */
  events_per_s: number;
  trace_hash: string;
  checks: CheckResult[];
  passed: boolean;
  /** On failure: the first violated check and the window of events that shows it. */
  first_failure?: FirstFailure;
  /** The command that replays this run exactly. */
  replay: string;
  /** Everything else a human wants after a run; not part of the JSON line. */
  details: SimRunDetails;
}

export interface SimRunDetails {
  plan: string[];
  /** The scenario's nodes and the role each runs, in topology order (the HTML report's lanes). */
  nodes: { name: string; role: string }[];
  /** Absolute virtual times of the run's start (the scenario epoch) and end. */
  epochMs: number;
  endMs: number;
  /** The schedule's faults and what the workload saw happen, in time order (absolute times). */
  timeline: RunEvent[];
  /** The workload's one-line summary (e.g. messages sent and acked). */
  summary: string;
  eventsDropped: number;
  network: { sent: number; lost: number; duplicated: number; blocked: number };
  /** Last captured log lines of every node (kept for failure reports). */
  logTail: string[];
  /** Last executed events. */
  traceTail: string[];
}

/** The report as one JSON line, fields in the documented order. */
export function reportJsonLine(r: SimReport): string {
  return JSON.stringify({
    scenario: r.scenario,
    seed: r.seed,
    commit: r.commit,
    node_version: r.node_version,
    events: r.events,
    virtual_ms: r.virtual_ms,
    wall_ms: r.wall_ms,
    virtual_wall_ratio: r.virtual_wall_ratio,
    events_per_s: r.events_per_s,
    trace_hash: r.trace_hash,
    checks: r.checks.map((c) => ({ name: c.name, verdict: c.verdict, detail: c.detail })),
    passed: r.passed,
    ...(r.first_failure === undefined ? {} : { first_failure: r.first_failure }),
    replay: r.replay,
  });
}
