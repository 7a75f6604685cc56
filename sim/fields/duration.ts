/**
 * Durations in scenario files: the same Go syntax the configuration accepts (`1h30m`,
 * `250ms`, `1.5s`, `0`, plus Prometheus's `d`/`w`/`y`), or a bare number of milliseconds.
 * Parsing and formatting are the configuration's; this only adds the scenario key to errors.
 */
import {
  formatDuration as formatGoDuration,
  parseDuration as parseGoDuration,
} from '../../src/config/index.js';

export class DurationError extends Error {
  override readonly name = 'DurationError';
}

export function parseDuration(value: unknown, where: string): number {
  if (typeof value === 'number') {
    if (!Number.isFinite(value) || value < 0)
      throw new DurationError(
        `${where}: invalid duration ${value}: must be a non-negative number of milliseconds`,
      );
    return Math.round(value);
  }
  if (typeof value !== 'string')
    throw new DurationError(
      `${where}: invalid duration ${JSON.stringify(value)}: expected a string like "30s"`,
    );
  let ms: number;
  try {
    ms = parseGoDuration(value);
  } catch (err) {
    throw new DurationError(
      `${where}: invalid duration ${JSON.stringify(value)}: expected e.g. "250ms", "30s", "1m30s", "2h" (${(err as Error).message})`,
    );
  }
  if (ms < 0)
    throw new DurationError(
      `${where}: invalid duration ${JSON.stringify(value)}: must not be negative`,
    );
  return ms;
}

/** Go form, as the configuration prints durations: `1m30s`, `250ms`, `2h0m0s`, `0s`. */
export function formatDuration(ms: number): string {
  return formatGoDuration(ms);
}
