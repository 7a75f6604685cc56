import { createSeededRandom } from '../../src/runtime/index.js';
import { SimCluster } from '../cluster/index.js';
import { formatDuration } from '../fields/index.js';
import {
  SimKernel,
  hostGitCommit,
  hostNodeVersion,
  type SimulationErrorRecord,
  type TraceEventSink,
} from '../kernel/index.js';
import { SimServices } from '../runtime/index.js';
import {
  findWorkload,
  type CheckResult,
  type CheckSpec,
  type NodeLifecycleEvent,
  type WorkloadRun,
} from '../workloads/index.js';
import { applyFault } from './apply_fault.js';
import { describeFaultAction, resolveFaultPlan, type FaultPlan } from './fault_plan.js';
import { firstFailure } from './failure_window.js';
import { faultTimeline } from './fault_timeline.js';
import { formatPlan } from './format_plan.js';
import type { SimReport } from './report.js';
import type { FaultAction, Scenario } from './scenario_types.js';

export interface RunScenarioOptions {
  /** Overrides the scenario's duration (the CLI's --duration). */
  durationMs?: number;
  /** Source of the `commit` field; defaults to `git rev-parse HEAD` (kept out of the trace hash). */
  commit?: () => string;
  /** Called with the resolved plan before the run starts (the CLI prints it). */
  onPlan?: (lines: string[]) => void;
  /** Log lines kept in the report (default 200). */
  logTail?: number;
  /** Receives every executed kernel event in order (the CLI's --trace event log). */
  onTraceEvent?: TraceEventSink;
}

/** Resolves the plan of a scenario for a seed without running it. */
export function planScenario(
  scenario: Scenario,
  seed: number,
  durationMs = scenario.durationMs,
): { plan: FaultPlan; lines: string[] } {
  const random = createSeededRandom(String(seed));
  const plan = resolveFaultPlan({ ...scenario, durationMs }, random.stream('faults'));
  return { plan, lines: formatPlan(scenario, seed, durationMs, plan) };
}

/**
 * Runs a scenario with a seed: builds the cluster, starts every node at the epoch, applies
 * the fault schedule, runs the kernel to the end of the duration, then judges every check.
 * Same scenario and seed ⇒ same trace hash and verdicts.
 */
export async function runScenario(
  scenario: Scenario,
  seed: number = scenario.seed,
  opts: RunScenarioOptions = {},
): Promise<SimReport> {
  if (!Number.isSafeInteger(seed) || seed < 0)
    throw new RangeError(`seed must be a non-negative integer, got ${seed}`);
  const durationMs = opts.durationMs ?? scenario.durationMs;
  const random = createSeededRandom(String(seed));
  const kernel = new SimKernel({
    epochMs: scenario.epochMs,
    scheduling: random.stream('scheduling'),
    ...(opts.onTraceEvent === undefined ? {} : { onTraceEvent: opts.onTraceEvent }),
  });
  const services = new SimServices(scenario.runtime, { kernel, random });
  const cluster = new SimCluster({ services });
  const plan = resolveFaultPlan({ ...scenario, durationMs }, random.stream('faults'));
  opts.onPlan?.(formatPlan(scenario, seed, durationMs, plan));

  const workload = findWorkload(scenario.workload.kind);
  if (workload === undefined) throw new Error(`unknown workload ${scenario.workload.kind}`);
  const nodesByRole = new Map<string, string[]>();
  for (const n of scenario.nodes)
    nodesByRole.set(n.run, [...(nodesByRole.get(n.run) ?? []), n.name]);
  const endMs = scenario.epochMs + durationMs;
  const run = workload.start(scenario.workload.config, {
    kernel,
    cluster,
    services,
    epochMs: scenario.epochMs,
    endMs,
    quietAtMs: scenario.epochMs + plan.quietAtMs,
    nodeEvents: nodeEvents(plan, scenario),
    faultEvents: plan.faults.map((f) => ({
      at: scenario.epochMs + f.atMs,
      kind: f.action.kind,
      names: namesOf(f.action),
    })),
    random: random.stream('workload'),
    nodesByRole,
  });
  for (const n of scenario.nodes)
    cluster.addNode(n.name, run.factoryFor(n.run), { skewMs: n.clockSkewMs });

  const atStart = scenario.nodes.filter((n) => n.startAtMs === 0);
  kernel.at(
    scenario.epochMs,
    { kind: 'cluster.start', detail: atStart.map((n) => n.name).join(',') },
    () => {
      for (const n of atStart) cluster.start(n.name);
    },
  );
  // Nodes that join later (scaling out): their first start, like a scheduled `start`.
  for (const n of scenario.nodes.filter((n) => n.startAtMs > 0))
    kernel.at(scenario.epochMs + n.startAtMs, { kind: 'node.first_start', detail: n.name }, () => {
      if (cluster.node(n.name).state === 'down') cluster.start(n.name);
    });
  for (const f of plan.faults) {
    kernel.at(
      scenario.epochMs + f.atMs,
      { kind: `fault.${f.action.kind}`, detail: describeFaultAction(f.action) },
      () => applyFault(f.action, cluster, services),
    );
  }

  let fatal: unknown;
  try {
    await kernel.run({ until: endMs });
  } catch (err) {
    fatal = err;
  }

  const checks = scenario.checks.map((spec) => judge(spec, run, kernel.errors, fatal));
  const faults = faultTimeline(plan, scenario.epochMs, endMs);
  const failure = firstFailure({ checks, faults, epochMs: scenario.epochMs, endMs });
  const passed = checks.every((c) => c.verdict === 'pass');
  const virtualMs = kernel.now() - scenario.epochMs;
  const wallMs = Math.round(kernel.wallMs * 10) / 10;
  const replayDuration =
    opts.durationMs === undefined ? '' : ` --duration ${formatDuration(opts.durationMs)}`;
  return {
    scenario: scenario.name,
    seed,
    commit: (opts.commit ?? hostGitCommit)(),
    node_version: hostNodeVersion(),
    events: kernel.eventsExecuted,
    virtual_ms: virtualMs,
    wall_ms: wallMs,
    virtual_wall_ratio: Math.round((virtualMs / Math.max(wallMs, 0.1)) * 10) / 10,
    events_per_s: Math.round((kernel.eventsExecuted * 1000) / Math.max(wallMs, 0.1)),
    trace_hash: kernel.traceHash(),
    checks,
    passed,
    ...(failure === undefined ? {} : { first_failure: failure }),
    replay: `strata sim ${scenario.source} --seed ${seed}${replayDuration}`,
    details: {
      plan: formatPlan(scenario, seed, durationMs, plan),
      nodes: scenario.nodes.map((n) => ({ name: n.name, role: n.run })),
      epochMs: scenario.epochMs,
      endMs,
      timeline: [...faults, ...(run.timeline?.() ?? [])]
        .map((e, i) => ({ e, i }))
        .sort((a, b) => a.e.at - b.e.at || a.i - b.i)
        .map(({ e }) => e),
      summary: run.summary(),
      eventsDropped: kernel.eventsDropped,
      network: { ...services.network.stats },
      logTail: services.logs.tail(opts.logTail ?? 200),
      traceTail: kernel.traceTail(),
    },
  };
}

/** The plan's node lifecycle events (and late first starts), at absolute times, in time order. */
function nodeEvents(plan: FaultPlan, scenario: Scenario): NodeLifecycleEvent[] {
  const { epochMs } = scenario;
  const out: NodeLifecycleEvent[] = scenario.nodes
    .filter((n) => n.startAtMs > 0)
    .map((n) => ({ at: epochMs + n.startAtMs, node: n.name, kind: 'start' as const }));
  for (const f of plan.faults) {
    const a = f.action;
    switch (a.kind) {
      case 'crash':
      case 'power_loss':
      case 'restart':
      case 'stop':
      case 'start':
        out.push({ at: epochMs + f.atMs, node: a.node, kind: a.kind });
        break;
      default:
        break;
    }
  }
  // Stable: events at the same time keep their order (late starts first).
  return out
    .map((e, i) => ({ e, i }))
    .sort((a, b) => a.e.at - b.e.at || a.i - b.i)
    .map(({ e }) => e);
}

function judge(
  spec: CheckSpec,
  run: WorkloadRun,
  errors: readonly SimulationErrorRecord[],
  fatal: unknown,
): CheckResult {
  if (spec.name === 'no_simulation_errors') return simulationErrorsCheck(errors, fatal);
  try {
    return run.check(spec);
  } catch (err) {
    return {
      name: spec.name,
      verdict: 'fail',
      detail: `check could not be evaluated: ${(err as Error).message}`,
    };
  }
}

/** The nodes and services a fault names. */
function namesOf(a: FaultAction): string[] {
  switch (a.kind) {
    case 'partition':
      return a.groups.flat();
    case 'partition_one_way':
      return [a.from, a.to];
    case 'crash':
    case 'power_loss':
    case 'restart':
    case 'stop':
    case 'start':
    case 'clock_skew':
      return [a.node];
    case 'crash_mid_block_upload':
      return [...a.nodes];
    case 'service_down':
    case 'service_up':
      return [a.service];
    default:
      return [];
  }
}

/** Fails when simulated code threw where nobody could catch it, or the kernel stopped on an error. */
function simulationErrorsCheck(
  errors: readonly SimulationErrorRecord[],
  fatal: unknown,
): CheckResult {
  const lines = errors.slice(0, 5).map((e) => `${e.context} at t=${e.time}: ${e.message}`);
  if (fatal !== undefined)
    lines.unshift(`run aborted: ${fatal instanceof Error ? fatal.message : JSON.stringify(fatal)}`);
  if (lines.length === 0)
    return {
      name: 'no_simulation_errors',
      verdict: 'pass',
      detail: 'no uncaught errors in simulated code',
    };
  const more = errors.length > 5 ? `; … ${errors.length} errors in all` : '';
  // Each error is its own evidence: thrown at a known time, in a context naming the node.
  const violations = errors.map((e) => ({
    message: `${e.context}: ${e.message}`,
    observedAt: e.time,
    events: [{ at: e.time, node: '-', kind: 'error', detail: `${e.context}: ${e.message}` }],
  }));
  return {
    name: 'no_simulation_errors',
    verdict: 'fail',
    detail: lines.join('; ') + more,
    ...(fatal === undefined ? { violations } : {}),
  };
}
