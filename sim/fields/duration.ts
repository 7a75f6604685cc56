/**
 * Durations in scenario files: Go syntax (`1h30m`, `250ms`, `1.5s`, `0`), also `d` and `w`
 * like Prometheus, or a bare number of milliseconds. Results are whole milliseconds.
 */
const UNIT_MS: Readonly<Record<string, number>> = {
  ms: 1,
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 604_800_000,
};

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
  const text = value.trim();
  if (text === '0') return 0;
  const re = /(\d+(?:\.\d+)?)(ms|s|m|h|d|w)/gy;
  let total = 0;
  let consumed = 0;
  let match: RegExpExecArray | null;
  while ((match = re.exec(text)) !== null) {
    total += Number(match[1]) * UNIT_MS[match[2]!]!;
    consumed = re.lastIndex;
  }
  if (consumed === 0 || consumed !== text.length) {
    throw new DurationError(
      `${where}: invalid duration ${JSON.stringify(value)}: expected e.g. "250ms", "30s", "1m30s", "2h"`,
    );
  }
  return Math.round(total);
}

/** Compact human form: `1m30s`, `250ms`, `2h`, `0s`. */
export function formatDuration(ms: number): string {
  if (ms === 0) return '0s';
  let rest = Math.round(ms);
  let out = '';
  for (const [unit, size] of [
    ['h', 3_600_000],
    ['m', 60_000],
    ['s', 1_000],
  ] as const) {
    if (rest >= size) {
      out += `${Math.floor(rest / size)}${unit}`;
      rest %= size;
    }
  }
  if (rest > 0) out += `${rest}ms`;
  return out;
}
