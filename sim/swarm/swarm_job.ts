import { runScenario, type SimReport } from '../scenario/index.js';
import { deriveSwarmScenario, formatSwarmProfile, swarmReplayCommand } from './profile.js';

/** One run of a swarm: a profile (family and profile seed) and the run's seed (the same number). */
export interface SwarmJob {
  family: string;
  seed: number;
}

/** What a swarm keeps of one run (small: it crosses the worker's IPC channel). */
export interface SwarmRunResult {
  family: string;
  seed: number;
  /** The `--swarm-profile` value. */
  profile: string;
  replay: string;
  passed: boolean;
  /** Failing checks (name and detail); a run that could not start has one named `swarm`. */
  failures: { name: string; detail: string }[];
  events: number;
  virtualMs: number;
  wallMs: number;
  traceHash: string;
}

/**
 * Runs one swarm job in this process: derives the profile's scenario and runs it with the
 * job's seed. Exactly what `strata sim <base> --seed S --swarm-profile <family>:S` does.
 */
export async function runSwarmJob(job: SwarmJob): Promise<SwarmRunResult> {
  const profile = { family: job.family, seed: job.seed };
  const base = {
    family: job.family,
    seed: job.seed,
    profile: formatSwarmProfile(profile),
    replay: `strata sim --swarm-profile ${formatSwarmProfile(profile)} --seed ${job.seed}`,
  };
  let report: SimReport;
  try {
    base.replay = swarmReplayCommand(profile, job.seed);
    const { scenario } = deriveSwarmScenario(profile);
    report = await runScenario(scenario, job.seed, { commit: () => 'swarm', logTail: 0 });
  } catch (err) {
    return {
      ...base,
      passed: false,
      failures: [{ name: 'swarm', detail: `run could not start: ${(err as Error).message}` }],
      events: 0,
      virtualMs: 0,
      wallMs: 0,
      traceHash: '',
    };
  }
  return {
    ...base,
    passed: report.passed,
    failures: report.checks
      .filter((c) => c.verdict !== 'pass')
      .map((c) => ({ name: c.name, detail: c.detail })),
    events: report.events,
    virtualMs: report.virtual_ms,
    wallMs: report.wall_ms,
    traceHash: report.trace_hash,
  };
}

/** A failed run's line in the swarm output: the failing checks and the replay command. */
export function formatSwarmFailure(r: SwarmRunResult): string {
  const names = r.failures.map((f) => f.name).join(', ');
  return `FAIL ${r.profile} seed ${r.seed} [${names}]: ${r.replay}`;
}
