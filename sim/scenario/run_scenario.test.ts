import { describe, expect, it } from 'vitest';
import { builtinScenarioPath, readHostTextFile } from '../kernel/index.js';
import { loadScenario } from './load_scenario.js';
import { parseScenario } from './parse_scenario.js';
import { runScenario } from './run_scenario.js';
import type { Scenario } from './scenario_types.js';

const commit = (): string => 'test-commit';

function builtinText(name: string): string {
  const path = builtinScenarioPath(name);
  if (path === undefined) throw new Error(`built-in scenario ${name} not found`);
  return readHostTextFile(path);
}

/** The built-in pingpong scenario with a deliberate bug in the receiver (and optional edits). */
function pingpongWith(bug: string, edit: (text: string) => string = (t) => t): Scenario {
  const text = edit(builtinText('pingpong')).replace(
    'kind: pingpong',
    `kind: pingpong\n  bug: ${bug}`,
  );
  return parseScenario(text, `pingpong(bug=${bug})`);
}

const failed = (r: { checks: { name: string; verdict: string }[] }): string[] =>
  r.checks.filter((c) => c.verdict === 'fail').map((c) => c.name);

describe('pingpong scenario', () => {
  it('replays exactly: same seed ⇒ same trace hash, events and verdicts', async () => {
    const scenario = await loadScenario('pingpong');
    const a = await runScenario(scenario, 42, { commit });
    const b = await runScenario(scenario, 42, { commit });
    expect(b.trace_hash).toBe(a.trace_hash);
    expect(b.events).toBe(a.events);
    expect(b.checks).toEqual(a.checks);
    expect(b.details.summary).toBe(a.details.summary);
    expect(a.trace_hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('different seeds explore different runs (different trace hashes)', async () => {
    const scenario = await loadScenario('pingpong');
    const hashes = new Set<string>();
    for (const seed of [1, 2, 3])
      hashes.add((await runScenario(scenario, seed, { commit })).trace_hash);
    expect(hashes.size).toBe(3);
  });

  it('passes every check over a sweep of 20 seeds', async () => {
    const scenario = await loadScenario('pingpong');
    const failures: string[] = [];
    for (let seed = 1; seed <= 20; seed++) {
      const r = await runScenario(scenario, seed, { commit });
      expect(r.virtual_ms).toBe(150_000);
      if (!r.passed)
        failures.push(
          `seed ${seed}: ${r.checks
            .filter((c) => c.verdict === 'fail')
            .map((c) => `${c.name}: ${c.detail}`)
            .join('; ')}`,
        );
      // The faults really happened: retries were needed.
      expect(r.details.network.lost + r.details.network.blocked).toBeGreaterThan(0);
    }
    expect(failures).toEqual([]);
  });

  it('reports the run: replay command, commit, node version, ratio', async () => {
    const r = await runScenario(await loadScenario('pingpong'), 5, { commit, durationMs: 90_000 });
    expect(r.replay).toBe('strata sim pingpong --seed 5 --duration 1m30s');
    expect(r.commit).toBe('test-commit');
    expect(r.node_version).toBe(process.version);
    expect(r.virtual_ms).toBe(90_000);
    expect(r.virtual_wall_ratio).toBeGreaterThan(0);
    expect(r.events_per_s).toBeGreaterThan(0);
    expect(r.events_per_s).toBeCloseTo((r.events * 1000) / r.wall_ms, -1);
    expect(r.details.plan[0]).toMatch(/^scenario pingpong/);
  });
});

describe('the checks catch deliberately buggy receivers', () => {
  it('durability catches ack-before-fsync under the power loss (and only because of it)', async () => {
    const buggy = pingpongWith('ack_before_fsync');
    const caught: number[] = [];
    for (let seed = 1; seed <= 10; seed++) {
      const r = await runScenario(buggy, seed, { commit });
      if (failed(r).includes('durability')) caught.push(seed);
    }
    expect(caught.length).toBeGreaterThan(0);
    // Without the power loss the same bug goes unnoticed on those seeds: the fault exposed it.
    const noPowerLoss = pingpongWith('ack_before_fsync', (t) =>
      t.replace('- { at: 60s, power_loss: b }', '- { at: 60s, crash: b }'),
    );
    for (const seed of caught) {
      const r = await runScenario(noPowerLoss, seed, { commit });
      expect(failed(r)).toEqual([]);
    }
  });

  it('exactly_once catches a receiver that does not dedupe', async () => {
    const r = await runScenario(pingpongWith('no_dedupe'), 1, { commit });
    expect(failed(r)).toContain('exactly_once');
    expect(r.checks.find((c) => c.name === 'exactly_once')!.detail).toMatch(
      /logged more than once/,
    );
    expect(r.passed).toBe(false);
  });

  it('no_phantoms catches a recovery that keeps a torn line', async () => {
    const text = builtinText('pingpong-torn-writes');
    const correct = parseScenario(text, 'pingpong-torn-writes');
    const buggy = parseScenario(
      text.replace('kind: pingpong', 'kind: pingpong\n  bug: no_recovery_truncate'),
      'torn(bug)',
    );
    let caught = 0;
    for (let seed = 1; seed <= 4; seed++) {
      expect(failed(await runScenario(correct, seed, { commit }))).toEqual([]);
      const r = await runScenario(buggy, seed, { commit });
      if (failed(r).includes('no_phantoms')) caught++;
    }
    expect(caught).toBeGreaterThan(0);
  });
});

describe('pingpong-chaos (random faults)', () => {
  it('passes for several seeds and resolves a different fault plan per seed', async () => {
    const scenario = await loadScenario('pingpong-chaos');
    const plans = new Set<string>();
    for (let seed = 1; seed <= 5; seed++) {
      const r = await runScenario(scenario, seed, { commit });
      expect(failed(r)).toEqual([]);
      plans.add(r.details.plan.filter((l) => l.includes('(random:')).join('\n'));
      expect(r.details.plan.some((l) => l.includes('(random:'))).toBe(true);
    }
    expect(plans.size).toBe(5);
  });
});
