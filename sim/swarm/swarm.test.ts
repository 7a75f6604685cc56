import { describe, expect, it } from 'vitest';
import { runSimCommand } from '../cli/index.js';
import { SWARM_FAMILIES } from './profile.js';
import { runSwarmJob } from './swarm_job.js';

/** Seeds per family of the bounded swarm `npm test` runs (the nightly command runs 1,000). */
const SEEDS_PER_FAMILY = 3;
/** Families out of the default swarm cost 5–10 s a seed: fewer of them. */
const SEEDS_PER_COSTLY_FAMILY = 2;

async function sim(...argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await runSimCommand(argv, {
    stdout: (s) => (stdout += s),
    stderr: (s) => (stderr += s),
  });
  return { code, stdout, stderr };
}

describe('bounded swarm', () => {
  // In this process (--jobs 0): vitest already runs test files side by side.
  for (const family of SWARM_FAMILIES) {
    const seeds = family.inDefaultSwarm === false ? SEEDS_PER_COSTLY_FAMILY : SEEDS_PER_FAMILY;
    it(`${family.name}: ${seeds} seeds with drawn fault mixes, no violation`, async () => {
      const r = await sim(
        '--swarm',
        String(seeds),
        '--scenario-family',
        family.name,
        '--seed',
        '101',
        '--jobs',
        '0',
      );
      // A failure prints its failing checks and the replay command: show them.
      expect(r.stdout.split('\n').filter((l) => l.startsWith('FAIL'))).toEqual([]);
      expect(r.stdout).toMatch(
        new RegExp(`\\n${seeds} runs, 0 failed, [1-9]\\d* events, ratio [\\d.]+\\n$`),
      );
      expect(r.stdout).toContain(`${family.name} promise: `);
      expect(r.code).toBe(0);
    }, 240_000);
  }
});

describe('swarm replay', () => {
  it('strata sim <scenario> --seed S --swarm-profile P replays the swarm run: same trace hash', async () => {
    const swarmRun = await runSwarmJob({ family: 'ingester-crash', seed: 7 });
    expect(swarmRun.passed).toBe(true);
    expect(swarmRun.replay).toBe(
      'strata sim ingester-crash --seed 7 --swarm-profile ingester-crash:7',
    );
    const [, ...args] = swarmRun.replay.split(' ').slice(1);
    const r = await sim(...args, '--quiet');
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout.trim()) as { trace_hash: string; replay: string };
    expect(report.trace_hash).toBe(swarmRun.traceHash);
    expect(report.replay).toBe(swarmRun.replay);
    // The same mix with another seed is another interleaving.
    const other = await sim(
      'ingester-crash',
      '--seed',
      '8',
      '--swarm-profile',
      'ingester-crash:7',
      '--quiet',
    );
    expect((JSON.parse(other.stdout.trim()) as { trace_hash: string }).trace_hash).not.toBe(
      swarmRun.traceHash,
    );
  }, 240_000);

  it('refuses a profile of another scenario, and swarm flags without --swarm', async () => {
    const wrong = await sim('late-sender', '--swarm-profile', 'ingester-crash:7');
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain('swarm profile ingester-crash:7 is for scenario ingester-crash');
    const jobs = await sim('ingester-crash', '--jobs', '2');
    expect(jobs.code).toBe(2);
    expect(jobs.stderr).toContain('--scenario-family and --jobs go with --swarm N');
    const family = await sim('--swarm', '3', '--scenario-family', 'nope');
    expect(family.code).toBe(2);
    expect(family.stderr).toContain('unknown swarm family "nope"');
    const zero = await sim('--swarm', '0');
    expect(zero.code).toBe(2);
  });
});
