import type { FileSystem } from '../../src/runtime/index.js';
import { ScenarioError } from '../fields/index.js';
import { hostCpuCount, hostWallClockMs } from '../kernel/index.js';
import type { Scenario } from '../scenario/index.js';
import {
  defaultSwarmFamilies,
  deriveSwarmScenario,
  findSwarmFamily,
  formatSwarmProfile,
  parseSwarmProfile,
} from './profile.js';
import { formatSwarmFailure, runSwarmJob } from './swarm_job.js';
import { workerLanes } from './swarm_pool.js';
import { formatSwarmSummary, runSwarm, swarmJobs, type SwarmLane } from './swarm_runner.js';

export interface SwarmCommandOptions {
  runs: number;
  firstSeed: number;
  family?: string;
  /** Worker processes (default: the number of cores); 0 runs every seed in this process. */
  jobs?: number;
  /** Writes an HTML page of every failed run into `dir` (`fs` for runs in this process). */
  html?: { dir: string; fs: FileSystem };
}

interface Output {
  stdout(s: string): void;
  stderr(s: string): void;
}

/**
 * `strata sim --swarm N`: runs N seeds, each with its own fault mix, in worker processes.
 * Prints a line per failed run (failing checks and replay command) and the summary; exit
 * code 0 when every run passed, 1 otherwise, 2 for a bad family.
 */
export async function runSwarmCommand(
  opts: SwarmCommandOptions,
  io: Output,
  /** Where runs go instead of worker processes (tests). */
  lanesOverride?: readonly SwarmLane[],
): Promise<number> {
  let jobs;
  try {
    jobs = swarmJobs({
      runs: opts.runs,
      firstSeed: opts.firstSeed,
      ...(opts.family === undefined ? {} : { family: opts.family }),
      ...(opts.html === undefined ? {} : { htmlDir: opts.html.dir }),
    });
  } catch (err) {
    io.stderr(`strata sim: ${(err as Error).message}\n`);
    return 2;
  }
  const families =
    opts.family === undefined ? defaultSwarmFamilies() : [findSwarmFamily(opts.family)];
  const workers = Math.min(opts.jobs ?? hostCpuCount(), opts.runs);
  io.stdout(
    `swarm: ${opts.runs} runs, seeds ${opts.firstSeed}..${opts.firstSeed + opts.runs - 1}, ` +
      `families ${families.map((f) => f.name).join(', ')}, ${workers === 0 ? 'in process' : `${workers} worker process(es)`}\n`,
  );
  for (const f of families) io.stdout(`  ${f.name} promise: ${f.promise}\n`);
  const pool = workers === 0 || lanesOverride !== undefined ? undefined : workerLanes(workers);
  const lanes: readonly SwarmLane[] = lanesOverride ??
    pool?.lanes ?? [(job) => runSwarmJob(job, opts.html?.fs)];
  const started = hostWallClockMs();
  try {
    // Progress every tenth of the swarm (at least every 10 runs), so a long swarm shows life.
    const step = Math.max(10, Math.ceil(opts.runs / 10));
    let done = 0;
    let failed = 0;
    const summary = await runSwarm(jobs, lanes, (r) => {
      done++;
      if (!r.passed) {
        failed++;
        io.stdout(`${formatSwarmFailure(r)}\n`);
      }
      if (done % step === 0 && done < opts.runs)
        io.stdout(`... ${done}/${opts.runs} runs, ${failed} failed\n`);
    });
    const wallMs = hostWallClockMs() - started;
    // Failures again, in seed order, so a long swarm's verdict reads in one place.
    if (summary.failed.length > 0)
      io.stdout(['failed runs:', ...summary.failed.map(formatSwarmFailure)].join('\n') + '\n');
    io.stdout(`${formatSwarmSummary({ ...summary, wallMs })}\n`);
    return summary.failed.length === 0 ? 0 : 1;
  } finally {
    pool?.close();
  }
}

/**
 * The scenario of `strata sim <scenario> --swarm-profile P`: the profile must belong to a
 * family built on that scenario.
 */
export function loadSwarmProfileScenario(scenarioName: string, profileText: string): Scenario {
  const profile = parseSwarmProfile(profileText);
  const family = findSwarmFamily(profile.family);
  if (family.base !== scenarioName)
    throw new ScenarioError(
      `swarm profile ${formatSwarmProfile(profile)} is for scenario ${family.base}, not ${JSON.stringify(scenarioName)}`,
    );
  return deriveSwarmScenario(profile).scenario;
}

/** A single run's replay command with its `--swarm-profile` (after `--seed N`). */
export function withSwarmProfile(replay: string, profileText: string): string {
  return replay.replace(/--seed \d+/, (m) => `${m} --swarm-profile ${profileText}`);
}
