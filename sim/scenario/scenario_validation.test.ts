import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ScenarioError } from '../fields/index.js';
import { loadScenario } from './load_scenario.js';
import { parseScenario } from './parse_scenario.js';
import { planScenario, runScenario } from './run_scenario.js';

// Line numbers below count from the first line of the text (line 1: `name: tiny`).
const BASE = `name: tiny
duration: 1m
topology:
  nodes:
    - { name: a, run: sender }
    - { name: b, run: receiver }
workload: { kind: pingpong, messages: 5 }
`;

function errorOf(text: string): ScenarioError {
  try {
    parseScenario(text, 'tiny', 'tiny.yaml');
  } catch (err) {
    expect(err).toBeInstanceOf(ScenarioError);
    return err as ScenarioError;
  }
  throw new Error('the scenario was accepted');
}

/** Asserts the message starts with `tiny.yaml:<line>:` and names the path and the value. */
function expectRejected(text: string, line: number, path: string, value: string): string {
  const message = errorOf(text).message;
  expect(message.startsWith(`tiny.yaml:${line}:`), message).toBe(true);
  expect(message).toContain(`${path}: `);
  expect(message).toContain(value);
  return message;
}

describe('scenario validation: unknown keys name the line of the key', () => {
  it('at the top level', () => {
    expectRejected(`${BASE}durration: 2m\n`, 8, 'top level', '"durration"');
  });
  it('in a topology node', () => {
    const text = BASE.replace('{ name: b, run: receiver }', '{ name: b, runs: receiver }');
    expect(expectRejected(text, 6, 'topology.nodes[1]', '"runs"')).toMatch(/^tiny\.yaml:6:18:/);
  });
  it('in network, a schedule entry, the workload and checks', () => {
    expectRejected(`${BASE}network:\n  loss: 0.1\n  los: 0.2\n`, 10, 'network', '"los"');
    expectRejected(
      `${BASE}schedule:\n  - at: 1s\n    crash: a\n    when: now\n`,
      11,
      'schedule[0]',
      '"when"',
    );
    expectRejected(
      BASE.replace('messages: 5 }', 'messages: 5,\n  mesages: 6 }'),
      8,
      'workload',
      '"mesages"',
    );
    expectRejected(
      `${BASE}checks:\n  - durability\n  - { liveness: {} , speed: 1 }\n`,
      10,
      'checks[1]',
      '"speed"',
    );
  });
  it('deep in the strata workload (workload.long_term.compactor)', () => {
    const file = readFileSync(
      new URL('../../scenarios/compactor-resharding.yaml', import.meta.url),
      'utf8',
    );
    const lines = file.split('\n');
    const at = lines.findIndex((l) => l.trim() === 'compactor:');
    expect(at).toBeGreaterThan(0);
    lines.splice(at + 1, 0, `${' '.repeat(lines[at]!.indexOf('c') + 2)}brokn: yes`);
    expectRejected(lines.join('\n'), at + 2, 'workload.long_term.compactor', '"brokn"');
  });
});

describe('scenario validation: faults naming a node not in the topology', () => {
  it('a broken build that ignores an ingester the topology does not have (before any event)', async () => {
    const file = readFileSync(
      new URL('../../scenarios/ingester-crash.yaml', import.meta.url),
      'utf8',
    );
    const text = file.replace(
      '  kind: strata\n',
      '  kind: strata\n  broken_querier: ignore_ingester\n  broken_ignored_ingester: ingester-9\n',
    );
    expect(text).not.toBe(file);
    await expect(
      runScenario(parseScenario(text, 'ingester-crash'), 1, { commit: () => 'test' }),
    ).rejects.toThrow(/broken_ignored_ingester: ingester-9 is not an ingester node/);
  });
  const cases: [string, string][] = [
    ['crash: c', 'schedule[0].crash'],
    ['restart: c', 'schedule[0].restart'],
    ['stop: c', 'schedule[0].stop'],
    ['start: c', 'schedule[0].start'],
    ['power_loss: c', 'schedule[0].power_loss'],
    ['partition: [[a], [c]]', 'schedule[0].partition[1][0]'],
    ['partition_one_way: { from: a, to: c }', 'schedule[0].partition_one_way.to'],
    ['clock_skew: { node: c, by: 1s }', 'schedule[0].clock_skew.node'],
    ['crash_mid_block_upload: { nodes: [a, c] }', 'schedule[0].crash_mid_block_upload.nodes[1]'],
  ];
  for (const [action, path] of cases) {
    it(action, () => {
      expectRejected(`${BASE}schedule:\n  - at: 1s\n    ${action}\n`, 10, path, '"c"');
    });
  }
  it('random faults name their nodes too', () => {
    expectRejected(
      `${BASE}faults:\n  crash:\n    per_minute: 1\n    nodes: [a, c]\n`,
      11,
      'faults.crash.nodes[1]',
      '"c"',
    );
  });
});

describe('scenario validation: impossible schedules', () => {
  const schedule = (...entries: string[]): string =>
    `${BASE}schedule:\n${entries.map((e) => `  - ${e}\n`).join('')}`;

  it('an entry after the end of the run', () => {
    expectRejected(
      schedule('{ at: 10s, crash: a }', '{ at: 61s, restart: a }'),
      10,
      'schedule[1].at',
      '"61s"',
    );
  });
  it('a negative time', () => {
    expectRejected(schedule('{ at: -5s, crash: a }'), 9, 'schedule[0].at', '-5s');
  });
  it('a heal with nothing to heal, checked in time order', () => {
    expectRejected(
      schedule('{ at: 20s, partition: [[a], [b]] }', '{ at: 10s, heal: true }'),
      10,
      'schedule[1].heal',
      '"10s"',
    );
    expectRejected(
      schedule('{ at: 5s, latency_spike: 3 }', '{ at: 6s, heal: true }', '{ at: 7s, heal: true }'),
      11,
      'schedule[2].heal',
      '"7s"',
    );
  });
  it('a start of a node that is up, a crash or stop of one that is down', () => {
    expectRejected(schedule('{ at: 5s, start: a }'), 9, 'schedule[0].start', '"a"');
    expect(
      expectRejected(
        schedule('{ at: 5s, crash: b }', '{ at: 6s, stop: b }'),
        10,
        'schedule[1].stop',
        '"b"',
      ),
    ).toContain('crash at "5s"');
  });
  it('accepts what may be meant: random crashes, mid-upload crashes, late starts, random partitions', () => {
    expect(() =>
      parseScenario(
        `${schedule('{ at: 5s, start: a }', '{ at: 20s, heal: true }')}faults: { crash: { per_minute: 2, nodes: [a] }, partition: { per_minute: 1 } }\n`,
        'x',
      ),
    ).not.toThrow();
    expect(() =>
      parseScenario(
        schedule('{ at: 5s, crash_mid_block_upload: { nodes: [a] } }', '{ at: 9s, start: a }'),
        'x',
      ),
    ).not.toThrow();
    expect(() =>
      parseScenario(
        schedule('{ at: 5s, start: b }').replace('run: receiver', 'run: receiver, start_at: 10s'),
        'x',
      ),
    ).not.toThrow();
    expect(() =>
      parseScenario(
        schedule(
          '{ at: 5s, crash: a }',
          '{ at: 6s, power_loss: a }',
          '{ at: 7s, restart: a }',
          '{ at: 8s, restart: a }',
        ),
        'x',
      ),
    ).not.toThrow();
  });
});

describe('scenario validation: positions', () => {
  it('YAML syntax errors and duplicate keys name the line', () => {
    expect(errorOf(`${BASE}seed: [1,\n`).message).toMatch(/^tiny\.yaml:\d+:\d+: not valid YAML/);
    expect(errorOf(`${BASE}seed: 1\nseed: 2\n`).message).toMatch(/^tiny\.yaml:9:1: not valid YAML/);
  });
  it('a missing required key points at the mapping that lacks it', () => {
    const text = BASE.replace('{ name: b, run: receiver }', '{ name: b }');
    expect(errorOf(text).message).toMatch(/^tiny\.yaml:6:7: topology\.nodes\[1\]\.run: required/);
  });
  it('a built-in scenario is named by its file', async () => {
    await expect(loadScenario('pingpong')).resolves.toMatchObject({ source: 'pingpong' });
  });
  it('every scenario in scenarios/ parses', async () => {
    const dir = new URL('../../scenarios/', import.meta.url);
    const files = readdirSync(dir).filter((f) => f.endsWith('.yaml'));
    expect(files.length).toBeGreaterThan(5);
    for (const f of files) {
      const s = await loadScenario(f.replace(/\.yaml$/, ''));
      expect(s.name, f).not.toBe('');
    }
  });
});

describe('message_loss schedule entries', () => {
  const withLoss = (entries: string): string => `${BASE}schedule:\n${entries}`;

  it('set a loss rate, go back to the configured one with off, and warn when left on', async () => {
    // Pingpong sends its five messages in the first seconds.
    const on = '  - { at: 0s, message_loss: 0.5 }\n';
    const s = parseScenario(withLoss(`${on}  - { at: 30s, message_loss: off }\n`), 'tiny');
    expect(s.schedule.map((f) => f.action)).toEqual([
      { kind: 'message_loss', rate: 0.5 },
      { kind: 'message_loss' },
    ]);
    const { plan, lines } = planScenario(s, 1);
    expect(lines.join('\n')).toContain('message loss 50%');
    expect(plan.activeAtEnd).toEqual([]);
    expect(planScenario(parseScenario(withLoss(on), 'tiny'), 1).plan.activeAtEnd).toEqual([
      'message loss 50%',
    ]);
    // The loss really drops messages, and only while it is on.
    const lossy = await runScenario(s, 1, { commit: () => 'test' });
    const clean = await runScenario(parseScenario(BASE, 'tiny'), 1, { commit: () => 'test' });
    expect(lossy.details.network.lost).toBeGreaterThan(0);
    expect(clean.details.network.lost).toBe(0);
  });

  it('rejects a rate outside [0, 1], naming the line and the value', () => {
    expectRejected(
      withLoss('  - { at: 5s, message_loss: 2 }\n'),
      9,
      'schedule[0].message_loss',
      '2',
    );
  });
});
