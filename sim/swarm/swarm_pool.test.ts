import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runSwarmCommand } from './swarm_command.js';
import type { SwarmJob, SwarmRunResult } from './swarm_job.js';
import { workerLanes } from './swarm_pool.js';
import { formatSwarmSummary, runSwarm, swarmJobs } from './swarm_runner.js';

const tmp = mkdtempSync(join(tmpdir(), 'strata-swarm-pool-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

// A stand-in worker speaking the worker protocol (the real one runs built JavaScript only):
// answers each job with a result naming its process, fails seed 3's checks and dies on seed 5.
const worker = join(tmp, 'worker.mjs');
writeFileSync(
  worker,
  `process.on('message', ({ id, payload }) => {
  if (payload.seed === 5) process.exit(7);
  process.send({ id, ok: true, payload: {
    family: payload.family, seed: payload.seed, profile: payload.family + ':' + payload.seed,
    replay: 'replay ' + payload.seed, passed: payload.seed !== 3,
    failures: payload.seed === 3 ? [{ name: 'no_phantoms', detail: 'x' }] : [],
    events: 10, virtualMs: 1000, wallMs: 1, traceHash: String(process.pid),
  } });
});
process.on('disconnect', () => process.exit(0));
`,
);

describe('swarm worker processes', () => {
  it('run jobs in parallel processes; a worker that dies fails its run and is replaced', async () => {
    const pool = workerLanes(2, worker, 3);
    try {
      const jobs = swarmJobs({ runs: 8, firstSeed: 1, family: 'ingester-crash' });
      const seen: SwarmRunResult[] = [];
      const summary = await runSwarm(jobs, pool.lanes, (r) => seen.push(r));
      expect(seen.map((r) => r.seed).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
      expect(summary.failed.map((r) => [r.seed, r.failures.map((f) => f.name)])).toEqual([
        [3, ['no_phantoms']],
        [5, ['worker']],
      ]);
      expect(summary.failed[1]!.failures[0]!.detail).toMatch(/exited \(code 7\)/);
      expect(summary.failed[1]!.replay).toBe(
        'strata sim ingester-crash --seed 5 --swarm-profile ingester-crash:5',
      );
      expect(summary.events).toBe(70);
      // Each worker is replaced after 3 runs: 7 answered runs took at least 3 processes.
      const pids = new Set(seen.filter((r) => r.traceHash !== '').map((r) => r.traceHash));
      expect(pids.size).toBeGreaterThanOrEqual(3);
      expect(formatSwarmSummary({ ...summary, wallMs: 100 })).toBe(
        '8 runs, 2 failed, 70 events, ratio 70',
      );
    } finally {
      pool.close();
    }
  });
});

describe('strata sim --swarm output', () => {
  it('prints each failure with its failing checks and replay command, again in seed order, then the summary', async () => {
    let out = '';
    const fake = (failing: readonly number[]) => (job: SwarmJob) =>
      Promise.resolve({
        family: job.family,
        seed: job.seed,
        profile: `${job.family}:${job.seed}`,
        replay: `strata sim ${job.family} --seed ${job.seed} --swarm-profile ${job.family}:${job.seed}`,
        passed: !failing.includes(job.seed),
        failures: failing.includes(job.seed)
          ? [
              { name: 'acked_readable_exactly_once', detail: 'lost' },
              { name: 'liveness', detail: 'slow' },
            ]
          : [],
        events: 100,
        virtualMs: 180_000,
        wallMs: 1,
        traceHash: 'h',
      });
    const code = await runSwarmCommand(
      { runs: 12, firstSeed: 1, family: 'ingester-crash', jobs: 1 },
      { stdout: (s) => (out += s), stderr: (s) => (out += s) },
      [fake([4, 9])],
    );
    expect(code).toBe(1);
    const failLine = (seed: number) =>
      `FAIL ingester-crash:${seed} seed ${seed} [acked_readable_exactly_once, liveness]: strata sim ingester-crash --seed ${seed} --swarm-profile ingester-crash:${seed}`;
    const lines = out.trimEnd().split('\n');
    expect(lines.filter((l) => l === failLine(4))).toHaveLength(2);
    expect(lines.slice(-4, -1)).toEqual(['failed runs:', failLine(4), failLine(9)]);
    expect(lines).toContain('... 10/12 runs, 2 failed');
    expect(lines.at(-1)).toMatch(/^12 runs, 2 failed, 1200 events, ratio [\d.]+$/);

    out = '';
    const ok = await runSwarmCommand(
      { runs: 3, firstSeed: 1, jobs: 1 },
      { stdout: (s) => (out += s), stderr: (s) => (out += s) },
      [fake([])],
    );
    expect(ok).toBe(0);
    expect(out).not.toContain('FAIL');
    expect(out.trimEnd().split('\n').at(-1)).toMatch(/^3 runs, 0 failed, 300 events, ratio/);
  });
});
