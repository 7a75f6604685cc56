import { describe, expect, it } from 'vitest';
import { parseScenario } from './parse_scenario.js';
import { resolveFaultPlan } from './fault_plan.js';
import { runScenario } from './run_scenario.js';
import { createSeededRandom } from '../../src/runtime/index.js';

const BASE = `name: mc
duration: 20s
topology:
  nodes:
    - { name: a, run: sender }
    - { name: b, run: receiver }
memcached:
  servers: [mc-1, mc-2, mc-3]
  dns: { memcached.sim: [mc-1, mc-2] }
  dns_update_interval: 5s
workload: { kind: pingpong, messages: 5 }
`;

function errorOf(text: string): string {
  try {
    parseScenario(text, 'mc.yaml');
  } catch (err) {
    return (err as Error).message;
  }
  return 'no error';
}

describe('memcached section and faults in scenarios', () => {
  it('reads the servers, DNS and every memcached action; partitions may name a server', () => {
    const s = parseScenario(
      `${BASE}schedule:
  - { at: 1s, memcached_down: mc-1 }
  - { at: 2s, memcached_up: mc-1 }
  - { at: 3s, memcached_slow: { server: mc-2, delay: 2s } }
  - { at: 4s, memcached_slow: { server: mc-2, delay: 0s } }
  - { at: 5s, memcached_wrong_values: { server: mc-3, mode: other_key } }
  - { at: 6s, memcached_wrong_values: { server: mc-3, mode: off } }
  - { at: 7s, memcached_dns: { name: memcached.sim, servers: [mc-1, mc-2, mc-3] } }
  - { at: 8s, partition: [[a], [mc-2]] }
  - { at: 9s, heal: true }
  - { at: 10s, cache_wipe: true }
`,
      'mc.yaml',
    );
    expect(s.runtime.memcached).toEqual({
      servers: ['mc-1', 'mc-2', 'mc-3'],
      dns: { 'memcached.sim': ['mc-1', 'mc-2'] },
      dnsUpdateIntervalMs: 5_000,
    });
    expect(s.schedule.map((f) => f.action)).toEqual([
      { kind: 'memcached_down', server: 'mc-1' },
      { kind: 'memcached_up', server: 'mc-1' },
      { kind: 'memcached_slow', server: 'mc-2', delayMs: 2_000 },
      { kind: 'memcached_slow', server: 'mc-2', delayMs: 0 },
      { kind: 'memcached_wrong_values', server: 'mc-3', mode: 'other_key' },
      { kind: 'memcached_wrong_values', server: 'mc-3', mode: 'off' },
      { kind: 'memcached_dns', name: 'memcached.sim', servers: ['mc-1', 'mc-2', 'mc-3'] },
      { kind: 'partition', groups: [['a'], ['mc-2']], id: 'schedule:7' },
      { kind: 'heal' },
      { kind: 'cache_wipe' },
    ]);
    const plan = resolveFaultPlan(s, createSeededRandom('x').stream('faults'));
    expect(plan.activeAtEnd).toEqual([]);
  });

  it('rejects mistakes with the file, line and key path', () => {
    const at = (entry: string): string => errorOf(`${BASE}schedule:\n  - ${entry}\n`);
    expect(at('{ at: 1s, memcached_down: mc-9 }')).toMatch(
      /^mc\.yaml:\d+:\d+: schedule\[0\]\.memcached_down: unknown memcached server "mc-9" \(servers: mc-1, mc-2, mc-3\)/,
    );
    expect(at('{ at: 1s, memcached_up: mc-1 }')).toMatch(
      /schedule\[0\]\.memcached_up: server "mc-1" is already up at "1s", so this would do nothing/,
    );
    expect(at('{ at: 1s, memcached_wrong_values: { server: mc-1, mode: lies } }')).toMatch(
      /schedule\[0\]\.memcached_wrong_values\.mode: unknown mode "lies" \(modes: garbage, other_key, off\)/,
    );
    expect(at('{ at: 1s, memcached_slow: { server: mc-1 } }')).toMatch(
      /schedule\[0\]\.memcached_slow\.delay: required/,
    );
    expect(at('{ at: 1s, memcached_dns: { name: other.sim, servers: [] } }')).toMatch(
      /schedule\[0\]\.memcached_dns\.name: unknown DNS name "other.sim" \(names: memcached.sim\)/,
    );
    expect(at('{ at: 1s, partition: [[a], [mc-7]] }')).toMatch(
      /unknown node or service "mc-7" .*memcached: mc-1, mc-2, mc-3/,
    );
    expect(
      errorOf(
        `${BASE}schedule:\n  - { at: 1s, memcached_down: mc-1 }\n  - { at: 2s, memcached_down: mc-1 }\n`,
      ),
    ).toMatch(
      /schedule\[1\]\.memcached_down: server "mc-1" is already down at "2s" \(memcached_down at "1s"\)/,
    );
    const noSection = BASE.replace(/memcached:[\s\S]*?workload/, 'workload');
    expect(errorOf(`${noSection}schedule: [ { at: 1s, memcached_down: mc-1 } ]`)).toMatch(
      /schedule\[0\]\.memcached_down: no memcached servers/,
    );
    expect(errorOf(BASE.replace('[mc-1, mc-2, mc-3]', '[mc-1, a]'))).toMatch(
      /^mc\.yaml:\d+:\d+: memcached\.servers\[1\]: a is already a node or service name/,
    );
    expect(errorOf(BASE.replace('[mc-1, mc-2] }', '[mc-1, mc-5] }'))).toMatch(
      /memcached\.dns \(memcached\.sim\): unknown memcached server "mc-5"/,
    );
  });

  it('warns about servers left down, slow or wrong; a run applies every action', async () => {
    const s = parseScenario(
      `${BASE}schedule:
  - { at: 1s, memcached_down: mc-1 }
  - { at: 2s, memcached_slow: { server: mc-2, delay: 1s } }
  - { at: 3s, memcached_wrong_values: { server: mc-3, mode: garbage } }
  - { at: 4s, memcached_dns: { name: memcached.sim, servers: [mc-3] } }
`,
      'mc.yaml',
    );
    const plan = resolveFaultPlan(s, createSeededRandom('x').stream('faults'));
    expect(plan.activeAtEnd).toEqual([
      'memcached mc-1 crashes (data lost, connections refused)',
      'memcached mc-2 answers 1000ms late',
      'memcached mc-3 answers wrong values (garbage)',
    ]);
    const report = await runScenario(s, 1, { commit: () => 'test' });
    expect(report.checks.find((c) => c.name === 'no_simulation_errors')?.verdict).toBe('pass');
    expect(report.details.plan.join('\n')).toContain('DNS memcached.sim -> [mc-3]');
  });

  it('generates random memcached faults per seed, each with its end, shifting no other kind', () => {
    const random = `faults:
  from: 1s
  until: 15s
  crash: { per_minute: 4, nodes: [b], down_for: 1s }
  memcached_down: { per_minute: 30, servers: [mc-1, mc-2], down_for: 2s }
  memcached_slow: { per_minute: 30, delay: 3s, lasts: 1s }
  memcached_wrong_values: { per_minute: 30, mode: other_key, lasts: 1s }
  memcached_flap: { per_minute: 30, lasts: 2s }
schedule:
  - { at: 19s, memcached_up: mc-1 } # allowed: random faults may have left it down or up
`;
    const s = parseScenario(`${BASE}${random}`, 'mc.yaml');
    const plan = (sc = s) => resolveFaultPlan(sc, createSeededRandom('seed').stream('faults'));
    const faults = plan().faults.filter((f) => f.origin.startsWith('random:memcached'));
    const kinds = new Set(faults.map((f) => f.action.kind));
    expect([...kinds].sort()).toEqual([
      'memcached_dns',
      'memcached_down',
      'memcached_slow',
      'memcached_up',
      'memcached_wrong_values',
    ]);
    for (const f of faults) {
      const a = f.action;
      if (a.kind === 'memcached_down') expect(['mc-1', 'mc-2']).toContain(a.server);
      // A flap leaves one of the two declared members, and its end restores both.
      if (a.kind === 'memcached_dns') expect([1, 2]).toContain(a.servers.length);
    }
    // Every random fault ends: nothing is left broken by them.
    expect(plan().activeAtEnd).toEqual([]);
    expect(plan().faults).toEqual(plan().faults);
    // The crash draws are those of the same scenario without memcached faults.
    const crashes = (sc: typeof s) => plan(sc).faults.filter((f) => f.origin === 'random:crash');
    const without = parseScenario(
      `${BASE}faults:\n  from: 1s\n  until: 15s\n  crash: { per_minute: 4, nodes: [b], down_for: 1s }\n`,
      'mc.yaml',
    );
    expect(crashes(s)).toEqual(crashes(without));
    expect(crashes(s).length).toBeGreaterThan(0);
    expect(errorOf(`${BASE}faults: { memcached_down: { per_minute: 1, servers: [x] } }`)).toMatch(
      /faults\.memcached_down\.servers\[0\]: unknown memcached server "x"/,
    );
    const noSection = BASE.replace(/memcached:[\s\S]*?workload/, 'workload');
    expect(errorOf(`${noSection}faults: { memcached_flap: { per_minute: 1 } }`)).toMatch(
      /faults\.memcached_flap: no memcached servers/,
    );
  });

  it('a run with random memcached faults applies them all without simulation errors', async () => {
    const s = parseScenario(
      `${BASE}faults:
  memcached_down: { per_minute: 60, down_for: 1s }
  memcached_slow: { per_minute: 60, lasts: 1s }
  memcached_wrong_values: { per_minute: 60, lasts: 1s }
  memcached_flap: { per_minute: 60, lasts: 1s }
`,
      'mc.yaml',
    );
    const report = await runScenario(s, 3, { commit: () => 'test' });
    expect(report.checks.find((c) => c.name === 'no_simulation_errors')?.verdict).toBe('pass');
    const plan = report.details.plan.join('\n');
    expect(plan).toContain('memcached down 60/min');
    expect(plan).toContain('memcached: servers [mc-1,mc-2,mc-3]; DNS memcached.sim -> [mc-1,mc-2]');
    expect(plan).toContain('DNS memcached.sim flaps 60/min');
    for (const what of ['crashes', 'restarts', 'answers 1000ms late', 'wrong values (garbage)'])
      expect(plan).toContain(what);
  });
});
