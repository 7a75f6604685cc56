import type { SimNodeEnv } from '../runtime/index.js';

/**
 * What a simulated node runs: one process (a Strata target, or a workload role). The cluster
 * builds a new one through the factory for every incarnation, so nothing survives a crash but
 * the node's disk.
 */
export interface SimProcess {
  /** Starts the process; `signal` aborts when a graceful stop begins. */
  start(signal: AbortSignal): Promise<void>;
  /** Graceful shutdown (never called on a crash). */
  stop(): Promise<void>;
}

/** Builds a process from its incarnation's Env (a factory taking a plain `Env` fits too). */
export type SimProcessFactory = (env: SimNodeEnv) => SimProcess;
