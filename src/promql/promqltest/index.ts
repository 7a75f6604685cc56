/**
 * The PromQL conformance runner: reads Prometheus's own test-script language
 * (promql/promqltest — `load`, `clear`, `eval` with its `expect` lines and the older
 * `eval_fail`/`eval_ordered`/`eval_warn`/`eval_info` forms), loads the series into a
 * MemoryStorage and checks any PromQLEngine against the expected results exactly as
 * Prometheus's test.go does, reporting each case as passed, failed or skipped with a reason.
 *
 * It must never skip a float-sample case: skips are only for native histograms and for
 * features Prometheus gates behind a flag, and always carry the reason. It reads no files
 * itself; callers hand it script text.
 */
export { DEFAULT_EPSILON } from './compare.js';
export { parseKnownFailures, type KnownFailure } from './known_failures.js';
export { runScript, type CaseResult, type CaseStatus, type ConformanceDeps } from './runner.js';
export { parseScript } from './script_parser.js';
export { ScriptError, type ScriptCommand, type EvalCmd, type LoadCmd } from './script_types.js';
export { parseSeriesDesc, STALE_NAN, type SequenceValue } from './series_desc.js';
export { summarize, type ConformanceSummary } from './summary.js';
export {
  CONFORMANCE_ENGINE_OPTIONS,
  CONFORMANCE_ENGINES,
  conformanceParse,
  isConformanceEngineName,
  type ConformanceEngineName,
  type EngineFactory,
  type EngineFactoryDeps,
} from './engines.js';
