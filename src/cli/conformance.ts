/**
 * `strata conformance promql [--engine default|thanos] [--dir DIR] [--list-skipped] [files...]`:
 * runs Prometheus's PromQL test scripts against one of Strata's engines and prints one line
 * per failing case, the skipped cases grouped by reason (or one line each with
 * --list-skipped), the counts per file and the closing `N passed, M failed, K skipped` line.
 * Exit status: 0 with no failures, 1 with failures, 2 on usage errors.
 */
import { fileURLToPath } from 'node:url';
import type { Clock, FileSystem } from '../runtime/index.js';
import {
  CONFORMANCE_ENGINES,
  conformanceParse,
  isConformanceEngineName,
  runScript,
  summarize,
  type CaseResult,
} from '../promql/promqltest/index.js';

export interface ConformanceIO {
  stdout(s: string): void;
  stderr(s: string): void;
}

export interface ConformanceCliDeps {
  readonly fs: FileSystem;
  /** Enforces the engines' query timeout. */
  readonly clock?: Clock;
  /** Where the default scripts live; found from the repository root when absent. */
  readonly defaultDir?: string;
}

export const CONFORMANCE_USAGE = `Usage: strata conformance promql [--engine default|thanos] [--dir DIR] [--list-skipped] [files...]

Runs Prometheus's PromQL test scripts (default: every *.test in
../shared/conformance/promql-testdata/ next to the repository) against a Strata engine.
  --engine NAME     engine to test: default (the default) or thanos
  --dir DIR         directory of the scripts (files given by bare name are looked up there)
  --list-skipped    print every skipped case instead of a count per reason
`;

interface Args {
  engine: string;
  dir: string | undefined;
  listSkipped: boolean;
  files: string[];
}

function parseArgs(argv: readonly string[]): Args | string {
  const args: Args = { engine: 'default', dir: undefined, listSkipped: false, files: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string;
    const [flag, inline] =
      a.startsWith('--') && a.includes('=')
        ? [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)]
        : [a, undefined];
    const value = (): string | undefined => inline ?? argv[++i];
    if (flag === '--engine' || flag === '-engine') {
      const v = value();
      if (v === undefined) return 'flag --engine needs a value';
      args.engine = v;
    } else if (flag === '--dir' || flag === '-dir') {
      const v = value();
      if (v === undefined) return 'flag --dir needs a value';
      args.dir = v;
    } else if (flag === '--list-skipped') {
      args.listSkipped = true;
    } else if (a.startsWith('-')) {
      return `unknown flag ${a}`;
    } else {
      args.files.push(a);
    }
  }
  return args;
}

function joinPath(dir: string, name: string): string {
  return dir.endsWith('/') ? `${dir}${name}` : `${dir}/${name}`;
}

function baseName(p: string): string {
  return p.slice(p.lastIndexOf('/') + 1);
}

/** The repository root: the nearest directory above this module holding package.json. */
async function findRepoRoot(fs: FileSystem): Promise<string | undefined> {
  let dir = fileURLToPath(new URL('.', import.meta.url));
  for (let i = 0; i < 6; i++) {
    dir = dir.replace(/\/+$/, '');
    if (await fs.exists(`${dir}/package.json`)) return dir;
    const up = dir.slice(0, dir.lastIndexOf('/'));
    if (up === '' || up === dir) break;
    dir = up;
  }
  return undefined;
}

async function scriptPaths(
  args: Args,
  deps: ConformanceCliDeps,
  io: ConformanceIO,
): Promise<string[] | undefined> {
  let dir = args.dir ?? deps.defaultDir;
  if (dir === undefined) {
    const root = await findRepoRoot(deps.fs);
    if (root !== undefined) dir = `${root}/../shared/conformance/promql-testdata`;
  }
  if (args.files.length > 0) {
    const out: string[] = [];
    for (const f of args.files) {
      if (await deps.fs.exists(f)) out.push(f);
      else if (dir !== undefined && !f.includes('/') && (await deps.fs.exists(joinPath(dir, f))))
        out.push(joinPath(dir, f));
      else {
        io.stderr(`conformance: no such script ${JSON.stringify(f)}\n`);
        return undefined;
      }
    }
    return out;
  }
  if (dir === undefined || !(await deps.fs.exists(dir))) {
    io.stderr(
      `conformance: script directory ${dir ?? '../shared/conformance/promql-testdata'} not found; pass --dir\n`,
    );
    return undefined;
  }
  const names = (await deps.fs.readdir(dir)).filter((n) => n.endsWith('.test')).sort();
  if (names.length === 0) {
    io.stderr(`conformance: no *.test scripts in ${dir}\n`);
    return undefined;
  }
  return names.map((n) => joinPath(dir, n));
}

function oneLine(s: string): string {
  return s.replace(/\s*\n\s*/g, ' ');
}

/** Runs `strata conformance <suite> ...` and resolves with the exit code. */
export async function runConformanceCommand(
  argv: readonly string[],
  io: ConformanceIO,
  deps: ConformanceCliDeps,
): Promise<number> {
  const [suite, ...rest] = argv;
  if (suite === undefined) {
    // A missing suite is a usage error: the text goes to stderr, as for the other errors.
    io.stderr(`no conformance suite named (available: promql)\n\n${CONFORMANCE_USAGE}`);
    return 2;
  }
  if (suite === '-h' || suite === '--help' || suite === 'help') {
    io.stdout(CONFORMANCE_USAGE);
    return 0;
  }
  if (suite !== 'promql') {
    io.stderr(`unknown conformance suite "${suite}" (available: promql)\n\n${CONFORMANCE_USAGE}`);
    return 2;
  }
  const args = parseArgs(rest);
  if (typeof args === 'string') {
    io.stderr(`${args}\n\n${CONFORMANCE_USAGE}`);
    return 2;
  }
  if (!isConformanceEngineName(args.engine)) {
    io.stderr(
      `unknown engine "${args.engine}" (available: ${Object.keys(CONFORMANCE_ENGINES).join(', ')})\n`,
    );
    return 2;
  }
  const factory = CONFORMANCE_ENGINES[args.engine];
  if (factory === undefined) {
    io.stderr(
      `engine "${args.engine}" is not available yet: the alternative (vectorised) engine has not been built (issue 4, Deliver 3)\n`,
    );
    return 2;
  }
  const paths = await scriptPaths(args, deps, io);
  if (paths === undefined) return 2;

  const engine = factory(deps.clock === undefined ? {} : { clock: deps.clock });
  const results: CaseResult[] = [];
  for (const p of paths) {
    const text = new TextDecoder().decode(await deps.fs.readFile(p));
    const fileResults = await runScript(baseName(p), text, { engine, parseExpr: conformanceParse });
    for (const r of fileResults) {
      if (r.status === 'failed')
        io.stdout(`${r.file}:${r.line}: ${r.expr}: ${oneLine(r.reason)}\n`);
      else if (r.status === 'skipped' && args.listSkipped) {
        const detail = r.detail === undefined ? '' : ` (without it: ${oneLine(r.detail)})`;
        io.stdout(`${r.file}:${r.line}: ${r.expr}: skipped: ${r.reason}${detail}\n`);
      }
    }
    results.push(...fileResults);
  }
  const summary = summarize(results);
  if (!args.listSkipped) {
    for (const [reason, n] of summary.skipReasons) io.stdout(`skipped ${n}: ${reason}\n`);
  }
  for (const [file, [p, f, s]] of summary.perFile) {
    io.stdout(`${file}: ${p} passed, ${f} failed, ${s} skipped\n`);
  }
  io.stdout(`${summary.passed} passed, ${summary.failed} failed, ${summary.skipped} skipped\n`);
  return summary.failed === 0 ? 0 : 1;
}
