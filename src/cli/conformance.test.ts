import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { NodeFileSystem } from '../runtime/real/index.js';
import { runConformanceCommand } from './conformance.js';
import { runCli } from './run.js';

const dir = mkdtempSync(join(tmpdir(), 'strata-conformance-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

writeFileSync(
  join(dir, 'good.test'),
  `load 1m
  m{a="1"} 1 2 3

eval instant at 2m m
  m{a="1"} 3

eval range from 0 to 2m step 1m m * 2
  {a="1"} 2 4 6

eval instant at 0 info(m)
`,
);
writeFileSync(
  join(dir, 'bad.test'),
  `load 1m
  m 1

eval instant at 0 m
  m 2
`,
);

async function cli(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runConformanceCommand(
    argv,
    { stdout: (s) => (out += s), stderr: (s) => (err += s) },
    { fs: new NodeFileSystem(), defaultDir: dir },
  );
  return { code, out, err };
}

describe('strata conformance promql', () => {
  it('runs the scripts of a directory and exits 1 on a failure', async () => {
    const r = await cli(['promql', '--dir', dir]);
    expect(r.code).toBe(1);
    expect(r.out).toContain(
      'bad.test:4: m: instant query: expected 2 for {__name__="m"} but got 1\n',
    );
    expect(r.out).toContain('skipped 1: info() function');
    expect(r.out).toContain('good.test: 2 passed, 0 failed, 1 skipped\n');
    expect(r.out.endsWith('2 passed, 1 failed, 1 skipped\n')).toBe(true);
  });

  it('runs only the named files (bare names are looked up in the directory) and exits 0 when all pass', async () => {
    const r = await cli(['promql', '--engine=default', 'good.test', '--list-skipped']);
    expect(r.code).toBe(0);
    expect(r.out).toContain('good.test:10: info(m): skipped: info() function');
    expect(r.out.endsWith('2 passed, 0 failed, 1 skipped\n')).toBe(true);
    const full = await cli(['promql', join(dir, 'good.test')]);
    expect(full.code).toBe(0);
  });

  it('finds ../shared/conformance/promql-testdata from the repository root by default', async () => {
    let out = '';
    const code = await runConformanceCommand(
      ['promql', 'collision.test'],
      { stdout: (s) => (out += s), stderr: (s) => (out += s) },
      { fs: new NodeFileSystem() },
    );
    expect(out).toMatch(/^collision\.test: \d+ passed/m);
    expect(code).toBe(out.includes(' 0 failed') ? 0 : 1);
  });

  it('runs the scripts on the alternative engine with --engine thanos', async () => {
    const r = await cli(['promql', '--engine', 'thanos', 'good.test']);
    expect(r.code).toBe(0);
    expect(r.out.endsWith('2 passed, 0 failed, 1 skipped\n')).toBe(true);
  });

  it('exits 2 on usage errors', async () => {
    expect((await cli(['promql', '--engine', 'fast'])).err).toContain(
      'unknown engine "fast" (available: default, thanos)',
    );
    expect((await cli(['promql', 'missing.test'])).err).toContain('no such script "missing.test"');
    expect((await cli(['promql', '--bogus'])).code).toBe(2);
    expect((await cli(['tsdb'])).err).toContain('unknown conformance suite "tsdb"');
    const none = await cli([]);
    expect(none.code).toBe(2);
    expect(none.err).toContain('no conformance suite named (available: promql)');
    expect((await cli(['--help'])).code).toBe(0);
    expect((await cli(['promql', '--dir', join(dir, 'nope')])).err).toContain(
      'not found; pass --dir',
    );
  });

  it('is reachable from the strata dispatcher', async () => {
    let out = '';
    const code = await runCli(['conformance', 'promql', '--engine', 'thanos', 'collision.test'], {
      stdout: (s) => (out += s),
      stderr: (s) => (out += s),
    });
    expect(out).toMatch(/^collision\.test: \d+ passed/m);
    expect(code).toBe(out.includes(' 0 failed') ? 0 : 1);
  });
});
