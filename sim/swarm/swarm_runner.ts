import { defaultSwarmFamilies, findSwarmFamily } from './profile.js';
import type { SwarmJob, SwarmRunResult } from './swarm_job.js';

/** Runs one job somewhere (this process, or a worker process) and answers its result. */
export type SwarmLane = (job: SwarmJob) => Promise<SwarmRunResult>;

export interface SwarmPlan {
  /** Number of runs. */
  runs: number;
  /** Seed of the first run; run i has seed firstSeed + i. */
  firstSeed: number;
  /** One family for every run; without it runs cycle through the default families by seed. */
  family?: string;
  /** Directory for the HTML pages of failed runs. */
  htmlDir?: string;
}

export interface SwarmSummary {
  runs: number;
  failed: SwarmRunResult[];
  events: number;
  virtualMs: number;
  wallMs: number;
}

/** The jobs of a swarm, in seed order. */
export function swarmJobs(plan: SwarmPlan): SwarmJob[] {
  if (plan.family !== undefined) findSwarmFamily(plan.family);
  const families = defaultSwarmFamilies();
  return Array.from({ length: plan.runs }, (_, i) => {
    const seed = plan.firstSeed + i;
    const family = plan.family ?? families[seed % families.length]!.name;
    return plan.htmlDir === undefined ? { family, seed } : { family, seed, htmlDir: plan.htmlDir };
  });
}

/**
 * Runs every job over the lanes (each lane one run at a time, all lanes at once) and
 * reports each result as it arrives. Results are summed in seed order, so the summary does
 * not depend on which lane finished first.
 */
export async function runSwarm(
  jobs: readonly SwarmJob[],
  lanes: readonly SwarmLane[],
  onResult: (r: SwarmRunResult) => void = () => {},
): Promise<Omit<SwarmSummary, 'wallMs'>> {
  if (lanes.length === 0) throw new RangeError('a swarm needs at least one lane');
  const results: SwarmRunResult[] = new Array<SwarmRunResult>(jobs.length);
  let next = 0;
  await Promise.all(
    lanes.map(async (lane) => {
      while (next < jobs.length) {
        const i = next++;
        const r = await lane(jobs[i]!);
        results[i] = r;
        onResult(r);
      }
    }),
  );
  return {
    runs: results.length,
    failed: results.filter((r) => !r.passed),
    events: results.reduce((s, r) => s + r.events, 0),
    virtualMs: results.reduce((s, r) => s + r.virtualMs, 0),
  };
}

/** `N runs, F failed, E events, ratio R` (R: virtual time over the swarm's wall time). */
export function formatSwarmSummary(s: SwarmSummary): string {
  const ratio = Math.round((s.virtualMs / Math.max(s.wallMs, 1)) * 10) / 10;
  return `${s.runs} runs, ${s.failed.length} failed, ${s.events} events, ratio ${ratio}`;
}
