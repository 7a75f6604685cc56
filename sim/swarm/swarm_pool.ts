import { fileURLToPath } from 'node:url';
import { forkHostWorker, type HostWorker } from '../kernel/index.js';
import { formatSwarmProfile, swarmReplayCommand } from './profile.js';
import type { SwarmJob, SwarmRunResult } from './swarm_job.js';
import type { SwarmLane } from './swarm_runner.js';

/** The worker entry point next to this module (built JavaScript). */
export function swarmWorkerModule(): string {
  return fileURLToPath(new URL('./swarm_worker.js', import.meta.url));
}

/**
 * Runs a worker does before it is replaced by a fresh process. A run leaves nothing behind
 * (the heap stays flat from run to run since services stopped leaking their start signals),
 * but a fresh process now and then bounds whatever a future leak would cost; starting one
 * costs about a second, a small share of fifty runs.
 */
export const RUNS_PER_WORKER = 50;

/**
 * `count` lanes, each backed by its own worker process running `modulePath`. A worker that
 * dies mid-run fails that run (with the reason) and is replaced for the next one; every
 * worker is replaced after `runsPerWorker` runs.
 */
export function workerLanes(
  count: number,
  modulePath: string = swarmWorkerModule(),
  runsPerWorker = RUNS_PER_WORKER,
): { lanes: SwarmLane[]; close(): void } {
  const workers: HostWorker[] = Array.from({ length: count }, () => forkHostWorker(modulePath));
  const runs = workers.map(() => 0);
  const lanes = workers.map((_, i): SwarmLane => async (job: SwarmJob) => {
    if (runs[i]! >= runsPerWorker) {
      workers[i]!.close();
      workers[i] = forkHostWorker(modulePath);
      runs[i] = 0;
    }
    runs[i]!++;
    try {
      return (await workers[i]!.request(job)) as SwarmRunResult;
    } catch (err) {
      workers[i]!.close();
      workers[i] = forkHostWorker(modulePath);
      runs[i] = 0;
      return crashedRun(job, (err as Error).message);
    }
  });
  return {
    lanes,
    close() {
      for (const w of workers) w.close();
    },
  };
}

function crashedRun(job: SwarmJob, reason: string): SwarmRunResult {
  const profile = { family: job.family, seed: job.seed };
  return {
    family: job.family,
    seed: job.seed,
    profile: formatSwarmProfile(profile),
    replay: swarmReplayCommand(profile, job.seed),
    passed: false,
    failures: [{ name: 'worker', detail: `the worker running it failed: ${reason}` }],
    events: 0,
    virtualMs: 0,
    wallMs: 0,
    traceHash: '',
  };
}
