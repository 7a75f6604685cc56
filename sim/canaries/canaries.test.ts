import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import {
  CANARIES,
  NO_CANARY,
  baselineFailures,
  brokenScenarioText,
  buildCanaryTable,
  canariesFromEnv,
  formatCanaryMarkdown,
  runCanaryCase,
  runCanarySweep,
  uncaughtCanaries,
  type CanaryOutcome,
} from './index.js';

/** Simulated runs on a shared CPU: generous, never reached in a healthy run. */
const RUN_TIMEOUT_MS = 240_000;

describe('canary registry', () => {
  it('has the canaries of the issues, each with its own name', () => {
    expect(CANARIES.map((c) => c.name)).toEqual([
      'ack_before_wal',
      'skip_read_dedup',
      'ignore_ingestion_window',
      'double_apply_retry',
      'drop_last_wal_page',
      'ha_never_fails_over',
      'rate_limit_off_by_one_burst',
      'querier_ignores_ingester',
      'fifo_frontend_queue',
    ]);
  });

  it('selects canaries from STRATA_SIM_CANARY and names unknown ones', () => {
    expect(canariesFromEnv(undefined)).toHaveLength(CANARIES.length);
    expect(canariesFromEnv(' skip_read_dedup, ack_before_wal ').map((c) => c.name)).toEqual([
      'skip_read_dedup',
      'ack_before_wal',
    ]);
    expect(() => canariesFromEnv('ack_before_wal,nope')).toThrow(/unknown canary "nope"/);
  });

  it('switches a canary on in the scenario workload, and only where it fits', () => {
    const text = brokenScenarioText('scale-out', 'querier_ignores_ingester');
    const workload = (parseYaml(text!) as { workload: Record<string, unknown> }).workload;
    expect(workload['broken_querier']).toBe('ignore_ingester');
    expect(workload['broken_ignored_ingester']).toBe('ingester-4');
    expect(parseYaml(brokenScenarioText('scale-out', NO_CANARY)!)).not.toHaveProperty(
      'workload.broken_querier',
    );
    // A pingpong scenario has no Strata components to break.
    expect(brokenScenarioText('pingpong', 'ack_before_wal')).toBeUndefined();
    // The frontend canary needs a query-frontend (`workload.frontend`).
    const fifo = brokenScenarioText('query-frontend', 'fifo_frontend_queue');
    expect(parseYaml(fifo!)).toHaveProperty('workload.frontend.broken', 'fifo_queue');
    expect(brokenScenarioText('scale-out', 'fifo_frontend_queue')).toBeUndefined();
  });
});

describe('canary table', () => {
  const outcome = (canary: string, scenario: string, seed: number, failed: string[]) =>
    ({ canary, scenario, seed, failed, applicable: true, events: 1 }) as CanaryOutcome;

  it('counts the seeds each scenario catches a canary on and flags uncaught ones', () => {
    const table = buildCanaryTable(
      [
        outcome(NO_CANARY, 'a', 1, []),
        outcome(NO_CANARY, 'b', 1, []),
        outcome('ack_before_wal', 'a', 1, ['acked_readable_exactly_once']),
        outcome('ack_before_wal', 'a', 2, []),
        outcome('ack_before_wal', 'b', 1, []),
        outcome('skip_read_dedup', 'a', 1, []),
        // A run that could not finish is neither a catch nor a miss.
        { ...outcome('skip_read_dedup', 'a', 2, []), error: 'worker process exited (SIGABRT)' },
        { ...outcome('skip_read_dedup', 'b', 1, []), applicable: false },
      ],
      ['a', 'b'],
    );
    expect(uncaughtCanaries(table)).toEqual(['skip_read_dedup']);
    expect(baselineFailures(table)).toBe(0);
    const md = formatCanaryMarkdown(table);
    expect(md).toContain('| `ack_before_wal` | 1/2 | 0/1 | 1 scenario(s) |');
    expect(md).toContain('| `skip_read_dedup` | 0/1 (1 errored) | n/a | NOT CAUGHT |');
    expect(md).toContain('| none (unbroken build) | 0/1 | 0/1 | nothing (passes) |');
  });
});

describe('canaries against the simulator', () => {
  it(
    'scale-out catches skip_read_dedup and ack_before_wal on seed 1; the unbroken build passes',
    async () => {
      const outcomes = await runCanarySweep(
        {
          scenarios: ['scale-out'],
          canaries: canariesFromEnv('skip_read_dedup,ack_before_wal'),
          seeds: [1],
        },
        { execute: runCanaryCase },
      );
      const by = (canary: string) => outcomes.find((o) => o.canary === canary)!;
      expect(by(NO_CANARY).failed, by(NO_CANARY).firstFailure).toEqual([]);
      // Every replica's copy is read: samples come back two or three times.
      expect(by('skip_read_dedup').failed).toContain('acked_readable_exactly_once');
      expect(by('skip_read_dedup').firstFailure).toMatch(/read \d+ times|twice|more than once/);
      // Every ingester crashes within a second: the last 5s of acknowledged pushes were
      // never in any WAL.
      expect(by('ack_before_wal').failed).toContain('acked_readable_exactly_once');
      const table = buildCanaryTable(outcomes, ['scale-out']);
      expect(uncaughtCanaries(table)).toEqual([]);
      expect(baselineFailures(table)).toBe(0);
    },
    RUN_TIMEOUT_MS,
  );
});
