/**
 * End to end: the single binary started as a newcomer starts it (the `npm start` command
 * line, with its single-process configuration) answers the always-on endpoints, and
 * Prometheus's own promtool accepts its /metrics output.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SERVER_NODE_FLAGS } from '../src/cli/index.js';
import { parse as parseYaml } from 'yaml';
import {
  ensureBuilt,
  REPO_ROOT,
  startStrata,
  waitFor200,
  type StrataProcess,
} from './strata-process.js';

beforeAll(() => ensureBuilt(), 300_000);

/**
 * The Node flags and the arguments `npm start` passes, read from package.json so the test
 * follows it: `node [--node-flag ...] dist/src/cli/main.js <args>`.
 */
function npmStart(): { nodeArgs: string[]; args: string[] } {
  const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as {
    scripts: Record<string, string>;
  };
  const words = pkg.scripts['start']!.split(/\s+/);
  const script = words.indexOf('dist/src/cli/main.js');
  if (words[0] !== 'node' || script < 1)
    throw new Error(`npm start is not "node [flags] dist/src/cli/main.js ...": ${words.join(' ')}`);
  return {
    nodeArgs: words.slice(1, script),
    args: words
      .slice(script + 1)
      .map((w) =>
        w.replace(/^(-config\.file=)(.*)$/, (_, f: string, p: string) => f + join(REPO_ROOT, p)),
      ),
  };
}

/** Every leaf path of a YAML mapping, e.g. `server.http_listen_port`. */
function leafPaths(value: unknown, prefix = ''): string[] {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return [prefix];
  return Object.entries(value as Record<string, unknown>).flatMap(([k, v]) =>
    leafPaths(v, prefix === '' ? k : `${prefix}.${k}`),
  );
}

describe('single binary (npm start configuration)', () => {
  let strata: StrataProcess;

  beforeAll(async () => {
    const { nodeArgs, args } = npmStart();
    strata = await startStrata(args, { nodeArgs });
    const status = await waitFor200(`${strata.url}/ready`, 30_000);
    if (status !== 200)
      throw new Error(`/ready never answered 200 (last ${status}):\n${strata.output()}`);
  }, 40_000);

  afterAll(async () => {
    await strata?.stop();
    if (strata !== undefined) rmSync(strata.cwd, { recursive: true, force: true });
  });

  it('answers /ready with 200', async () => {
    const res = await fetch(`${strata.url}/ready`);
    expect(res.status).toBe(200);
  });

  it('runs with the server’s Node flags, as npm start passes them', () => {
    const cmdline = readFileSync(`/proc/${strata.proc.pid}/cmdline`, 'utf8').split('\0');
    for (const flag of SERVER_NODE_FLAGS) expect(cmdline).toContain(flag);
  });

  it('shows in /config?mode=diff exactly the keys the single-process config sets', async () => {
    const res = await fetch(`${strata.url}/config?mode=diff`);
    expect(res.status).toBe(200);
    const diff = parseYaml(await res.text()) as unknown;
    const file = parseYaml(
      readFileSync(join(REPO_ROOT, 'docs/configuration/single-process.yaml'), 'utf8'),
    ) as unknown;
    // Keys the file sets to their default value do not show in a diff; every shown key must
    // come from the file (the test passes the same ports and addresses the file sets).
    const fileKeys = new Set(leafPaths(file));
    const diffKeys = leafPaths(diff).filter(
      (k) => k !== 'server.http_listen_address' && k !== 'server.grpc_listen_address',
    );
    expect(diffKeys.length).toBeGreaterThan(0);
    for (const k of diffKeys) expect(fileKeys, `unexpected key in diff: ${k}`).toContain(k);
  });

  it('serves /metrics that promtool accepts', async () => {
    const res = await fetch(`${strata.url}/metrics`);
    expect(res.status).toBe(200);
    const body = await res.text();
    expect(body).toContain('process_cpu_seconds_total');
    const check = spawnSync('promtool', ['check', 'metrics'], { input: body, encoding: 'utf8' });
    expect(check.stdout + check.stderr).toBe('');
    expect(check.status).toBe(0);
  });

  it('lists every module of -target=all on /services', async () => {
    const res = await fetch(`${strata.url}/services`);
    expect(res.status).toBe(200);
    const html = await res.text();
    for (const m of [
      'server',
      'ring',
      'runtime-config',
      'overrides',
      'distributor',
      'ingester',
      'querier',
      'query-frontend',
      'store-gateway',
      'compactor',
      'ruler',
      'alertmanager',
      'purger',
    ]) {
      expect(html, `module ${m}`).toContain(m);
    }
  });

  it('runs without tenant headers when auth is disabled', async () => {
    const res = await fetch(`${strata.url}/config?mode=defaults`);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('auth_enabled: true');
  });

  it('stops cleanly on SIGTERM', async () => {
    const code = await strata.stop('SIGTERM');
    expect(code).toBe(0);
    expect(strata.output()).not.toMatch(/did not stop/);
  });
});

describe('strata command', () => {
  it('refuses a chunks storage engine with an explanation', () => {
    const r = spawnSync(
      process.execPath,
      [join(REPO_ROOT, 'dist/src/cli/main.js'), '-store.engine=chunks'],
      { encoding: 'utf8' },
    );
    expect(r.status).not.toBe(0);
    expect(r.stderr).toMatch(/chunks/);
    expect(r.stderr).toMatch(/tsdb/);
  });

  it('lists every flag with -help and exits 0', () => {
    const r = spawnSync(process.execPath, [join(REPO_ROOT, 'dist/src/cli/main.js'), '-help'], {
      encoding: 'utf8',
    });
    expect(r.status).toBe(0);
    expect(r.stdout + r.stderr).toContain('-experimental.tsdb.block-ranges-period');
    expect(r.stdout + r.stderr).toContain('-compactor.deletion-delay');
  });

  it('runs a PromQL conformance script through the built binary', () => {
    const r = spawnSync(
      process.execPath,
      [join(REPO_ROOT, 'dist/src/cli/main.js'), 'conformance', 'promql', 'literals.test'],
      { encoding: 'utf8' },
    );
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout.trim().split('\n').at(-1)).toMatch(
      /^[1-9]\d* passed, 0 failed(, \d+ skipped)?$/,
    );
  });

  it('explains the conformance usage when no suite is named', () => {
    const r = spawnSync(
      process.execPath,
      [join(REPO_ROOT, 'dist/src/cli/main.js'), 'conformance'],
      {
        encoding: 'utf8',
      },
    );
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/strata conformance promql/);
  });

  it('rejects an unknown command', () => {
    const r = spawnSync(process.execPath, [join(REPO_ROOT, 'dist/src/cli/main.js'), 'frobnicate'], {
      encoding: 'utf8',
    });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/unknown command "frobnicate"/);
  });

  it('prints the same trace_hash for the same seed twice and a different one for another seed', () => {
    const run = (seed: number): { trace_hash: string; passed: boolean } => {
      const r = spawnSync(
        process.execPath,
        [join(REPO_ROOT, 'dist/src/cli/main.js'), 'sim', 'pingpong', '--seed', String(seed)],
        {
          encoding: 'utf8',
          cwd: REPO_ROOT,
        },
      );
      expect(r.status, r.stderr).toBe(0);
      const lines = r.stdout.trimEnd().split('\n');
      expect(lines.length).toBeGreaterThan(1); // the plan comes first
      return JSON.parse(lines[lines.length - 1]!) as { trace_hash: string; passed: boolean };
    };
    const a = run(7);
    const b = run(7);
    const c = run(8);
    expect(a.passed).toBe(true);
    expect(a.trace_hash).toBe(b.trace_hash);
    expect(c.trace_hash).not.toBe(a.trace_hash);
  });
});
