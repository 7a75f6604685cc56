import { describe, expect, it } from 'vitest';
import { createSeededRandom } from '../../src/runtime/index.js';
import { builtinScenarioPath } from '../kernel/index.js';
import { generateRandomFaults, resolveFaultPlan } from './fault_plan.js';
import { loadScenario } from './load_scenario.js';
import { DEFAULT_EPOCH_MS, parseScenario } from './parse_scenario.js';
import type { RandomFaultProfile } from './scenario_types.js';

const MINIMAL = `
name: tiny
duration: 10s
topology:
  nodes:
    - { name: a, run: sender }
    - { name: b, run: receiver }
workload: { kind: pingpong, messages: 5 }
`;

function errorOf(text: string): string {
  try {
    parseScenario(text, 'test.yaml');
  } catch (err) {
    return (err as Error).message;
  }
  return 'no error';
}

describe('parseScenario', () => {
  it('fills defaults: seed 1, epoch 2026-01-01, every workload check plus no_simulation_errors', () => {
    const s = parseScenario(MINIMAL, 'tiny.yaml');
    expect(s.seed).toBe(1);
    expect(s.epochMs).toBe(DEFAULT_EPOCH_MS);
    expect(s.epochMs).toBe(Date.parse('2026-01-01T00:00:00Z'));
    expect(s.durationMs).toBe(10_000);
    expect(s.checks.map((c) => c.name)).toEqual([
      'durability',
      'exactly_once',
      'no_phantoms',
      'liveness',
      'no_simulation_errors',
    ]);
    expect(s.schedule).toEqual([]);
    expect(s.source).toBe('tiny.yaml');
  });

  it('reads the schedule in time order with every action kind', () => {
    const s = parseScenario(
      `${MINIMAL}
epoch: 2030-06-01T12:00:00Z
schedule:
  - { at: 30s, heal: true }
  - { at: 10s, partition: [[a], [b, kv]] }
  - { at: 20s, partition_one_way: { from: a, to: b } }
  - { at: 40s, power_loss: b }
  - { at: 45s, restart: b }
  - { at: 46s, clock_skew: { node: a, by: -2s } }
  - { at: 47s, service_down: objstore }
  - { at: 48s, latency_spike: 5 }
  - { at: 49s, cache_wipe: true }
  - { at: 50s, objstore_errors: 0.4 }
  - { at: 51s, objstore_throttle: { ops_per_second: 2, burst: 4 } }
  - { at: 52s, objstore_throttle: off }
`.replace('duration: 10s', 'duration: 60s'),
      'x',
    );
    expect(s.epochMs).toBe(Date.UTC(2030, 5, 1, 12));
    expect(s.schedule.map((f) => [f.atMs, f.action.kind])).toEqual([
      [10_000, 'partition'],
      [20_000, 'partition_one_way'],
      [30_000, 'heal'],
      [40_000, 'power_loss'],
      [45_000, 'restart'],
      [46_000, 'clock_skew'],
      [47_000, 'service_down'],
      [48_000, 'latency_spike'],
      [49_000, 'cache_wipe'],
      [50_000, 'objstore_errors'],
      [51_000, 'objstore_throttle'],
      [52_000, 'objstore_throttle'],
    ]);
    expect(s.schedule[5]!.action).toEqual({ kind: 'clock_skew', node: 'a', skewMs: -2_000 });
    expect(s.schedule.slice(9).map((f) => f.action)).toEqual([
      { kind: 'objstore_errors', rate: 0.4 },
      { kind: 'objstore_throttle', limit: { opsPerSecond: 2, burst: 4 } },
      { kind: 'objstore_throttle' },
    ]);
  });

  it('rejects mistakes with messages naming the key path and value', () => {
    expect(errorOf(`${MINIMAL}\nnetwork: { los: 0.1 }`)).toMatch(/network: unknown key "los"/);
    expect(errorOf(`${MINIMAL}\nnetwork: { loss: 1.5 }`)).toMatch(
      /network\.loss: must be at most 1, got 1\.5/,
    );
    expect(errorOf(`${MINIMAL}\nschedule: [ { at: 5s, crash: c } ]`)).toMatch(
      /schedule\[0\]\.crash: unknown node "c"/,
    );
    expect(errorOf(`${MINIMAL}\nschedule: [ { at: soon, heal: true } ]`)).toMatch(
      /schedule\[0\]\.at: invalid duration "soon"/,
    );
    expect(errorOf(`${MINIMAL}\nschedule: [ { at: 1s, heal: true, crash: a } ]`)).toMatch(
      /schedule\[0\]: need exactly one action.*heal and crash/,
    );
    expect(errorOf(`${MINIMAL}\nchecks: [durability, speed]`)).toMatch(
      /checks\[1\]: unknown check "speed"/,
    );
    expect(errorOf(MINIMAL.replace('kind: pingpong', 'kind: pong'))).toMatch(
      /workload\.kind: unknown workload "pong"/,
    );
    expect(errorOf(MINIMAL.replace('messages: 5', 'messages: 5, bug: typo'))).toMatch(
      /workload\.bug: unknown bug "typo"/,
    );
    expect(errorOf(MINIMAL.replace('run: receiver', 'run: sender'))).toMatch(
      /exactly one node running sender, got 2 \(a, b\)/,
    );
    expect(errorOf(MINIMAL.replace('run: receiver', 'run: storer'))).toMatch(
      /unknown role "storer"/,
    );
    expect(errorOf(`${MINIMAL}\nnetwork: { latency: { distribution: pareto } }`)).toMatch(
      /network\.latency\.distribution: unknown distribution "pareto"/,
    );
    expect(errorOf(`${MINIMAL}\nepoch: yesterday`)).toMatch(
      /epoch: expected an RFC 3339 time.*"yesterday"/,
    );
    expect(errorOf(`${MINIMAL}\nschedule: [ { at: 1s, objstore_errors: 2 } ]`)).toMatch(
      /schedule\[0\]\.objstore_errors: must be at most 1, got 2/,
    );
    expect(
      errorOf(`${MINIMAL}\nschedule: [ { at: 1s, objstore_throttle: { burst: 2 } } ]`),
    ).toMatch(/schedule\[0\]\.objstore_throttle\.ops_per_second: required/);
    expect(errorOf('name: [')).toMatch(/not valid YAML/);
  });

  it('loads built-in scenarios by name, by path and from text', async () => {
    const byName = await loadScenario('pingpong');
    expect(byName.name).toBe('pingpong');
    expect(byName.source).toBe('pingpong');
    const path = builtinScenarioPath('pingpong')!;
    expect((await loadScenario(path)).source).toBe(path);
    expect((await loadScenario(MINIMAL)).name).toBe('tiny');
    await expect(loadScenario('no-such-scenario')).rejects.toThrow(
      /no scenario file or built-in scenario named "no-such-scenario".*pingpong/,
    );
  });

  it('every built-in scenario file parses', async () => {
    for (const name of ['pingpong', 'pingpong-chaos', 'pingpong-torn-writes']) {
      expect((await loadScenario(name)).name).toBe(name);
    }
  });
});

describe('fault plans', () => {
  const nodes = ['a', 'b', 'c'];
  const profile: RandomFaultProfile = {
    fromMs: 0,
    untilMs: 600_000,
    crash: { perMinute: 2, nodes: ['a', 'b'], downForMs: 2_000 },
    partition: { perMinute: 1, lastsMs: 5_000 },
    latencySpike: { perMinute: 1, multiplier: 10, lastsMs: 3_000 },
  };
  const gen = (p: RandomFaultProfile, seed = '7') =>
    generateRandomFaults(p, nodes, createSeededRandom(seed).stream('faults'));

  it('is deterministic per seed and differs across seeds', () => {
    expect(gen(profile)).toEqual(gen(profile));
    expect(gen(profile, '8')).not.toEqual(gen(profile));
  });

  it('removing one fault kind does not shift the others', () => {
    const { latencySpike: _dropped, ...withoutSpikes } = profile;
    const all = gen(profile).filter((f) => f.origin !== 'random:latency_spike');
    expect(gen(withoutSpikes)).toEqual(all);
  });

  it('pairs every fault with its end and keeps starts inside the window', () => {
    const faults = gen(profile);
    const crashes = faults.filter((f) => f.action.kind === 'crash');
    const restarts = faults.filter((f) => f.action.kind === 'restart');
    expect(crashes.length).toBeGreaterThan(5);
    expect(restarts.length).toBe(crashes.length);
    for (const f of crashes) expect(f.atMs).toBeLessThan(600_000);
    const partitions = faults.filter((f) => f.action.kind === 'partition');
    for (const p of partitions) {
      if (p.action.kind !== 'partition') continue;
      const [x, y] = p.action.groups;
      expect(x!.length + y!.length).toBe(3);
      expect(x!.length).toBeGreaterThan(0);
      expect(y!.length).toBeGreaterThan(0);
    }
  });

  it('warns about faults the schedule never ends', () => {
    const s = parseScenario(
      `${MINIMAL}\nschedule: [ { at: 1s, partition_one_way: { from: b, to: a } }, { at: 2s, crash: a }, { at: 3s, service_down: kv }, { at: 4s, objstore_errors: 0.5 }, { at: 5s, objstore_throttle: { ops_per_second: 1 } } ]`,
      'x',
    );
    const plan = resolveFaultPlan(s, createSeededRandom('1').stream('faults'));
    expect(plan.activeAtEnd).toEqual([
      'partition one-way b -> a (schedule:0)',
      'crash a without restart',
      'kv unavailable',
      'object store errors 50%',
      'object store throttled to 1 ops/s burst 1',
    ]);
    const ended = parseScenario(
      `${MINIMAL}\nschedule: [ { at: 1s, objstore_errors: 0.5 }, { at: 2s, objstore_errors: 0 }, { at: 3s, objstore_throttle: { ops_per_second: 1 } }, { at: 4s, heal: true } ]`,
      'x',
    );
    expect(resolveFaultPlan(ended, createSeededRandom('1').stream('faults')).activeAtEnd).toEqual(
      [],
    );
    const healed = parseScenario(
      `${MINIMAL}\nschedule: [ { at: 1s, partition: [[a], [b]] }, { at: 2s, heal: true } ]`,
      'x',
    );
    expect(resolveFaultPlan(healed, createSeededRandom('1').stream('faults')).activeAtEnd).toEqual(
      [],
    );
  });

  it('merges explicit and random faults in time order and finds when faults are over', () => {
    const s = parseScenario(
      `${MINIMAL.replace('duration: 10s', 'duration: 5m')}
schedule: [ { at: 10s, crash: b }, { at: 12s, restart: b } ]
faults: { from: 5s, until: 60s, partition: { per_minute: 12, lasts: 4s } }
`,
      'x',
    );
    const plan = resolveFaultPlan(s, createSeededRandom('3').stream('faults'));
    const times = plan.faults.map((f) => f.atMs);
    expect(times).toEqual([...times].sort((x, y) => x - y));
    expect(plan.faults.some((f) => f.origin === 'schedule')).toBe(true);
    expect(plan.faults.some((f) => f.origin === 'random:partition')).toBe(true);
    expect(plan.quietAtMs).toBe(Math.max(...times));
  });
});

describe('docs/simulation.md', () => {
  it('its full scenario example parses and passes its checks', async () => {
    const { readFileSync } = await import('node:fs');
    const md = readFileSync(new URL('../../docs/simulation.md', import.meta.url), 'utf8');
    const block = md.split('## Scenario files')[1]!.split('```yaml\n')[1]!.split('```')[0]!;
    const scenario = parseScenario(block, 'docs/simulation.md');
    expect(scenario.schedule).toHaveLength(22);
    const { runScenario } = await import('./run_scenario.js');
    const report = await runScenario(scenario, 1, { commit: () => 'docs' });
    expect(report.checks.filter((c) => c.verdict === 'fail')).toEqual([]);
  });
});
