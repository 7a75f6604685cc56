/**
 * Subcommand dispatch for the `strata` command. Each subcommand's implementation lives in
 * the module that owns it; this file only routes arguments and reports unknown commands.
 */
import { runServe } from '../app/index.js';
import { renderConfigReference } from '../config/index.js';
import { runSimCommand } from '../../sim/index.js';
import { runBenchCommand } from '../../bench/index.js';
import { RealClock, NodeFileSystem, createRealRandom } from '../runtime/real/index.js';
import { runTsdbTool } from '../tsdb/index.js';
import { runConformanceCommand } from './conformance.js';

export interface CliIO {
  stdout(s: string): void;
  stderr(s: string): void;
}

const USAGE = `Usage: strata [command] [flags]

Commands:
  serve        run the service (default when the first argument is a flag or absent)
  sim          run a simulation scenario: strata sim <scenario> [--seed N] [--trace FILE];
               compare two traces: strata sim diff A.jsonl B.jsonl
  tools        operator tools: strata tools config-reference | tsdb <create-blocks-from|dump>
  conformance  run Prometheus's PromQL test scripts: strata conformance promql [--engine default|thanos] [files...]
  bench        run the storage benchmarks: strata bench [--quick] [--only=<name>]

Run 'strata serve -help' for every configuration flag.
`;

/** Not-yet-built subcommands say which issue brings them instead of failing obscurely. */
const PENDING: Readonly<Record<string, string>> = {};

/** Runs one `strata` invocation and resolves with its process exit code. */
export async function runCli(argv: readonly string[], io: CliIO): Promise<number> {
  const [first, ...rest] = argv;
  if (first === 'help') {
    io.stdout(USAGE);
    return 0;
  }
  if (first !== undefined && isHelp(first)) {
    // `strata -help` is what Cortex users type for the flag list: give the commands first.
    io.stdout(`${USAGE}\nFlags of serve:\n`);
    return runServe([first], io);
  }
  if (first === undefined || first.startsWith('-')) {
    return runServe([...argv], io);
  }
  switch (first) {
    case 'serve':
      return runServe(rest, io);
    case 'sim':
      return runSimCommand(rest, io, { fs: new NodeFileSystem() });
    case 'tools':
      return runTools(rest, io);
    case 'bench':
      return runBenchCommand(rest, io);
    case 'conformance':
      return runConformanceCommand(rest, io, {
        fs: new NodeFileSystem(),
        clock: new RealClock({ unrefTimers: true }),
      });
    default: {
      const pending = PENDING[first];
      if (pending !== undefined) {
        io.stderr(`${pending}\n`);
        return 2;
      }
      io.stderr(`unknown command "${first}"\n\n${USAGE}`);
      return 2;
    }
  }
}

function isHelp(arg: string): boolean {
  return arg === '-h' || arg === '--help' || arg === '-help';
}

async function runTools(argv: readonly string[], io: CliIO): Promise<number> {
  const [tool, ...toolArgs] = argv;
  switch (tool) {
    case 'config-reference':
      io.stdout(renderConfigReference());
      return 0;
    case 'tsdb':
      return runTsdbTool(toolArgs, io, {
        fs: new NodeFileSystem(),
        clock: new RealClock({ unrefTimers: true }),
        random: createRealRandom().stream('tsdb-tools'),
      });
    default:
      io.stderr(
        `${tool === undefined ? 'missing tool name' : `unknown tool "${tool}"`}\n` +
          'Tools:\n  config-reference   print the configuration reference (docs/configuration/reference.md)\n' +
          '  tsdb               TSDB tools: create-blocks-from openmetrics, dump (strata tools tsdb help)\n',
      );
      return 2;
  }
}
