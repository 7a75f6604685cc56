// A logger that drops everything: benchmarks measure the storage engine, not log output.
import type { Logger } from '../src/runtime/index.js';

export const silentLogger: Logger = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
  child: () => silentLogger,
};
