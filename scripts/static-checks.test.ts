/**
 * The build gates as tests, so `npm test` fails (and counts a failure) when the code does
 * not typecheck, breaks a lint rule (including the runtime-boundary rule), or is not
 * formatted.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

const root = new URL('..', import.meta.url).pathname;

function run(script: string, args: string[]): { status: number | null; output: string } {
  const r = spawnSync(process.execPath, [`${root}node_modules/${script}`, ...args], {
    cwd: root,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}

describe('static checks', () => {
  it('typechecks (tsc --noEmit)', () => {
    const r = run('typescript/bin/tsc', ['-p', 'tsconfig.json', '--noEmit']);
    expect(r.output).toBe('');
    expect(r.status).toBe(0);
  }, 300_000);

  it('passes ESLint, including the runtime-boundary rule', () => {
    const r = run('eslint/bin/eslint.js', ['.', '--max-warnings=0']);
    expect(r.output).toBe('');
    expect(r.status).toBe(0);
  }, 300_000);

  it('is formatted with Prettier', () => {
    const r = run('prettier/bin/prettier.cjs', ['--check', '--log-level=warn', '.']);
    expect(r.output).toBe('');
    expect(r.status).toBe(0);
  }, 300_000);
});
