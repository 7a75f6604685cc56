export {
  CANARIES,
  CANARY_ENV,
  DEFAULT_SUITE,
  NO_CANARY,
  canariesFromEnv,
  findCanary,
  type Canary,
} from './registry.js';
export {
  brokenScenarioText,
  runCanaryCase,
  type CanaryCase,
  type CanaryOutcome,
} from './run_case.js';
export { runCanarySweep, sweepCases, type CanarySweep, type SweepOptions } from './runner.js';
export {
  baselineFailures,
  buildCanaryTable,
  formatCanaryExamples,
  formatCanaryMarkdown,
  uncaughtCanaries,
  type CanaryTable,
} from './table.js';
