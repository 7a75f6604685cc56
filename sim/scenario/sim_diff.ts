import type { FileSystem } from '../../src/runtime/index.js';
import type { TraceEvent } from '../kernel/index.js';
import { TraceLogError, formatTraceEvent, parseTraceLog, traceEventJson } from './trace_log.js';

/**
 * `strata sim diff A.jsonl B.jsonl`: where two runs' event logs (from `--trace`) first
 * diverge. Nondeterminism shows up as two runs of the same seed whose trace hashes differ;
 * the first differing event names the node, kind and time to look at.
 */

export type TraceDiff =
  | { identical: true; events: number }
  | {
      identical: false;
      /** 1-based line (event) number of the first difference. */
      line: number;
      /** Up to `context` shared events just before it, oldest first. */
      context: TraceEvent[];
      /** Undefined when that log ended before `line` (it is a prefix of the other). */
      a: TraceEvent | undefined;
      b: TraceEvent | undefined;
      eventsA: number;
      eventsB: number;
    };

/** Compares two event logs event by event (every field, as the trace hash does). */
export function diffTraceLogs(
  a: readonly TraceEvent[],
  b: readonly TraceEvent[],
  context = 5,
): TraceDiff {
  const shared = Math.min(a.length, b.length);
  let i = 0;
  while (i < shared && traceEventJson(a[i]!) === traceEventJson(b[i]!)) i++;
  if (i === a.length && i === b.length) return { identical: true, events: a.length };
  return {
    identical: false,
    line: i + 1,
    context: a.slice(Math.max(0, i - context), i),
    a: a[i],
    b: b[i],
    eventsA: a.length,
    eventsB: b.length,
  };
}

/** The human report of a difference (or `identical: N events`), one string per line. */
export function formatTraceDiff(d: TraceDiff, nameA: string, nameB: string): string[] {
  if (d.identical) return [`identical: ${d.events} events`];
  const out = [
    `traces diverge at line ${d.line} (${nameA}: ${d.eventsA} events, ${nameB}: ${d.eventsB} events)`,
  ];
  if (d.context.length > 0) {
    out.push(`shared events before it:`);
    for (const e of d.context) out.push(`    ${formatTraceEvent(e)}`);
  }
  const width = Math.max(nameA.length, nameB.length);
  const side = (name: string, e: TraceEvent | undefined): string =>
    `  ${name.padEnd(width)} | ${e === undefined ? `(log ends after ${d.line - 1} events)` : formatTraceEvent(e)}`;
  out.push(`first difference:`, side(nameA, d.a), side(nameB, d.b));
  return out;
}

const DIFF_USAGE = `Usage: strata sim diff <A.jsonl> <B.jsonl>

Compares two event logs written by 'strata sim <scenario> --trace FILE' and prints where the
runs diverge: the first differing line, the shared events before it and both events. Exit
code 0 when identical, 1 when they differ, 2 on usage errors or unreadable files.
`;

export interface SimDiffIO {
  stdout(s: string): void;
  stderr(s: string): void;
}

/** Runs `strata sim diff`; returns the exit code. */
export async function runSimDiff(
  argv: readonly string[],
  io: SimDiffIO,
  fs: FileSystem | undefined,
): Promise<number> {
  if (argv.some((a) => a === '-h' || a === '-help' || a === '--help')) {
    io.stdout(DIFF_USAGE);
    return 0;
  }
  const flag = argv.find((a) => a.startsWith('-'));
  const usage = (message: string): number => {
    io.stderr(`strata sim diff: ${message}\n\n${DIFF_USAGE}`);
    return 2;
  };
  if (flag !== undefined) return usage(`unknown flag ${JSON.stringify(flag)}`);
  if (argv.length !== 2) return usage(`need exactly two trace files, got ${argv.length}`);
  if (fs === undefined) return usage('no file system to read the trace files from');
  const [pathA, pathB] = argv as [string, string];
  const logs: TraceEvent[][] = [];
  for (const path of [pathA, pathB]) {
    try {
      logs.push(parseTraceLog(new TextDecoder().decode(await fs.readFile(path))));
    } catch (err) {
      const why = err instanceof TraceLogError ? err.message : (err as Error).message;
      io.stderr(`strata sim diff: cannot read trace file ${path}: ${why}\n`);
      return 2;
    }
  }
  const diff = diffTraceLogs(logs[0]!, logs[1]!);
  io.stdout(
    formatTraceDiff(diff, pathA, pathB)
      .map((l) => `${l}\n`)
      .join(''),
  );
  return diff.identical ? 0 : 1;
}
