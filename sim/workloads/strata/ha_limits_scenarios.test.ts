import { describe, expect, it } from 'vitest';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { builtinScenarioPath, readHostTextFile } from '../../kernel/index.js';
import { loadScenario, parseScenario, runScenario, type SimReport } from '../../scenario/index.js';

const SEEDS = [1, 2, 3];
/** Six runs of about 7s wall each on an idle machine; generous for a shared CPU. */
const SWEEP_TIMEOUT_MS = 240_000;
const BROKEN_TIMEOUT_MS = 90_000;
const commit = (): string => 'test-commit';

function failures(r: SimReport): string[] {
  return r.checks.filter((c) => c.verdict === 'fail').map((c) => `${c.name}: ${c.detail}`);
}

function verdicts(r: SimReport): Record<string, { verdict: string; detail: string }> {
  return Object.fromEntries(r.checks.map((c) => [c.name, c]));
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
    reports.push(a);
  }
  return reports;
}

/** A built-in scenario with one key of its workload section set. */
function withWorkload(name: string, section: string, key: string, value: unknown): string {
  const path = builtinScenarioPath(name);
  if (path === undefined) throw new Error(`built-in scenario ${name} not found`);
  const doc = parseYaml(readHostTextFile(path)) as Record<string, Record<string, unknown>>;
  (doc['workload']![section] as Record<string, unknown>)[key] = value;
  return stringifyYaml(doc);
}

describe('ha-tracker (each seed twice)', () => {
  it(
    'the elected replica is killed and comes back: one replica accepted at a time, failover within the timeout, 202s for the other, no gap',
    async () => {
      for (const r of await sweep('ha-tracker')) {
        const v = verdicts(r);
        // cluster-a fails over to prom-a2 and back to prom-a1 in both tenants.
        expect(v['ha_one_replica_at_a_time']!.detail).toMatch(
          /team-a\/cluster-a \d+ accepted, 2 switch\(es\).*team-b\/cluster-a \d+ accepted, 2 switch\(es\)/,
        );
        expect(v['ha_failover']!.detail).toMatch(
          /team-a\/cluster-a [1-9]\d* dropped, slowest failover/,
        );
        expect(v['ha_reads_match']!.detail).toMatch(
          /^[1-9]\d* stored HA samples each from one replica/,
        );
        expect(r.details.summary).toMatch(/final reads 2\/2 tenants \(16 series\)/);
      }
    },
    SWEEP_TIMEOUT_MS,
  );

  it(
    'never_failover: a tracker that keeps the dead replica elected fails ha_failover and the gap check',
    async () => {
      const broken = parseScenario(
        withWorkload('ha-tracker', 'ha_tracker', 'broken', 'never_failover'),
        'ha-tracker(broken=never_failover)',
      );
      const bad = await runScenario(broken, 1, { commit });
      expect(bad.passed).toBe(false);
      expect(bad.details.plan.join('\n')).toContain('DELIBERATE BUG: HA tracker never fails over');
      const v = verdicts(bad);
      expect(v['ha_failover']!.verdict).toBe('fail');
      expect(v['ha_failover']!.detail).toMatch(
        /team-a\/cluster-a: prom-a2's push #\d+ sent \+\d+(\.\d+)?s was dropped \(202\) although no other replica was heard from in the 10s before \(prom-a1 last heard \+(2[89]|3\d)(\.\d+)?s\)/,
      );
      expect(v['ha_reads_match']!.verdict).toBe('fail');
      expect(v['ha_reads_match']!.detail).toMatch(
        /cluster="cluster-a".*: no sample stored from \+(2[89]|3\d)(\.\d+)?s to \+1m0s \(\d+(\.\d+)?s, more than 15s\)/,
      );
      // Nothing else is wrong: the dead replica's samples simply never get replaced.
      expect(v['ha_one_replica_at_a_time']!.verdict).toBe('pass');
    },
    BROKEN_TIMEOUT_MS,
  );
});

describe('limits (each seed twice)', () => {
  it(
    'rate, burst, series and label limits raised and lowered by runtime-config reloads: every answer documented, accepted set read back',
    async () => {
      for (const r of await sweep('limits')) {
        const v = verdicts(r);
        // Every limit refused something (the check fails otherwise), in all three phases.
        expect(v['limits_enforced']!.detail).toMatch(
          /refusals by limit: rate [1-9]\d*, label_names [1-9]\d*, label_name_length [1-9]\d*, label_value_length [1-9]\d*, series_per_user [1-9]\d*, series_per_metric [1-9]\d*/,
        );
        expect(v['limits_accepted_set']!.detail).toMatch(
          /^[1-9]\d* samples accepted and stored, [1-9]\d* refused and absent/,
        );
        expect(r.details.plan.join('\n')).toContain('from +1m20s: rate 40/s burst 120');
      }
    },
    SWEEP_TIMEOUT_MS,
  );

  it(
    'off_by_one_burst: a rate limiter that lets one burst too many through fails limits_enforced',
    async () => {
      const broken = parseScenario(
        withWorkload('limits', 'limits', 'broken', 'off_by_one_burst'),
        'limits(broken=off_by_one_burst)',
      );
      const bad = await runScenario(broken, 1, { commit });
      expect(bad.passed).toBe(false);
      expect(bad.details.plan.join('\n')).toContain(
        'DELIBERATE BUG: the distributor rate limiter allows one burst too many',
      );
      const v = verdicts(bad);
      expect(v['limits_enforced']!.verdict).toBe('fail');
      expect(v['limits_enforced']!.detail).toMatch(
        /push #\d+ of team-[ab] \(attempt sent \+\d+(\.\d+)?s\): \d+ samples passed the rate limit although tokens between \d+\.\d and \d+\.\d \(rate 40\/s, burst 150\)/,
      );
    },
    BROKEN_TIMEOUT_MS,
  );
});

describe('limits-global (each seed twice)', () => {
  it(
    'two distributors in the distributor ring each allow half the rate: every answer documented, accepted set read back',
    async () => {
      for (const r of await sweep('limits-global')) {
        const v = verdicts(r);
        // The model holds each distributor to ingestion_rate / 2, so every 429 named the
        // divided limit and every pass fitted a half-rate bucket.
        expect(v['limits_enforced']!.detail).toMatch(
          /refusals by limit: rate [1-9]\d*, label_names [1-9]\d*, label_name_length [1-9]\d*, label_value_length [1-9]\d*, series_per_user [1-9]\d*, series_per_metric [1-9]\d*/,
        );
        expect(v['limits_accepted_set']!.detail).toMatch(
          /^[1-9]\d* samples accepted and stored, [1-9]\d* refused and absent/,
        );
        expect(r.details.plan.join('\n')).toContain('limits: global rate strategy');
      }
    },
    SWEEP_TIMEOUT_MS,
  );

  it(
    'a distributor crash changes the count the model holds fixed: the limits checks refuse to judge',
    async () => {
      const path = builtinScenarioPath('limits-global');
      if (path === undefined) throw new Error('built-in scenario limits-global not found');
      const doc = parseYaml(readHostTextFile(path)) as Record<string, unknown>;
      doc['schedule'] = [
        { at: '30s', crash: 'distributor-2' },
        { at: '35s', restart: 'distributor-2' },
      ];
      const crashed = parseScenario(stringifyYaml(doc), 'limits-global(crash)');
      const r = await runScenario(crashed, 1, { commit });
      const v = verdicts(r);
      for (const check of ['limits_enforced', 'limits_accepted_set']) {
        expect(v[check]!.verdict).toBe('fail');
        expect(v[check]!.detail).toBe(
          'the limits model holds the healthy distributors at 2 under the global strategy, but distributor-2 has a crash at +30s: not supported',
        );
      }
    },
    BROKEN_TIMEOUT_MS,
  );

  it(
    'off_by_one_burst: one burst too many through either distributor fails limits_enforced',
    async () => {
      const broken = parseScenario(
        withWorkload('limits-global', 'limits', 'broken', 'off_by_one_burst'),
        'limits-global(broken=off_by_one_burst)',
      );
      const bad = await runScenario(broken, 1, { commit });
      expect(bad.passed).toBe(false);
      const v = verdicts(bad);
      expect(v['limits_enforced']!.verdict).toBe('fail');
      // The bucket named is one distributor's, at half the phase's ingestion_rate of 80.
      expect(v['limits_enforced']!.detail).toMatch(
        /push #\d+ of team-[ab] \(attempt sent \+\d+(\.\d+)?s\): \d+ samples passed the rate limit although tokens between \d+\.\d and \d+\.\d on distributor [12] \(rate 40\/s, burst 150\)/,
      );
    },
    BROKEN_TIMEOUT_MS,
  );
});
