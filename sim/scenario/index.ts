/**
 * Scenarios: parsing scenario files, resolving the fault plan for a seed, running a scenario
 * on a simulated cluster and reporting (the `strata sim` command). It must never let
 * anything but the seed and the scenario decide what happens in a run: wall time, the commit
 * and the host only appear in the report, never in the trace.
 */
export { applyFault } from './apply_fault.js';
export {
  describeFaultAction,
  generateRandomFaults,
  resolveFaultPlan,
  type FaultPlan,
} from './fault_plan.js';
export {
  firstFailure,
  formatFirstFailure,
  type FailureWindowInput,
  type FirstFailure,
  type WindowEvent,
} from './failure_window.js';
export { faultTimeline } from './fault_timeline.js';
export { formatPlan } from './format_plan.js';
export { renderHtmlReport, writeHtmlReport } from './html_report.js';
export { loadScenario } from './load_scenario.js';
export { BUILTIN_CHECKS, DEFAULT_EPOCH_MS, parseScenario } from './parse_scenario.js';
export { reportJsonLine, type SimReport, type SimRunDetails } from './report.js';
export { planScenario, runScenario, type RunScenarioOptions } from './run_scenario.js';
export type {
  CheckResult,
  CheckSpec,
  FaultAction,
  NodeTopology,
  RandomFaultProfile,
  Scenario,
  ScheduledFault,
} from './scenario_types.js';
export { diffTraceLogs, formatTraceDiff, runSimDiff, type TraceDiff } from './sim_diff.js';
export {
  TraceLogCollector,
  TraceLogError,
  formatTraceEvent,
  parseTraceLog,
  traceEventJson,
} from './trace_log.js';
