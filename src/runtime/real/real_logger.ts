import { pino, type DestinationStream, type Logger as PinoLogger } from 'pino';
import type { LogFields, Logger, LogLevel } from '../logger.js';

export interface RealLoggerOptions {
  level: LogLevel;
  /** Where JSON lines go; standard error by default (synchronously, so a crash loses nothing). */
  destination?: DestinationStream;
}

/**
 * pino behind the Logger interface: one JSON object per line with `level` as a label, `time`
 * in epoch milliseconds, `msg`, and the merged fields of every `child` plus the call.
 */
export function createRealLogger(opts: RealLoggerOptions): Logger {
  const base = pino(
    { level: opts.level, formatters: { level: (label) => ({ level: label }) } },
    opts.destination ?? pino.destination({ dest: 2, sync: true }),
  );
  return new PinoBackedLogger(base);
}

class PinoBackedLogger implements Logger {
  constructor(private readonly pino: PinoLogger) {}

  debug(msg: string, fields?: LogFields): void {
    this.pino.debug(fields ?? {}, msg);
  }

  info(msg: string, fields?: LogFields): void {
    this.pino.info(fields ?? {}, msg);
  }

  warn(msg: string, fields?: LogFields): void {
    this.pino.warn(fields ?? {}, msg);
  }

  error(msg: string, fields?: LogFields): void {
    this.pino.error(fields ?? {}, msg);
  }

  child(bindings: LogFields): Logger {
    return new PinoBackedLogger(this.pino.child(bindings));
  }
}
