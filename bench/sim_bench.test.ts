// The simulator benchmark in a tiny mode: its table rows and its determinism check. Never
// asserts on timings.
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { builtinScenarioPath, readHostTextFile } from '../sim/kernel/index.js';
import { parseBenchArgs, runBenchCommand } from './index.js';
import { simTable, type SimBenchResult } from './sim_bench.js';

async function run(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runBenchCommand(argv, {
    stdout: (s) => void (out += s),
    stderr: (s) => void (err += s),
  });
  return { code, out, err };
}

function scenarioDoc(name: string): Record<string, unknown> {
  const path = builtinScenarioPath(name);
  if (path === undefined) throw new Error(`built-in scenario ${name} not found`);
  return parseYaml(readHostTextFile(path)) as Record<string, unknown>;
}

describe('strata bench --only=sim', () => {
  it('runs each scenario, reports events/s and the ratio, and checks the runs replay', async () => {
    const { code, out, err } = await run([
      '--only=sim',
      '--quick',
      '--sim-runs=2',
      '--sim-scenarios=pingpong',
    ]);
    expect(code).toBe(0);
    expect(out).toContain('## Simulator speed');
    // pingpong's default seed: events and virtual duration are exact, the timings are not.
    expect(out).toMatch(
      /^\| pingpong \| 1 \| \d+ \| 150s \| [0-9]+ \/ [0-9]+ \| [0-9]+ \/ [0-9]+ \| [0-9.]+× \/ [0-9.]+× \| [0-9]+ \/ [0-9]+ \| yes \|$/m,
    );
    expect(err.match(/^sim: pingpong run \d\/2: /gm)).toHaveLength(2);
    expect(out).not.toContain('Bytes per sample');
  }, 60_000);

  it('shows the issue targets for the 1k scenario as met or MISSED, and failed runs as NO', () => {
    const base: SimBenchResult = {
      scenario: 'ingester-crash-1k',
      seed: 1,
      events: 20_000,
      virtualMs: 180_000,
      wallMs: [100, 400, 300],
      cpuMs: [150, 500, 350],
      bestEventsPerS: 200_000,
      bestRatio: 1800,
      medianEventsPerS: 66_667,
      medianRatio: 600,
      traceHash: 'ab',
      ok: true,
      problems: [],
    };
    const table = simTable([base], { scenarios: [], runs: 3, warmup: true });
    expect(table).toContain('| virtual/wall | ≥ 1000× | 600.0× | MISSED |');
    expect(table).toContain('| events/s | ≥ 100000 | 66667 | MISSED |');
    expect(table).toContain('| 100 / 300 |');
    expect(table).toContain('| 150 / 350 |');
    const bad = simTable([{ ...base, ok: false, problems: ['trace hash x differs from y'] }], {
      scenarios: [],
      runs: 3,
      warmup: true,
    });
    expect(bad).toContain('| NO: trace hash x differs from y |');
  });

  it('parses its flags and rejects bad ones', () => {
    const quick = parseBenchArgs(['--only=sim', '--quick']);
    expect(quick.sim).toMatchObject({ runs: 1, warmup: false });
    expect(quick.only).toEqual(new Set(['sim']));
    const full = parseBenchArgs(['--only=sim', '--sim-runs=5', '--sim-scenarios=a,b']);
    expect(full.sim).toEqual({ scenarios: ['a', 'b'], runs: 5, warmup: true });
    expect(() => parseBenchArgs(['--sim-runs=0'])).toThrow(/positive integer/);
    expect(() => parseBenchArgs(['--sim-scenarios='])).toThrow(/scenario names/);
  });

  it('ingester-crash-1k is ingester-crash with 1,000 series per tenant and nothing else changed', () => {
    const small = scenarioDoc('ingester-crash');
    const big = scenarioDoc('ingester-crash-1k');
    const scrape = (d: Record<string, unknown>): Record<string, unknown> =>
      (d.workload as { scrape: Record<string, unknown> }).scrape;
    expect(scrape(big).series).toBe(1000);
    const strip = (d: Record<string, unknown>): Record<string, unknown> => {
      const copy = structuredClone(d);
      delete copy.name;
      delete copy.description;
      delete scrape(copy).series;
      return copy;
    };
    expect(strip(big)).toEqual(strip(small));
  });
});
