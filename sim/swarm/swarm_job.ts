import type { FileSystem } from '../../src/runtime/index.js';
import { runScenario, writeHtmlReport, type SimReport } from '../scenario/index.js';
import { deriveSwarmScenario, formatSwarmProfile, swarmReplayCommand } from './profile.js';

/** One run of a swarm: a profile (family and profile seed) and the run's seed (the same number). */
export interface SwarmJob {
  family: string;
  seed: number;
  /** When set, a failed run's HTML page goes into this directory. */
  htmlDir?: string;
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
  /** The failed run's HTML page, when the swarm writes them. */
  page?: string;
}

/**
 * Runs one swarm job in this process: derives the profile's scenario and runs it with the
 * job's seed. Exactly what `strata sim <base> --seed S --swarm-profile <family>:S` does.
 */
export async function runSwarmJob(job: SwarmJob, fs?: FileSystem): Promise<SwarmRunResult> {
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
  const page =
    report.passed || job.htmlDir === undefined || fs === undefined
      ? undefined
      : await writeSwarmFailurePage(report, fs, job);
  return {
    ...base,
    ...(page === undefined ? {} : { page }),
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

/** Writes `<dir>/<family>-seed<S>.html`; a page that cannot be written is named as such. */
export async function writeSwarmFailurePage(
  report: SimReport,
  fs: FileSystem,
  job: SwarmJob,
): Promise<string> {
  const dir = job.htmlDir as string;
  const path = `${dir.replace(/\/+$/, '')}/${job.family}-seed${job.seed}.html`;
  try {
    await fs.mkdir(dir, { recursive: true });
    await writeHtmlReport(report, fs, path);
    return path;
  } catch (err) {
    return `${path} not written: ${(err as Error).message}`;
  }
}

/** A failed run's line in the swarm output: the failing checks, the replay command, the page. */
export function formatSwarmFailure(r: SwarmRunResult): string {
  const names = r.failures.map((f) => f.name).join(', ');
  const page = r.page === undefined ? '' : ` (page: ${r.page})`;
  return `FAIL ${r.profile} seed ${r.seed} [${names}]: ${r.replay}${page}`;
}
