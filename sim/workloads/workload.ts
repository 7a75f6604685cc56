import type { SimCluster, SimProcessFactory } from '../cluster/index.js';
import type { SimKernel } from '../kernel/index.js';
import type { RandomStream } from '../../src/runtime/index.js';
import type { SimServices } from '../runtime/index.js';

export interface CheckSpec {
  name: string;
  options: Readonly<Record<string, unknown>>;
}

export interface CheckResult {
  name: string;
  verdict: 'pass' | 'fail';
  detail: string;
}

/** A node lifecycle event of the resolved fault schedule (explicit or random). */
export interface NodeLifecycleEvent {
  /** Absolute virtual time. */
  at: number;
  node: string;
  kind: 'crash' | 'power_loss' | 'restart' | 'stop' | 'start';
}

/**
 * A fault of the resolved schedule, as workloads see it: its kind (`partition`, `heal`,
 * `crash`, …) and the nodes or services it names (none for `heal`).
 */
export interface ScheduledFaultEvent {
  /** Absolute virtual time. */
  at: number;
  kind: string;
  names: readonly string[];
}

/** What a workload sees of the simulation it runs in. */
export interface WorkloadContext {
  kernel: SimKernel;
  cluster: SimCluster;
  services: SimServices;
  /** Absolute virtual times (ms since the Unix epoch). */
  epochMs: number;
  endMs: number;
  /** When the last scheduled fault event (heal, restart, …) happens; liveness is judged after it. */
  quietAtMs: number;
  /**
   * The schedule's crashes, power losses, restarts, stops and starts, in time order: known
   * before the run, like the schedule itself (a reference model may depend on them).
   */
  nodeEvents: readonly NodeLifecycleEvent[];
  /** Every fault of the resolved schedule, in time order (partitions and heals included). */
  faultEvents: readonly ScheduledFaultEvent[];
  /** The `workload` stream, for workload decisions drawn at random (which tenant, which query). */
  random: RandomStream;
  /** Node names by the role they run. */
  nodesByRole: ReadonlyMap<string, readonly string[]>;
}

/** A workload in progress: the processes it puts on nodes and the checks it can judge. */
export interface WorkloadRun {
  /** The process factory for nodes running `role`. */
  factoryFor(role: string): SimProcessFactory;
  /** Judges one check after the run (reads disks, ledgers; never runs simulated code). */
  check(spec: CheckSpec): CheckResult;
  /** One line for the report, e.g. `sent 400, acked 400`. */
  summary(): string;
}

/**
 * A kind of workload (`pingpong`, later the Strata cluster workloads): the roles nodes can
 * run, the checks it knows, and how to read its scenario section.
 */
export interface WorkloadDefinition<C = unknown> {
  readonly kind: string;
  readonly roles: readonly string[];
  readonly checks: readonly string[];
  /** Validates the scenario's `workload` section (without `kind`); errors name the key path. */
  parseConfig(raw: Readonly<Record<string, unknown>>, where: string): C;
  /** Validates which nodes run which role (e.g. exactly one sender). */
  validateTopology(nodesByRole: ReadonlyMap<string, readonly string[]>, where: string): void;
  /** Human-readable lines for the printed plan. */
  describe(config: C): string[];
  start(config: C, ctx: WorkloadContext): WorkloadRun;
}
