import type { LogFields, Logger, LogLevel } from '../logger.js';

export interface CapturedLine {
  level: LogLevel;
  msg: string;
  /** The child bindings merged with the call's fields. */
  fields: LogFields;
}

/** A Logger for tests: keeps every line (of itself and its children) in one shared array. */
export class CapturingLogger implements Logger {
  constructor(
    readonly lines: CapturedLine[] = [],
    private readonly bindings: LogFields = {},
  ) {}

  debug(msg: string, fields?: LogFields): void {
    this.push('debug', msg, fields);
  }

  info(msg: string, fields?: LogFields): void {
    this.push('info', msg, fields);
  }

  warn(msg: string, fields?: LogFields): void {
    this.push('warn', msg, fields);
  }

  error(msg: string, fields?: LogFields): void {
    this.push('error', msg, fields);
  }

  child(bindings: LogFields): Logger {
    return new CapturingLogger(this.lines, { ...this.bindings, ...bindings });
  }

  /** Lines at `level` (or any level) whose message contains `text`. */
  find(text: string, level?: LogLevel): CapturedLine[] {
    return this.lines.filter(
      (l) => l.msg.includes(text) && (level === undefined || l.level === level),
    );
  }

  private push(level: LogLevel, msg: string, fields: LogFields | undefined): void {
    this.lines.push({ level, msg, fields: { ...this.bindings, ...fields } });
  }
}
