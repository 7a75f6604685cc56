/** Structured logging. Real: pino to stderr. Simulated: captured per node with virtual time. */
export interface Logger {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
  /** A logger that adds `bindings` to every line (e.g. `{ module: 'ingester' }`). */
  child(bindings: LogFields): Logger;
}

export type LogFields = Readonly<Record<string, unknown>>;

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

export const LOG_LEVELS: readonly LogLevel[] = ['debug', 'info', 'warn', 'error'];
