import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The simulator's narrow window onto the host machine, used around a run and never by
 * simulated code: reading scenario files, finding the built-in scenarios, the git commit and
 * Node version for reports, and the wall clock for the virtual/wall time ratio.
 */

const moduleDir = dirname(fileURLToPath(import.meta.url));
const wallClock = globalThis.performance;

export function hostWallClockMs(): number {
  return wallClock.now();
}

export function hostNodeVersion(): string {
  return process.version;
}

export function hostFileExists(path: string): boolean {
  return existsSync(path);
}

export function readHostTextFile(path: string): string {
  return readFileSync(path, 'utf8');
}

/** The repository's `scenarios/` directory: the nearest one above this module, else under the working directory. */
export function builtinScenarioDir(): string | undefined {
  for (let dir = moduleDir; ;) {
    const candidate = join(dir, 'scenarios');
    if (existsSync(join(dir, 'package.json')) && existsSync(candidate)) return candidate;
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  const cwdCandidate = resolve('scenarios');
  return existsSync(cwdCandidate) ? cwdCandidate : undefined;
}

/** Names of the built-in scenarios (`scenarios/<name>.yaml`), sorted. */
export function listBuiltinScenarios(): string[] {
  const dir = builtinScenarioDir();
  if (dir === undefined) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith('.yaml'))
    .map((f) => f.slice(0, -'.yaml'.length))
    .sort();
}

export function builtinScenarioPath(name: string): string | undefined {
  const dir = builtinScenarioDir();
  if (dir === undefined || !/^[\w.-]+$/.test(name)) return undefined;
  const path = join(dir, `${name}.yaml`);
  return existsSync(path) ? path : undefined;
}

/** `git rev-parse HEAD` of the repository holding this module, or `unknown`. */
export function hostGitCommit(): string {
  try {
    const out = execFileSync('git', ['rev-parse', 'HEAD'], {
      cwd: moduleDir,
      stdio: ['ignore', 'pipe', 'ignore'],
      timeout: 5_000,
    });
    const commit = out.toString('utf8').trim();
    return /^[0-9a-f]{7,64}$/.test(commit) ? commit : 'unknown';
  } catch {
    return 'unknown';
  }
}
