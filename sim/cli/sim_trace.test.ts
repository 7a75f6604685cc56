import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { NodeFileSystem } from '../../src/runtime/real/index.js';
import { runSimCommand } from './sim_command.js';
import { parseTraceLog } from '../scenario/index.js';

async function sim(
  ...argv: string[]
): Promise<{ code: number; stdout: string; stderr: string; lines: string[] }> {
  let stdout = '';
  let stderr = '';
  const code = await runSimCommand(
    argv,
    { stdout: (s) => (stdout += s), stderr: (s) => (stderr += s) },
    { commit: () => 'abc1234', fs: new NodeFileSystem() },
  );
  return { code, stdout, stderr, lines: stdout.trimEnd().split('\n') };
}

const tmp = mkdtempSync(join(tmpdir(), 'strata-sim-trace-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('strata sim --trace and strata sim diff', () => {
  it('writes one JSON line per executed event; equal seeds give identical logs, other seeds differ', async () => {
    const a = join(tmp, 'a.jsonl');
    const b = join(tmp, 'b.jsonl');
    const c = join(tmp, 'c.jsonl');
    const first = await sim('pingpong', '--seed', '5', '--duration', '30s', '--trace', a);
    expect(first.code).toBe(0);
    const report = JSON.parse(first.lines.at(-1)!) as { events: number; trace_hash: string };
    expect(first.stdout).toContain(`trace: ${report.events} events written to ${a}`);
    const log = parseTraceLog(readFileSync(a, 'utf8'));
    expect(log).toHaveLength(report.events);
    expect(log.map((e) => e.seq)).toEqual(log.map((_, i) => i + 1));
    expect(log[0]).toMatchObject({ kind: 'cluster.start', node: '-', incarnation: 0 });
    for (let i = 1; i < log.length; i++)
      expect(log[i]!.time).toBeGreaterThanOrEqual(log[i - 1]!.time);

    const quiet = await sim('pingpong', '--seed=5', '--duration=30s', '--trace=' + b, '--quiet');
    expect(quiet.lines).toHaveLength(1);
    expect((JSON.parse(quiet.lines[0]!) as { trace_hash: string }).trace_hash).toBe(
      report.trace_hash,
    );
    const same = await sim('diff', a, b);
    expect(same).toMatchObject({ code: 0, stderr: '' });
    expect(same.stdout).toBe(`identical: ${report.events} events\n`);

    expect((await sim('pingpong', '--seed', '6', '--duration', '30s', '--trace', c)).code).toBe(0);
    const other = await sim('diff', a, c);
    expect(other.code).toBe(1);
    expect(other.lines[0]).toMatch(new RegExp(`^traces diverge at line \\d+ \\(${a}: `));
    expect(other.stdout).toContain(`first difference:`);
    expect(other.lines.at(-2)).toMatch(new RegExp(`^  ${a} \\| #\\d+ t=\\d+ `));
    expect(other.lines.at(-1)).toMatch(new RegExp(`^  ${c} \\| `));
  });

  it('a run without --trace records the same hash (tracing does not change the run)', async () => {
    const path = join(tmp, 'h.jsonl');
    const traced = await sim(
      'pingpong',
      '--seed',
      '9',
      '--duration',
      '20s',
      '--trace',
      path,
      '--quiet',
    );
    const plain = await sim('pingpong', '--seed', '9', '--duration', '20s', '--quiet');
    const hash = (r: { lines: string[] }): string =>
      (JSON.parse(r.lines[0]!) as { trace_hash: string }).trace_hash;
    expect(hash(traced)).toBe(hash(plain));
  });

  it('exits 2 naming the file when a trace is unreadable or malformed, and on usage errors', async () => {
    const good = join(tmp, 'good.jsonl');
    writeFileSync(good, '');
    const missing = join(tmp, 'missing.jsonl');
    const r1 = await sim('diff', good, missing);
    expect(r1.code).toBe(2);
    expect(r1.stderr).toContain(`cannot read trace file ${missing}`);
    const bad = join(tmp, 'bad.jsonl');
    writeFileSync(
      bad,
      '{"seq":1,"time":0,"node":"-","incarnation":0,"kind":"x","detail":""}\nnot json\n',
    );
    const r2 = await sim('diff', bad, good);
    expect(r2.code).toBe(2);
    expect(r2.stderr).toMatch(new RegExp(`cannot read trace file ${bad}: line 2: not valid JSON`));
    expect((await sim('diff', good)).stderr).toMatch(/need exactly two trace files, got 1/);
    expect((await sim('diff', good, good, good)).code).toBe(2);
    expect((await sim('diff', '--fast', good, good)).stderr).toMatch(/unknown flag "--fast"/);
    expect(await sim('diff', good, good)).toMatchObject({
      code: 0,
      stdout: 'identical: 0 events\n',
    });
    const noValue = await sim('pingpong', '--trace');
    expect(noValue.code).toBe(2);
    expect(noValue.stderr).toMatch(/flag --trace needs a value/);
    const unwritable = await sim(
      'pingpong',
      '--duration',
      '5s',
      '--trace',
      join(tmp, 'no', 'x.jsonl'),
    );
    expect(unwritable.code).toBe(2);
    expect(unwritable.stderr).toContain(`cannot write trace file ${join(tmp, 'no', 'x.jsonl')}`);
  });
});
