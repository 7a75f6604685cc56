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
async function sweep(name: string, seeds: readonly number[] = SEEDS): Promise<SimReport[]> {
  const scenario = await loadScenario(name);
  const reports: SimReport[] = [];
  for (const seed of seeds) {
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

/** A built-in scenario with its workload and schedule edited. */
function variant(name: string, edit: (doc: Record<string, unknown>) => void): string {
  const path = builtinScenarioPath(name);
  if (path === undefined) throw new Error(`built-in scenario ${name} not found`);
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
    'long-term: blocks cut, shipped, loaded and deleted under object-store faults; every acknowledged sample readable throughout',
    async () => {
      const reports = await sweep('long-term');
      for (const r of reports) {
        // Several blocks per replica and tenant, most of them deleted locally, some marked
        // and deleted from the bucket; three whole reads of both tenants.
        expect(r.details.summary).toMatch(
          /read phase at \+5m30s 2\/2 \(0 blocks deleted locally before\), read phase at \+10m0s 2\/2 \((1\d|[2-9]\d) blocks deleted locally before\); blocks cut (3\d|[4-9]\d), in the bucket \2, compacted \d+ \(partial blocks left 0\), deleted locally [2-9]\d, marked for deletion by the operator [1-9]/,
        );
        expect(r.details.plan.join('\n')).toContain('power loss ingester-2');
        const deletion = r.checks.find((c) => c.name === 'deletion_delay_honoured')!;
        expect(deletion.detail).toMatch(/^[1-9]\d* deletes of [1-9]\d* block\(s\)/);
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

  it(
    'scale-out: two distributors and queriers, an ingester joins and one leaves, partitions, loss and a crash of every ingester lose nothing acknowledged',
    async () => {
      const reports = await sweep('scale-out');
      for (const r of reports) {
        // Both read phases (querier partitions; loss after the leave) and the final reads
        // answered for both tenants, and messages really were lost.
        expect(r.details.summary).toMatch(
          /final reads 2\/2 tenants.*read phase at \+55s 2\/2, read phase at \+1m40s 2\/2/,
        );
        expect(r.details.network.lost).toBeGreaterThan(0);
        const plan = r.details.plan.join('\n');
        expect(plan).toContain('ingester-4 runs ingester (starts at +30s)');
        expect(plan).toContain('stop ingester-1');
        expect(plan).toMatch(/promise: every sample acked by a quorum/);
      }
    },
    SWEEP_TIMEOUT_MS,
  );
});

describe('a broken shipper fails long-term', () => {
  it(
    'delete_before_ship: the cut blocks never reach the bucket and their samples are lost once the ingesters restart',
    async () => {
      // Every ingester restarts after several blocks were cut: until then each still answers
      // from the deleted block's open files; afterwards nothing holds those samples.
      const broken = parseScenario(
        variant('long-term', (d) => {
          (d['workload'] as Record<string, unknown>)['broken_ingester'] = 'delete_before_ship';
          const schedule = d['schedule'] as unknown[];
          for (const node of ['ingester-1', 'ingester-2', 'ingester-3'])
            schedule.push({ at: '9m30s', crash: node }, { at: '9m35s', restart: node });
        }),
        'long-term(broken_ingester=delete_before_ship)',
      );
      const bad = await runScenario(broken, 1, { commit });
      expect(bad.passed).toBe(false);
      expect(bad.details.plan.join('\n')).toContain('DELIBERATE BUG: ingesters delete_before_ship');
      const verdicts = Object.fromEntries(bad.checks.map((c) => [c.name, c]));
      // The blocks: which, whose, and when they went.
      expect(verdicts['blocks_shipped']!.verdict).toBe('fail');
      expect(verdicts['blocks_shipped']!.detail).toMatch(
        /^\d+ block\(s\) not shipped as they should: block [0-9A-Z]{26} of team-[ab] cut by ingester-\d at \+\d+m[\d.]+s was deleted locally at \+\d+m[\d.]+s before it was in the bucket \(shipped never\): its samples are gone/,
      );
      // The samples: the read after the restarts misses acknowledged ones, named.
      expect(verdicts['acked_readable_exactly_once']!.verdict).toBe('fail');
      expect(verdicts['acked_readable_exactly_once']!.detail).toMatch(
        /^\d+ violation\(s\) of "every acknowledged sample is readable exactly once": read phase at \+10m0s: lost: team-[ab] \{__name__="strata_sim_m\d", gen="\d+", instance="writer-1", job="strata-sim", slot="\d+"\} t=\+[\dms.]+ value=\d+ \(push #\d+ from writer-1, acked at \+[\dms.]+\)/,
      );
      // Nothing phantom, and the first read (before the restarts) still had everything.
      expect(verdicts['no_phantoms']!.verdict).toBe('pass');
      expect(verdicts['acked_readable_exactly_once']!.detail).not.toContain('read phase at +5m30s');
    },
    SWEEP_TIMEOUT_MS,
  );
});

describe('a broken ingester fails ingester-crash', () => {
  it('ack_before_wal loses acknowledged samples when the replicas crash; correct ingesters do not', async () => {
    const broken = parseScenario(
      variant('ingester-crash', (d) => doubleCrash(d, 'ack_before_wal')),
      'ingester-crash(broken_ingester=ack_before_wal)',
    );
    const correct = parseScenario(
      variant('ingester-crash', (d) => doubleCrash(d, 'none')),
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

/**
 * The resharding scenarios take about 25s of wall time per run on an idle machine (23
 * minutes virtual): two seeds of the KV variant and one of the memberlist one, twice each.
 */
const RESHARDING_SEEDS = [1, 2];
const RESHARDING_TIMEOUT_MS = 900_000;

describe('compactor resharding (each seed twice)', () => {
  it(
    'compactor-resharding: compactors scale 2 -> 4 -> 3, crash mid-upload, lose power and the ring KV; the bucket converges and every sample stays readable once',
    async () => {
      const reports = await sweep('compactor-resharding', RESHARDING_SEEDS);
      for (const r of reports) {
        // Every cut block shipped, vertical and horizontal compactions, and the crashed
        // upload's partial block abandoned and deleted (partial_block_deletion_delay).
        expect(r.details.summary).toMatch(
          /read phase at \+6m30s 4\/4 .*read phase at \+12m30s 4\/4 .*blocks cut (\d+), in the bucket \1, compacted [1-9]\d* \(partial blocks left 0\)/,
        );
        const converged = r.checks.find((c) => c.name === 'compaction_converged')!;
        expect(converged.detail).toMatch(
          /team-a: \d+ live block\(s\) \(levels [4-9],.*1 whole 12m0s range/,
        );
        const owners = r.checks.find((c) => c.name === 'one_compactor_per_tenant')!;
        expect(owners.detail).toMatch(
          /^[1-9]\d* compactor writes outside \d+ ring-transition window/,
        );
      }
    },
    RESHARDING_TIMEOUT_MS,
  );
});

describe('compactor resharding on memberlist (each seed twice)', () => {
  it(
    'compactor-resharding-memberlist: the same with every ring gossiped, and a partition that heals',
    async () => {
      const reports = await sweep('compactor-resharding-memberlist', [1]);
      for (const r of reports) {
        expect(r.details.plan.join('\n')).toContain('rings on memberlist gossip');
        expect(r.details.summary).toMatch(
          /final reads 4\/4 tenants.*blocks cut (\d+), in the bucket \1, compacted [1-9]\d* \(partial blocks left 0\)/,
        );
      }
    },
    RESHARDING_TIMEOUT_MS,
  );
});

describe('a broken compactor fails compactor-resharding', () => {
  const broken = (mode: string): ReturnType<typeof parseScenario> =>
    parseScenario(
      variant('compactor-resharding', (d) => {
        const lt = (d['workload'] as Record<string, unknown>)['long_term'] as Record<
          string,
          unknown
        >;
        (lt['compactor'] as Record<string, unknown>)['broken'] = mode;
      }),
      `compactor-resharding(broken=${mode})`,
    );
  const verdicts = async (
    mode: string,
  ): Promise<Record<string, { verdict: string; detail: string }>> => {
    const bad = await runScenario(broken(mode), 1, { commit });
    expect(bad.passed).toBe(false);
    expect(bad.details.plan.join('\n')).toContain(`DELIBERATE BUG: compactors ${mode}`);
    return Object.fromEntries(bad.checks.map((c) => [c.name, c]));
  };

  it(
    'skip_dedup: replicas are never merged, so their blocks overlap forever',
    async () => {
      const v = await verdicts('skip_dedup');
      expect(v['compaction_converged']!.verdict).toBe('fail');
      expect(v['compaction_converged']!.detail).toMatch(
        /^\d+ problem\(s\) with the compacted bucket: team-[a-d]: blocks [0-9A-Z]{26} \[\+[\dms.]+, \+[\dms.]+\) level \d+ and [0-9A-Z]{26} \[\+[\dms.]+, \+[\dms.]+\) level \d+ overlap/,
      );
    },
    SWEEP_TIMEOUT_MS,
  );

  it(
    'delete_sources_early: sources are marked before the output is complete',
    async () => {
      const v = await verdicts('delete_sources_early');
      expect(v['sources_covered_before_marked']!.verdict).toBe('fail');
      expect(v['sources_covered_before_marked']!.detail).toMatch(
        /^\d+ block\(s\) marked for deletion before their data was elsewhere: compactor-\d marked team-[a-d]\/[0-9A-Z]{26} \[.*\) level \d+ for deletion at \+[\dms.]+ while no complete block held its sources/,
      );
    },
    SWEEP_TIMEOUT_MS,
  );

  it(
    'ignore_ownership: every compactor compacts every tenant',
    async () => {
      const v = await verdicts('ignore_ownership');
      expect(v['one_compactor_per_tenant']!.verdict).toBe('fail');
      expect(v['one_compactor_per_tenant']!.detail).toMatch(
        /^\d+ tenant\(s\) worked on by two compactors at once: team-[a-d]: written by compactor-\d \((upload|delete) team-[a-d]\/.* at \+[\dms.]+\) and compactor-\d .*outside any ring transition/,
      );
    },
    SWEEP_TIMEOUT_MS,
  );
});
