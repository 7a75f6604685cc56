// Argument handling of `strata tools tsdb …`, with promtool's command shapes and flags
// (`--flag=value` or `--flag value`). Returns exit codes instead of exiting so the CLI
// dispatcher and tests can run it in-process.

import type { Clock, FileSystem, RandomStream } from '../../runtime/index.js';
import { createBlocksFromOpenMetrics, DEFAULT_BLOCK_DURATION_MS } from './create_blocks.js';
import { dumpSamples } from './dump.js';
import { parseSeriesSelector } from './selector.js';

export interface TsdbToolIO {
  stdout(s: string): void;
  stderr(s: string): void;
}

export interface TsdbToolDeps {
  fs: FileSystem;
  clock: Clock;
  random: RandomStream;
}

export const TSDB_TOOLS_USAGE = `Usage: strata tools tsdb <command> [flags] [args]

Commands:
  create-blocks-from openmetrics <input file> [<output directory>=data]
      Import samples from an OpenMetrics file into TSDB blocks, one per aligned block range.
      --max-block-duration=2h   longest block to write (rounded down to 2h·3^n)
      --chunk-rules=current     chunk cutting rules: current or v2.42 (promtool 2.42's)
      -q, --quiet               do not print the created blocks
  dump [<db path>=data]
      Print every sample of the database's blocks as promtool tsdb dump does.
      --min-time=<ms>           minimum timestamp to dump
      --max-time=<ms>           maximum timestamp to dump
      --match=<selector>        series selector (default {__name__=~'(?s:.*)'})
`;

const DEFAULT_MATCH = "{__name__=~'(?s:.*)'}";

class UsageError extends Error {}

interface ParsedArgs {
  positional: string[];
  flags: Map<string, string>;
}

const BOOLEAN_FLAGS = new Set(['quiet', 'q']);

function parseArgs(argv: readonly string[], known: readonly string[]): ParsedArgs {
  const positional: string[] = [];
  const flags = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (!arg.startsWith('-') || arg === '-') {
      positional.push(arg);
      continue;
    }
    const body = arg.replace(/^--?/, '');
    const eq = body.indexOf('=');
    const name = eq < 0 ? body : body.slice(0, eq);
    if (!known.includes(name)) throw new UsageError(`unknown flag ${JSON.stringify(arg)}`);
    if (BOOLEAN_FLAGS.has(name)) {
      flags.set(name, eq < 0 ? 'true' : body.slice(eq + 1));
    } else if (eq >= 0) {
      flags.set(name, body.slice(eq + 1));
    } else {
      const value = argv[i + 1];
      if (value === undefined) throw new UsageError(`flag ${arg} needs a value`);
      flags.set(name, value);
      i++;
    }
  }
  return { positional, flags };
}

const DURATION_UNITS: Readonly<Record<string, number>> = {
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
};

/** A Go/Prometheus duration such as `2h`, `90m`, `1h30m`, `6h0m0s`, in ms. */
export function parseDurationMs(text: string): number {
  const parts = /^((\d+)(ms|s|m|h|d))+$/.test(text) ? text.match(/\d+(ms|s|m|h|d)/g) : null;
  if (parts === null) throw new UsageError(`invalid duration ${JSON.stringify(text)}`);
  let total = 0;
  for (const p of parts) {
    const unit = /(ms|s|m|h|d)$/.exec(p)?.[0] ?? '';
    total += Number.parseInt(p, 10) * (DURATION_UNITS[unit] ?? 0);
  }
  return total;
}

/** An int64 millisecond flag, clamped to the safe-integer range JavaScript can compare. */
function parseTimeFlag(name: string, text: string): number {
  if (!/^-?\d+$/.test(text)) throw new UsageError(`invalid --${name} ${JSON.stringify(text)}`);
  const big = BigInt(text);
  if (big > 9223372036854775807n || big < -9223372036854775808n) {
    throw new UsageError(`--${name} ${text} is outside the int64 range`);
  }
  if (big > BigInt(Number.MAX_SAFE_INTEGER)) return Number.MAX_SAFE_INTEGER;
  if (big < BigInt(Number.MIN_SAFE_INTEGER)) return Number.MIN_SAFE_INTEGER;
  return Number(big);
}

/** Runs `strata tools tsdb <argv>`; resolves with the exit code. */
export async function runTsdbTool(
  argv: readonly string[],
  io: TsdbToolIO,
  deps: TsdbToolDeps,
): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case 'create-blocks-from':
        return await runCreateBlocks(rest, io, deps);
      case 'dump':
        return await runDump(rest, io, deps);
      case 'help':
      case '-h':
      case '--help':
        io.stdout(TSDB_TOOLS_USAGE);
        return 0;
      default:
        throw new UsageError(
          command === undefined ? 'missing tsdb command' : `unknown tsdb command "${command}"`,
        );
    }
  } catch (err) {
    if (err instanceof UsageError) {
      io.stderr(`${err.message}\n\n${TSDB_TOOLS_USAGE}`);
      return 2;
    }
    io.stderr(`${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  }
}

async function runCreateBlocks(
  argv: readonly string[],
  io: TsdbToolIO,
  deps: TsdbToolDeps,
): Promise<number> {
  const { positional, flags } = parseArgs(argv, [
    'max-block-duration',
    'chunk-rules',
    'quiet',
    'q',
  ]);
  const [format, input, output = 'data', ...extra] = positional;
  if (format !== 'openmetrics') {
    throw new UsageError(
      format === undefined
        ? 'missing input format (only "openmetrics" is supported)'
        : `unknown input format "${format}" (only "openmetrics" is supported)`,
    );
  }
  if (input === undefined) throw new UsageError('missing <input file>');
  if (extra.length > 0) throw new UsageError(`unexpected argument "${extra[0] ?? ''}"`);
  const rules = flags.get('chunk-rules') ?? 'current';
  if (rules !== 'current' && rules !== 'v2.42') {
    throw new UsageError(`invalid --chunk-rules "${rules}" (current or v2.42)`);
  }
  const quiet = [flags.get('quiet'), flags.get('q')].some((v) => v !== undefined && v !== 'false');
  const maxBlock = flags.get('max-block-duration');
  await createBlocksFromOpenMetrics(
    {
      inputPath: input,
      outputDir: output,
      maxBlockDurationMs:
        maxBlock === undefined ? DEFAULT_BLOCK_DURATION_MS : parseDurationMs(maxBlock),
      rules,
      quiet,
    },
    {
      ...deps,
      stdout: (s) => io.stdout(s),
      stderr: (s) => io.stderr(s),
    },
  );
  return 0;
}

async function runDump(
  argv: readonly string[],
  io: TsdbToolIO,
  deps: TsdbToolDeps,
): Promise<number> {
  const { positional, flags } = parseArgs(argv, ['min-time', 'max-time', 'match']);
  const [dbPath = 'data', ...extra] = positional;
  if (extra.length > 0) throw new UsageError(`unexpected argument "${extra[0] ?? ''}"`);
  const minTime = flags.get('min-time');
  const maxTime = flags.get('max-time');
  const matchers = parseSeriesSelector(flags.get('match') ?? DEFAULT_MATCH);
  await dumpSamples(
    {
      dbPath,
      matchers,
      ...(minTime === undefined ? {} : { minTime: parseTimeFlag('min-time', minTime) }),
      ...(maxTime === undefined ? {} : { maxTime: parseTimeFlag('max-time', maxTime) }),
    },
    { fs: deps.fs, write: (s) => io.stdout(s) },
  );
  return 0;
}
