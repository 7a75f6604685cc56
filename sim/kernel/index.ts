/**
 * The simulation kernel: virtual time, the event queue, incarnations (process lives whose
 * events die with them), the trace hash, and the guard that makes nondeterministic globals
 * throw inside a run. This directory is the only part of `sim/` allowed to touch the real
 * event loop, the wall clock and the host (files, git); it must never contain simulated
 * component behaviour.
 */
export { EventQueue, type QueuedEvent } from './event_queue.js';
export { Incarnation } from './incarnation.js';
export {
  SimKernel,
  type RunOptions,
  type RunResult,
  type ScheduleOptions,
  type ScheduledEvent,
  type SimKernelConfig,
  type SimulationErrorRecord,
  type StopReason,
} from './kernel.js';
export {
  installGlobalsGuard,
  isGuardInstalled,
  nondeterministicGlobalError,
  type GlobalsGuard,
} from './nondeterminism_guard.js';
export { TraceRecorder, type TraceEvent, type TraceEventSink } from './trace.js';
export {
  forkHostWorker,
  hostCpuCount,
  serveHostWorkerRequests,
  type HostWorker,
} from './host_workers.js';
export {
  builtinScenarioDir,
  builtinScenarioPath,
  hostFileExists,
  hostGitCommit,
  hostNodeVersion,
  hostWallClockMs,
  listBuiltinScenarios,
  readHostTextFile,
} from './host.js';
