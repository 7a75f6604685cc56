/**
 * `npm run sim:canaries [-- --seeds N] [--seed S] [--scenario S]... [--jobs J] [--verbose]`:
 * runs the scenario suite against every canary (or those `STRATA_SIM_CANARY` names) and the
 * unbroken build, in worker processes, and prints the table of how many seeds each scenario
 * catches each canary on. Exits 1 when a canary is caught nowhere or the unbroken build
 * fails a seed, 2 on a usage error.
 */
import { fileURLToPath } from 'node:url';
import { forkHostWorker, hostCpuCount, hostWallClockMs } from '../kernel/index.js';
import { CANARY_ENV, DEFAULT_SUITE, canariesFromEnv } from './registry.js';
import type { CanaryCase, CanaryOutcome } from './run_case.js';
import { runCanarySweep } from './runner.js';
import {
  baselineFailures,
  buildCanaryTable,
  formatCanaryExamples,
  formatCanaryMarkdown,
  uncaughtCanaries,
} from './table.js';

const DEFAULT_SEEDS = 100;

interface Args {
  seeds: number[];
  scenarios: string[];
  jobs: number;
  verbose: boolean;
}

class UsageError extends Error {}

function positiveInt(flag: string, value: string | undefined, min: number): number {
  const n = Number(value);
  if (value === undefined || !Number.isInteger(n) || n < min)
    throw new UsageError(`${flag}: expected an integer >= ${min}, got ${JSON.stringify(value)}`);
  return n;
}

function parseArgs(argv: readonly string[]): Args {
  let seeds: number[] | undefined;
  const scenarios: string[] = [];
  let jobs = hostCpuCount();
  let verbose = false;
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i] as string;
    switch (flag) {
      case '--seeds': {
        const n = positiveInt(flag, argv[++i], 1);
        seeds = Array.from({ length: n }, (_, k) => k + 1);
        break;
      }
      case '--seed':
        seeds = [positiveInt(flag, argv[++i], 0)];
        break;
      case '--scenario':
        scenarios.push(...(argv[++i] ?? '').split(',').filter((s) => s !== ''));
        break;
      case '--jobs':
        jobs = positiveInt(flag, argv[++i], 1);
        break;
      case '--verbose':
        verbose = true;
        break;
      default:
        throw new UsageError(
          `unknown argument ${JSON.stringify(flag)} (usage: sim:canaries [--seeds N] [--seed S] [--scenario S]... [--jobs J] [--verbose]; ${CANARY_ENV}=a,b selects canaries)`,
        );
    }
  }
  return {
    seeds: seeds ?? Array.from({ length: DEFAULT_SEEDS }, (_, k) => k + 1),
    scenarios: scenarios.length > 0 ? scenarios : [...DEFAULT_SUITE],
    jobs,
    verbose,
  };
}

async function main(): Promise<number> {
  let args: Args;
  let canaries;
  try {
    args = parseArgs(process.argv.slice(2));
    canaries = canariesFromEnv(process.env[CANARY_ENV]);
  } catch (err) {
    process.stderr.write(`sim:canaries: ${(err as Error).message}\n`);
    return 2;
  }
  const workerPath = fileURLToPath(new URL('./worker.js', import.meta.url));
  const workers = Array.from({ length: args.jobs }, () => forkHostWorker(workerPath));
  const idle = [...workers];
  const execute = async (c: CanaryCase): Promise<CanaryOutcome> => {
    const w = idle.pop();
    if (w === undefined) throw new Error('no idle worker (more cases in flight than workers)');
    try {
      const outcome = (await w.request(c)) as CanaryOutcome;
      idle.push(w);
      return outcome;
    } catch (err) {
      // The run threw or its worker died (a host failure such as running out of memory is
      // not a check catching the canary): counted apart; the worker is replaced.
      w.close();
      const fresh = forkHostWorker(workerPath);
      workers.push(fresh);
      idle.push(fresh);
      const message = err instanceof Error ? err.message : String(err);
      return {
        ...c,
        applicable: true,
        failed: [],
        error: message.split('\n')[0] ?? '',
        events: 0,
      };
    }
  };
  const started = hostWallClockMs();
  const log = (line: string): boolean => process.stdout.write(`${line}\n`);
  log(
    `canaries: ${canaries.map((c) => c.name).join(', ')}; scenarios: ${args.scenarios.join(', ')}; seeds ${args.seeds[0]}..${args.seeds.at(-1)}; ${args.jobs} worker(s)`,
  );
  let outcomes: CanaryOutcome[];
  try {
    outcomes = await runCanarySweep(
      { scenarios: args.scenarios, canaries, seeds: args.seeds },
      {
        execute,
        jobs: args.jobs,
        onOutcome: (o, done, total) => {
          if (args.verbose && o.applicable)
            log(
              `[${done}/${total}] ${o.canary} x ${o.scenario} seed ${o.seed}: ${o.error !== undefined ? `ERROR ${o.error}` : o.failed.length === 0 ? 'pass' : `FAIL ${o.firstFailure ?? ''}`}`,
            );
        },
      },
    );
  } finally {
    for (const w of workers) w.close();
  }
  const table = buildCanaryTable(outcomes, args.scenarios);
  log('');
  log(formatCanaryMarkdown(table));
  log('');
  for (const line of formatCanaryExamples(table)) log(line);
  const uncaught = uncaughtCanaries(table);
  const baseline = baselineFailures(table);
  const runs = outcomes.filter((o) => o.applicable).length;
  const errors = outcomes.filter((o) => o.error !== undefined);
  for (const o of errors)
    log(`ERROR ${o.canary} x ${o.scenario} seed ${o.seed}: ${o.error ?? ''} (not counted)`);
  const events = outcomes.reduce((n, o) => n + o.events, 0);
  log(
    `${runs} runs, ${events} events in ${((hostWallClockMs() - started) / 1000).toFixed(1)}s; ` +
      `uncaught: ${uncaught.length === 0 ? 'none' : uncaught.join(', ')}; unbroken build failed ${baseline} run(s); ${errors.length} run(s) errored`,
  );
  return uncaught.length === 0 && baseline === 0 && errors.length === 0 ? 0 : 1;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(
      `sim:canaries: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
    );
    process.exitCode = 2;
  },
);
