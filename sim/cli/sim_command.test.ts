import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { builtinScenarioPath, readHostTextFile } from '../kernel/index.js';
import { runSimCommand } from './sim_command.js';

async function sim(
  ...argv: string[]
): Promise<{ code: number; stdout: string; stderr: string; lines: string[] }> {
  let stdout = '';
  let stderr = '';
  const code = await runSimCommand(
    argv,
    { stdout: (s) => (stdout += s), stderr: (s) => (stderr += s) },
    { commit: () => 'abc1234' },
  );
  return { code, stdout, stderr, lines: stdout.trimEnd().split('\n') };
}

const tmp = mkdtempSync(join(tmpdir(), 'strata-sim-cli-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('strata sim', () => {
  it('prints the plan first and the JSON report as the very last line; exit 0 when every check passes', async () => {
    const r = await sim('pingpong', '--seed', '7');
    expect(r.code).toBe(0);
    expect(r.lines[0]).toMatch(/^scenario pingpong/);
    expect(r.stdout).toContain('fault schedule (8 events');
    expect(r.stdout).toContain('power loss b');
    const report = JSON.parse(r.lines.at(-1)!) as Record<string, unknown>;
    expect(Object.keys(report)).toEqual([
      'scenario',
      'seed',
      'commit',
      'node_version',
      'events',
      'virtual_ms',
      'wall_ms',
      'virtual_wall_ratio',
      'events_per_s',
      'trace_hash',
      'checks',
      'passed',
      'replay',
    ]);
    expect(report).toMatchObject({
      scenario: 'pingpong',
      seed: 7,
      commit: 'abc1234',
      passed: true,
      replay: 'strata sim pingpong --seed 7',
    });
    expect((report.checks as { verdict: string }[]).every((c) => c.verdict === 'pass')).toBe(true);
    expect(r.stdout.endsWith('\n')).toBe(true);
  });

  it('--quiet prints only the JSON line; --seed=N and --duration work and show in the replay command', async () => {
    const r = await sim('pingpong', '--seed=3', '--duration', '90s', '--quiet');
    expect(r.code).toBe(0);
    expect(r.lines).toHaveLength(1);
    const report = JSON.parse(r.lines[0]!) as { virtual_ms: number; replay: string; seed: number };
    expect(report.virtual_ms).toBe(90_000);
    expect(report.seed).toBe(3);
    expect(report.replay).toBe('strata sim pingpong --seed 3 --duration 1m30s');
  });

  it('replaying the printed command gives the same trace hash', async () => {
    const first = JSON.parse((await sim('pingpong', '--seed', '11', '--quiet')).lines[0]!) as {
      trace_hash: string;
      replay: string;
    };
    const argv = first.replay.split(' ').slice(2);
    const again = JSON.parse((await sim(...argv, '--quiet')).lines[0]!) as { trace_hash: string };
    expect(again.trace_hash).toBe(first.trace_hash);
  });

  it('exits 1 when a check fails, showing failing checks, logs and the replay command before the JSON line', async () => {
    const file = join(tmp, 'buggy.yaml');
    writeFileSync(
      file,
      readHostTextFile(builtinScenarioPath('pingpong')!).replace(
        'kind: pingpong',
        'kind: pingpong\n  bug: no_dedupe',
      ),
    );
    const r = await sim(file, '--seed', '2');
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/FAIL exactly_once: /);
    expect(r.stdout).toContain('last log lines:');
    expect(r.stdout).toContain(`replay: strata sim ${file} --seed 2`);
    const report = JSON.parse(r.lines.at(-1)!) as {
      passed: boolean;
      checks: { name: string; verdict: string }[];
    };
    expect(report.passed).toBe(false);
    expect(report.checks.find((c) => c.name === 'exactly_once')!.verdict).toBe('fail');
  });

  it('exits 2 with a clear message on usage errors', async () => {
    const cases: Array<[string[], RegExp]> = [
      [[], /missing scenario/],
      [['pingpong', '--seed', 'x'], /invalid --seed "x"/],
      [['pingpong', '--seed'], /flag --seed needs a value/],
      [['pingpong', '--duration', 'long'], /invalid duration "long"/],
      [['pingpong', '--fast'], /unknown flag "--fast"/],
      [['pingpong', 'other'], /only one scenario/],
      [['nope'], /no scenario file or built-in scenario named "nope"/],
    ];
    for (const [argv, message] of cases) {
      const r = await sim(...argv);
      expect(r.code, argv.join(' ')).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(r.stdout).toBe('');
    }
    const bad = join(tmp, 'bad.yaml');
    writeFileSync(
      bad,
      'name: x\nduration: 1s\ntopology: { nodes: [] }\nworkload: { kind: pingpong }\n',
    );
    const r = await sim(bad);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/topology\.nodes: at least one node is required/);
  });

  it('prints usage with the built-in scenarios on --help', async () => {
    const r = await sim('--help');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/Usage: strata sim <scenario-file-or-builtin-name>/);
    expect(r.stdout).toMatch(/Built-in scenarios: .*pingpong/);
  });
});
