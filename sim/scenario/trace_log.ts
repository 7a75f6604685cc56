import type { TraceEvent } from '../kernel/index.js';

/**
 * The full event log of a run as JSON Lines (`strata sim --trace FILE`): one object per
 * executed kernel event with exactly the fields the trace hash covers, so runs with equal
 * hashes write byte-identical logs and `strata sim diff` can point at the first divergence.
 */

/** One event as its JSON line (fixed key order, no trailing newline). */
export function traceEventJson(e: TraceEvent): string {
  return JSON.stringify({
    seq: e.seq,
    time: e.time,
    node: e.node,
    incarnation: e.incarnation,
    kind: e.kind,
    detail: e.detail,
  });
}

/** The event the way the report's trace tail shows it, for humans. */
export function formatTraceEvent(e: TraceEvent): string {
  const who = e.node === '-' ? '-' : `${e.node}#${e.incarnation}`;
  return `#${e.seq} t=${e.time} ${who} ${e.kind}${e.detail === '' ? '' : ` ${e.detail}`}`;
}

// Lines are joined into chunks as they arrive: a long run has millions of events, and one
// string per event would cost far more memory than the text itself.
const CHUNK_LINES = 4096;

/** Collects the event log while a run executes; hand `record` to `runScenario`'s `onTraceEvent`. */
export class TraceLogCollector {
  private readonly chunks: string[] = [];
  private pending: string[] = [];
  private count = 0;

  readonly record = (e: TraceEvent): void => {
    this.pending.push(traceEventJson(e));
    this.count++;
    if (this.pending.length >= CHUNK_LINES) this.flushPending();
  };

  get events(): number {
    return this.count;
  }

  /** The log as chunks of complete lines, each ending in a newline. */
  textChunks(): string[] {
    this.flushPending();
    return [...this.chunks];
  }

  private flushPending(): void {
    if (this.pending.length === 0) return;
    this.chunks.push(`${this.pending.join('\n')}\n`);
    this.pending = [];
  }
}

/** A line of a trace file that is not a trace event; `line` is 1-based. */
export class TraceLogError extends Error {
  constructor(
    readonly line: number,
    message: string,
  ) {
    super(`line ${line}: ${message}`);
  }
}

/** Parses a JSON Lines event log; throws TraceLogError naming the first bad line. */
export function parseTraceLog(text: string): TraceEvent[] {
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines.map((line, i) => parseTraceLine(line, i + 1));
}

function parseTraceLine(line: string, lineNo: number): TraceEvent {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (err) {
    throw new TraceLogError(lineNo, `not valid JSON (${(err as Error).message})`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new TraceLogError(lineNo, 'not a JSON object');
  const o = value as Record<string, unknown>;
  const num = (k: string): number => {
    const v = o[k];
    if (typeof v !== 'number' || !Number.isFinite(v))
      throw new TraceLogError(lineNo, `field "${k}" must be a number`);
    return v;
  };
  const str = (k: string): string => {
    const v = o[k];
    if (typeof v !== 'string') throw new TraceLogError(lineNo, `field "${k}" must be a string`);
    return v;
  };
  return {
    seq: num('seq'),
    time: num('time'),
    node: str('node'),
    incarnation: num('incarnation'),
    kind: str('kind'),
    detail: str('detail'),
  };
}
