import type { FileSystem } from '../../src/runtime/index.js';
import { ScenarioError, formatDuration, parseDuration } from '../fields/index.js';
import { listBuiltinScenarios } from '../kernel/index.js';
import { loadSwarmProfileScenario, runSwarmCommand, withSwarmProfile } from '../swarm/index.js';
import {
  TraceLogCollector,
  formatFirstFailure,
  loadScenario,
  reportJsonLine,
  runScenario,
  runSimDiff,
  writeHtmlReport,
  type RunScenarioOptions,
} from '../scenario/index.js';

export interface SimCommandIO {
  stdout(s: string): void;
  stderr(s: string): void;
}

export interface SimCommandDeps {
  /** Source of the report's `commit` field (default: git). */
  commit?: () => string;
  /** Host files for --trace and `sim diff` (the CLI passes the real file system). */
  fs?: FileSystem;
}

const USAGE = `Usage: strata sim <scenario-file-or-builtin-name> [--seed N] [--duration D] [--trace FILE] [--html FILE] [--quiet]
       strata sim --swarm N [--scenario-family F] [--jobs J] [--seed FIRST] [--html DIR]
       strata sim diff <A.jsonl> <B.jsonl>

Runs a deterministic simulation scenario and judges its checks. Prints the resolved plan,
then (on failure) the failing checks, the last log lines and events, and last of all one
JSON line with the report. Exit code 0 when every check passes, 1 when one fails, 2 on
usage errors.

  --seed N        seed of every random stream (default: the scenario's seed)
  --duration D    run for D of virtual time instead of the scenario's duration (e.g. 90s)
  --trace FILE    write every executed event to FILE as JSON Lines (compare runs with
                  'strata sim diff A.jsonl B.jsonl')
  --html FILE     write a self-contained HTML page of the run to FILE: a timeline per
                  node (faults, pushes, blocks) with the checks' verdicts, a failing
                  check's violations highlighted; with --swarm, a directory that gets
                  one page per failed run (the failure lines name them)
  --quiet         print only the JSON report line
  --swarm N       run N seeds (FIRST, FIRST+1, …; default 1), each with a fault mix drawn
                  from its seed within a family's bounds, in worker processes; prints a
                  line per failed run with its replay command, then a summary
  --scenario-family F   swarm one family only (default: cycle through all but long-term)
  --jobs J        swarm worker processes (default: the number of cores; 0: in process)
  --swarm-profile P     run the scenario with the fault mix of swarm profile P
                  (<family>:<seed>, as printed by a swarm's replay command)
`;

interface SimArgs {
  scenario: string;
  seed: number | undefined;
  durationMs: number | undefined;
  trace: string | undefined;
  html?: string;
  quiet: boolean;
  swarm: { runs?: number; family?: string; jobs?: number; profile?: string };
}

class UsageError extends Error {}

function parseArgs(argv: readonly string[]): SimArgs | 'help' {
  let scenario: string | undefined;
  let seed: number | undefined;
  let durationMs: number | undefined;
  let trace: string | undefined;
  let html: string | undefined;
  let quiet = false;
  const swarm: SimArgs['swarm'] = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const eq = arg.indexOf('=');
    const name = arg.startsWith('-') && eq !== -1 ? arg.slice(0, eq) : arg;
    const inline = arg.startsWith('-') && eq !== -1 ? arg.slice(eq + 1) : undefined;
    const value = (): string => {
      if (inline !== undefined) return inline;
      const next = argv[++i];
      if (next === undefined) throw new UsageError(`flag ${name} needs a value`);
      return next;
    };
    switch (name) {
      case '-h':
      case '-help':
      case '--help':
        return 'help';
      case '--seed':
      case '-seed': {
        const v = value();
        if (!/^\d+$/.test(v) || !Number.isSafeInteger(Number(v)))
          throw new UsageError(`invalid --seed ${JSON.stringify(v)}: need a non-negative integer`);
        seed = Number(v);
        break;
      }
      case '--duration':
      case '-duration': {
        const v = value();
        try {
          durationMs = parseDuration(v, '--duration');
        } catch (err) {
          throw new UsageError((err as Error).message);
        }
        if (durationMs <= 0)
          throw new UsageError(`invalid --duration ${JSON.stringify(v)}: must be positive`);
        break;
      }
      case '--trace':
      case '-trace': {
        const v = value();
        if (v === '') throw new UsageError('--trace needs a file name');
        trace = v;
        break;
      }
      case '--html':
      case '-html': {
        const v = value();
        if (v === '') throw new UsageError('--html needs a file name');
        html = v;
        break;
      }
      case '--quiet':
      case '-quiet':
        if (inline !== undefined) throw new UsageError('--quiet takes no value');
        quiet = true;
        break;
      case '--swarm':
        swarm.runs = count(name, value(), 1);
        break;
      case '--jobs':
        swarm.jobs = count(name, value(), 0);
        break;
      case '--scenario-family':
        swarm.family = value();
        break;
      case '--swarm-profile':
        swarm.profile = value();
        break;
      default:
        if (arg.startsWith('-')) throw new UsageError(`unknown flag ${JSON.stringify(arg)}`);
        if (scenario !== undefined)
          throw new UsageError(
            `only one scenario may be given, got ${JSON.stringify(scenario)} and ${JSON.stringify(arg)}`,
          );
        scenario = arg;
    }
  }
  if (swarm.runs !== undefined) {
    if (scenario !== undefined || durationMs !== undefined || trace !== undefined)
      throw new UsageError(
        '--swarm takes no scenario, --duration or --trace (use --scenario-family)',
      );
    // With a swarm, --html names the directory that gets one page per failed run.
    return {
      scenario: '',
      seed,
      durationMs,
      trace,
      quiet,
      swarm,
      ...(html === undefined ? {} : { html }),
    };
  }
  if (swarm.family !== undefined || swarm.jobs !== undefined)
    throw new UsageError('--scenario-family and --jobs go with --swarm N');
  if (scenario === undefined)
    throw new UsageError('missing scenario: give a scenario file or a built-in name');
  const out: SimArgs = { scenario, seed, durationMs, trace, quiet, swarm };
  if (html !== undefined) out.html = html;
  return out;
}

function count(flag: string, v: string, min: number): number {
  if (!/^\d+$/.test(v) || !Number.isSafeInteger(Number(v)) || Number(v) < min)
    throw new UsageError(`invalid ${flag} ${JSON.stringify(v)}: need an integer >= ${min}`);
  return Number(v);
}

/** `strata sim …`: returns the exit code (0 all checks pass, 1 a check failed, 2 usage error). */
export async function runSimCommand(
  argv: readonly string[],
  io: SimCommandIO,
  deps: SimCommandDeps = {},
): Promise<number> {
  if (argv[0] === 'diff') return runSimDiff(argv.slice(1), io, deps.fs);
  let args: SimArgs | 'help';
  try {
    args = parseArgs(argv);
  } catch (err) {
    io.stderr(`strata sim: ${(err as Error).message}\n\n${USAGE}${builtinsLine()}`);
    return 2;
  }
  if (args === 'help') {
    io.stdout(USAGE + builtinsLine());
    return 0;
  }
  if (args.swarm.runs !== undefined) {
    const { runs, family, jobs } = args.swarm;
    if (args.html !== undefined && deps.fs === undefined) {
      io.stderr('strata sim: --html needs a file system to write to\n');
      return 2;
    }
    return runSwarmCommand(
      {
        runs,
        firstSeed: args.seed ?? 1,
        ...(family === undefined ? {} : { family }),
        ...(jobs === undefined ? {} : { jobs }),
        ...(args.html === undefined || deps.fs === undefined
          ? {}
          : { html: { dir: args.html, fs: deps.fs } }),
      },
      io,
    );
  }
  if (args.trace !== undefined && deps.fs === undefined) {
    io.stderr('strata sim: --trace needs a file system to write to\n');
    return 2;
  }
  if (args.html !== undefined && deps.fs === undefined) {
    io.stderr('strata sim: --html needs a file system to write to\n');
    return 2;
  }
  let scenario;
  try {
    scenario =
      args.swarm.profile === undefined
        ? await loadScenario(args.scenario)
        : loadSwarmProfileScenario(args.scenario, args.swarm.profile);
  } catch (err) {
    if (err instanceof ScenarioError) {
      io.stderr(`strata sim: ${err.message}\n`);
      return 2;
    }
    io.stderr(
      `strata sim: cannot read scenario ${JSON.stringify(args.scenario)}: ${(err as Error).message}\n`,
    );
    return 2;
  }
  const { quiet } = args;
  const opts: RunScenarioOptions = {
    onPlan: (lines) => {
      if (!quiet) io.stdout(lines.map((l) => `${l}\n`).join(''));
    },
  };
  if (args.durationMs !== undefined) opts.durationMs = args.durationMs;
  if (deps.commit !== undefined) opts.commit = deps.commit;
  const traceLog = args.trace === undefined ? undefined : new TraceLogCollector();
  if (traceLog !== undefined) opts.onTraceEvent = traceLog.record;
  const report = await runScenario(scenario, args.seed ?? scenario.seed, opts);
  if (args.swarm.profile !== undefined)
    report.replay = withSwarmProfile(report.replay, args.swarm.profile);
  if (traceLog !== undefined && args.trace !== undefined && deps.fs !== undefined) {
    try {
      await writeTraceLog(deps.fs, args.trace, traceLog);
    } catch (err) {
      io.stderr(`strata sim: cannot write trace file ${args.trace}: ${(err as Error).message}\n`);
      return 2;
    }
    if (!quiet) io.stdout(`trace: ${traceLog.events} events written to ${args.trace}\n`);
  }
  if (args.html !== undefined && deps.fs !== undefined) {
    try {
      await writeHtmlReport(report, deps.fs, args.html);
    } catch (err) {
      io.stderr(`strata sim: cannot write HTML report ${args.html}: ${(err as Error).message}\n`);
      return 2;
    }
    if (!quiet) io.stdout(`html: report written to ${args.html}\n`);
  }
  if (!quiet) {
    const out: string[] = [''];
    out.push(
      `ran ${report.events} events, ${formatDuration(report.virtual_ms)} virtual in ${report.wall_ms}ms wall (x${report.virtual_wall_ratio}, ${report.events_per_s} events/s); ${report.details.summary}`,
    );
    for (const c of report.checks)
      out.push(`${c.verdict === 'pass' ? 'PASS' : 'FAIL'} ${c.name}: ${c.detail}`);
    if (!report.passed) {
      out.push('', 'last log lines:', ...report.details.logTail.slice(-60).map((l) => `  ${l}`));
      out.push('', 'last events:', ...report.details.traceTail.slice(-30).map((l) => `  ${l}`));
      if (report.first_failure !== undefined)
        out.push('', ...formatFirstFailure(report.first_failure, formatDuration));
      out.push('', `replay: ${report.replay}`);
    }
    io.stdout(out.map((l) => `${l}\n`).join(''));
  }
  io.stdout(`${reportJsonLine(report)}\n`);
  return report.passed ? 0 : 1;
}

/** Writes the log chunk by chunk, so a long run's log never has to be one string. */
async function writeTraceLog(fs: FileSystem, path: string, log: TraceLogCollector): Promise<void> {
  const file = await fs.open(path, 'w');
  try {
    const encoder = new TextEncoder();
    for (const chunk of log.textChunks()) await file.append(encoder.encode(chunk));
  } finally {
    await file.close();
  }
}

function builtinsLine(): string {
  const names = listBuiltinScenarios();
  return names.length === 0 ? '' : `\nBuilt-in scenarios: ${names.join(', ')}\n`;
}
