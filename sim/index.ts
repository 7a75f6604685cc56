/**
 * Strata's deterministic simulator: a discrete-event kernel with virtual time, a simulated
 * implementation of every runtime interface (disk, network, object store, KV, cache, clock),
 * a cluster of nodes that crash, lose power and restart, fault schedules, workloads with
 * their checkers, and the `strata sim` command. The same seed always replays the same run.
 * Nothing here may read the wall clock, real timers, real randomness or do real IO, except
 * the kernel (`kernel/`), which alone drives the event loop and talks to the host.
 */
export {
  loadScenario,
  parseScenario,
  planScenario,
  reportJsonLine,
  runScenario,
  type CheckResult,
  type FaultAction,
  type RunScenarioOptions,
  type Scenario,
  type SimReport,
  type SimRunDetails,
} from './scenario/index.js';
export { runSimCommand, type SimCommandDeps, type SimCommandIO } from './cli/index.js';
export { SimCluster, SimNode, type SimProcess, type SimProcessFactory } from './cluster/index.js';
export { Incarnation, SimKernel, type RunOptions, type RunResult } from './kernel/index.js';
export {
  SimServices,
  createSimNodeEnv,
  defaultSimRuntimeConfig,
  type SimRuntimeConfig,
} from './runtime/index.js';
export { findWorkload, workloadKinds, type WorkloadDefinition } from './workloads/index.js';
