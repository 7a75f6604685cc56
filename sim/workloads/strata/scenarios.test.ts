import { describe, expect, it } from 'vitest';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { builtinScenarioPath, readHostTextFile } from '../../kernel/index.js';
import { loadScenario, parseScenario, runScenario, type SimReport } from '../../scenario/index.js';

const SEEDS = [1, 2, 3];
/** Six simulated runs per test on a shared CPU: generous, never reached in a healthy run. */
const SWEEP_TIMEOUT_MS = 180_000;
const commit = (): string => 'test-commit';

function failures(r: SimReport): string[] {
  return r.checks.filter((c) => c.verdict === 'fail').map((c) => `${c.name}: ${c.detail}`);
}

/** Runs a scenario twice per seed: every check passes and both runs leave the same trace. */
async function sweep(name: string): Promise<SimReport[]> {
  const scenario = await loadScenario(name);
  const reports: SimReport[] = [];
  for (const seed of SEEDS) {
    const a = await runScenario(scenario, seed, { commit });
    const b = await runScenario(scenario, seed, { commit });
    expect(failures(a), `${name} seed ${seed}\n${a.details.summary}`).toEqual([]);
    expect(b.trace_hash, `${name} seed ${seed} replays`).toBe(a.trace_hash);
    expect(b.checks).toEqual(a.checks);
    expect(b.details.summary).toBe(a.details.summary);
    reports.push(a);
  }
  return reports;
}

/** The built-in ingester-crash scenario with its workload and schedule edited. */
function crashVariant(edit: (doc: Record<string, unknown>) => void): string {
  const path = builtinScenarioPath('ingester-crash');
  if (path === undefined) throw new Error('built-in scenario ingester-crash not found');
  const doc = parseYaml(readHostTextFile(path)) as Record<string, unknown>;
  edit(doc);
  return stringifyYaml(doc);
}

/**
 * Two ingesters crash at the same instant and the third a second later, all restarting
 * 5s after: every replica of the last seconds' pushes is hit by a crash. Correct ingesters
 * lose nothing (the WAL is in the page cache, which survives a process crash).
 */
function doubleCrash(doc: Record<string, unknown>, bug: 'none' | 'ack_before_wal'): void {
  doc['schedule'] = [
    { at: '60s', crash: 'ingester-1' },
    { at: '60s', crash: 'ingester-2' },
    { at: '61s', crash: 'ingester-3' },
    { at: '66s', restart: 'ingester-1' },
    { at: '66s', restart: 'ingester-2' },
    { at: '66s', restart: 'ingester-3' },
  ];
  const workload = doc['workload'] as Record<string, unknown>;
  workload['broken_ingester'] = bug;
  workload['broken_ack_delay'] = '5s';
}

describe('strata scenarios (each seed twice)', () => {
  it(
    'ingester-crash: every acknowledged sample survives crashes and a power loss',
    async () => {
      const reports = await sweep('ingester-crash');
      for (const r of reports) {
        expect(r.details.summary).toMatch(/final reads 2\/2 tenants/);
        expect(r.details.plan.join('\n')).toContain('power loss ingester-2');
      }
    },
    SWEEP_TIMEOUT_MS,
  );

  it(
    'late-sender: §11 refusals for the default tenant, acceptance with a window',
    async () => {
      const reports = await sweep('late-sender');
      for (const r of reports) {
        const rule = r.checks.find((c) => c.name === 'ingestion_rule')!;
        expect(rule.detail).toMatch(/team-a: [1-9]\d* refused/);
        expect(rule.detail).toContain('team-b: 0 refused (window 2h0m0s, 0 undecided');
      }
    },
    SWEEP_TIMEOUT_MS,
  );
});

describe('a broken ingester fails ingester-crash', () => {
  it('ack_before_wal loses acknowledged samples when the replicas crash; correct ingesters do not', async () => {
    const broken = parseScenario(
      crashVariant((d) => doubleCrash(d, 'ack_before_wal')),
      'ingester-crash(broken_ingester=ack_before_wal)',
    );
    const correct = parseScenario(
      crashVariant((d) => doubleCrash(d, 'none')),
      'ingester-crash(double crash)',
    );
    const ok = await runScenario(correct, 1, { commit });
    expect(failures(ok)).toEqual([]);

    const bad = await runScenario(broken, 1, { commit });
    expect(bad.details.plan.join('\n')).toContain('DELIBERATE BUG: ingesters ack_before_wal');
    const lost = bad.checks.find((c) => c.name === 'acked_readable_exactly_once')!;
    expect(lost.verdict).toBe('fail');
    // Readable: how many, and which samples with their push and ack time.
    expect(lost.detail).toMatch(
      /^\d+ violation\(s\) of "every acknowledged sample is readable exactly once": lost: team-[ab] \{__name__="strata_sim_m\d", gen="\d+", instance="writer-1", job="strata-sim", slot="\d+"\} t=\+\d+(\.\d+)?s value=\d+ \(push #\d+ from writer-1, acked at \+\d+(\.\d+)?s\)/,
    );
    expect(bad.passed).toBe(false);
  });
});
