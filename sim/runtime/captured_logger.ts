import type { LogFields, LogLevel, Logger } from '../../src/runtime/index.js';

export interface LogLine {
  /** Virtual time. */
  time: number;
  node: string;
  incarnation: number;
  level: LogLevel;
  msg: string;
  fields: Readonly<Record<string, unknown>>;
}

/**
 * Where every simulated node's log lines go: kept in memory, in order, stamped with virtual
 * time and the writing incarnation, so a failing run's report can show them. Bounded: the
 * oldest lines are dropped beyond `maxLines`.
 */
export class LogSink {
  private readonly buffer: LogLine[] = [];
  private droppedLines = 0;

  constructor(private readonly maxLines = 50_000) {}

  push(line: LogLine): void {
    this.buffer.push(line);
    const excess = this.buffer.length - this.maxLines;
    if (excess > 0) {
      this.buffer.splice(0, excess);
      this.droppedLines += excess;
    }
  }

  get lines(): readonly LogLine[] {
    return this.buffer;
  }

  get dropped(): number {
    return this.droppedLines;
  }

  /** The last `n` lines (of one node if given), formatted. */
  tail(n: number, node?: string): string[] {
    const selected = node === undefined ? this.buffer : this.buffer.filter((l) => l.node === node);
    return selected.slice(Math.max(0, selected.length - n)).map(formatLogLine);
  }
}

export function formatLogLine(line: LogLine): string {
  const fields = Object.entries(line.fields)
    .map(([k, v]) => `${k}=${formatValue(v)}`)
    .join(' ');
  const stamp = new Date(line.time).toISOString();
  return `${stamp} ${line.node}#${line.incarnation} ${line.level} ${line.msg}${fields === '' ? '' : ` ${fields}`}`;
}

function formatValue(v: unknown): string {
  if (v instanceof Error) return JSON.stringify(v.message);
  if (typeof v === 'string') return /^[\w.:/@-]+$/.test(v) ? v : JSON.stringify(v);
  if (typeof v === 'bigint') return v.toString();
  try {
    return JSON.stringify(v) ?? String(v);
  } catch {
    return String(v);
  }
}

/** A node incarnation's Logger: lines go to the shared sink with virtual time. */
export class CapturedLogger implements Logger {
  constructor(
    private readonly config: { node: string; incarnation: number; bindings: LogFields },
    private readonly deps: { sink: LogSink; now: () => number },
  ) {}

  debug(msg: string, fields?: LogFields): void {
    this.write('debug', msg, fields);
  }

  info(msg: string, fields?: LogFields): void {
    this.write('info', msg, fields);
  }

  warn(msg: string, fields?: LogFields): void {
    this.write('warn', msg, fields);
  }

  error(msg: string, fields?: LogFields): void {
    this.write('error', msg, fields);
  }

  child(bindings: LogFields): Logger {
    return new CapturedLogger(
      { ...this.config, bindings: { ...this.config.bindings, ...bindings } },
      this.deps,
    );
  }

  private write(level: LogLevel, msg: string, fields: LogFields | undefined): void {
    this.deps.sink.push({
      time: this.deps.now(),
      node: this.config.node,
      incarnation: this.config.incarnation,
      level,
      msg,
      fields: { ...this.config.bindings, ...fields },
    });
  }
}
