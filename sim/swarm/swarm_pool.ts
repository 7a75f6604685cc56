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
 * `count` lanes, each backed by its own worker process running `modulePath`. A worker that
 * dies mid-run fails that run (with the reason) and is replaced for the next one.
 */
export function workerLanes(
  count: number,
  modulePath: string = swarmWorkerModule(),
): { lanes: SwarmLane[]; close(): void } {
  const workers: HostWorker[] = Array.from({ length: count }, () => forkHostWorker(modulePath));
  const lanes = workers.map((_, i): SwarmLane => async (job: SwarmJob) => {
    try {
      return (await workers[i]!.request(job)) as SwarmRunResult;
    } catch (err) {
      workers[i]!.close();
      workers[i] = forkHostWorker(modulePath);
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
