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
  /**
   * Evidence of each violation a failing check found (optional: a check that cannot say when
   * or where leaves it out, and the report falls back to check order).
   */
  violations?: Violation[];
}

/**
 * Something that happened in a run, as reports draw it: a fault, a push answered, a block cut
 * or uploaded. `node` is the node (or service) it happened on, `-` for the whole cluster.
 */
export interface RunEvent {
  /** Absolute virtual time. */
  at: number;
  node: string;
  /** E.g. `crash`, `partition`, `push.acked`, `push.refused`, `block.cut`, `block.uploaded`. */
  kind: string;
  detail: string;
  /** For events that last (a partition until its heal): when it ended (absolute). */
  until?: number;
}

/** A sample a violation is about (tenant, series key, sample timestamp). */
export interface SampleRef {
  tenant: string;
  series: string;
  timestamp: number;
}

/** What a check knows about one violation: when it showed, and the data and events involved. */
export interface Violation {
  /** The failure as the check's detail states it. */
  message: string;
  /**
   * When the violation became observable (absolute virtual time): the read that missed a
   * sample, the answer that acknowledged a refused one, the deadline that passed. Undefined
   * when the check judges the end state only.
   */
  observedAt?: number;
  /** Events of the violated data (the push attempts that carried a lost sample, …), in time order. */
  events: RunEvent[];
  /** Nodes whose faults can explain it; undefined when any node's can (e.g. the ring decides). */
  nodes?: readonly string[];
  samples?: SampleRef[];
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
  /**
   * What the workload saw happen, for the HTML report's timeline (pushes answered, blocks cut
   * and uploaded); faults come from the schedule. Called once, after the checks.
   */
  timeline?(): RunEvent[];
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
