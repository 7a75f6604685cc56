/**
 * Workloads: what simulated nodes run and how a run is judged. Each workload defines roles
 * (process factories over an Env), its scenario section, and checks that read the
 * acknowledged-write ledger and the nodes' disks after the run. Checks must never run
 * simulated code or change simulation state; processes must only use their Env.
 */
import type { WorkloadDefinition } from './workload.js';
import { pingPongWorkload } from './pingpong/definition.js';
import { strataWorkload } from './strata/definition.js';

export type {
  CheckResult,
  CheckSpec,
  NodeLifecycleEvent,
  RunEvent,
  SampleRef,
  ScheduledFaultEvent,
  Violation,
  WorkloadContext,
  WorkloadDefinition,
  WorkloadRun,
} from './workload.js';
export { Failures } from './violations.js';
export { PINGPONG_BUGS, type PingPongBug, type PingPongConfig } from './pingpong/config.js';
export { pingPongWorkload } from './pingpong/definition.js';
export {
  BROKEN_INGESTER_MODES,
  type BrokenIngesterMode,
  type StrataWorkloadConfig,
} from './strata/config.js';
export { STRATA_CHECKS, strataWorkload } from './strata/definition.js';

const WORKLOADS: ReadonlyMap<string, WorkloadDefinition> = new Map<string, WorkloadDefinition>([
  [pingPongWorkload.kind, pingPongWorkload],
  [strataWorkload.kind, strataWorkload],
]);

export function workloadKinds(): string[] {
  return [...WORKLOADS.keys()];
}

export function findWorkload(kind: string): WorkloadDefinition | undefined {
  return WORKLOADS.get(kind);
}
