/**
 * The simulated cluster: nodes (a disk plus the current process incarnation) and their
 * lifecycle operations, used by the fault schedule and by tests. It must never reach into a
 * process's memory: processes are opaque `SimProcess` objects built by factories from an Env.
 */
export { SimCluster, SimNode, type NodeState, type SimClusterDeps } from './sim_cluster.js';
export type { SimProcess, SimProcessFactory } from './sim_process.js';
