// Durations as Prometheus's common/model reads and prints them (model.ParseDuration and
// Duration.String): `1y2w3d4h5m6s7ms` with units in that order, `0` allowed, milliseconds
// as the unit. Used for range/offset literals and by the printer and the HTTP API.
import { goQuote } from '../../model/index.js';

const MS_PER: readonly number[] = [
  365 * 24 * 3600 * 1000,
  7 * 24 * 3600 * 1000,
  24 * 3600 * 1000,
  3600 * 1000,
  60 * 1000,
  1000,
  1,
];

/** The largest duration in ms that a Go time.Duration (int64 nanoseconds) holds. */
export const MAX_DURATION_MS = 9223372036854;

/** Thrown with model.ParseDuration's message. */
export class DurationParseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DurationParseError';
  }
}

const UNIT_ORDER: ReadonlyMap<string, readonly [number, number]> = new Map([
  ['y', [1, MS_PER[0] as number]],
  ['w', [2, MS_PER[1] as number]],
  ['d', [3, MS_PER[2] as number]],
  ['h', [4, MS_PER[3] as number]],
  ['m', [5, MS_PER[4] as number]],
  ['s', [6, MS_PER[5] as number]],
  ['ms', [7, 1]],
]);

/**
 * model.ParseDuration: the duration in milliseconds; throws DurationParseError. Each unit at
 * most once and biggest first; an unknown unit is named in the error.
 */
export function parseDuration(s: string): number {
  if (s === '0') return 0;
  if (s === '') throw new DurationParseError('empty duration string');
  const invalid = (): DurationParseError =>
    new DurationParseError(`not a valid duration string: ${goQuote(s)}`);
  let rest = s;
  let total = 0;
  let lastPos = 0;
  while (rest !== '') {
    const digits = /^[0-9]+/.exec(rest)?.[0];
    if (digits === undefined) throw invalid();
    rest = rest.slice(digits.length);
    const unit = /^[^0-9]+/.exec(rest)?.[0];
    if (unit === undefined) throw invalid();
    rest = rest.slice(unit.length);
    const u = UNIT_ORDER.get(unit);
    if (u === undefined)
      throw new DurationParseError(`unknown unit ${goQuote(unit)} in duration ${goQuote(s)}`);
    const [pos, mult] = u;
    if (pos <= lastPos) throw invalid();
    lastPos = pos;
    const n = Number(digits);
    if (n > MAX_DURATION_MS / mult) throw new DurationParseError('duration out of range');
    total += n * mult;
    if (total > MAX_DURATION_MS) throw new DurationParseError('duration out of range');
  }
  return total;
}

const UNITS: readonly (readonly [string, number, boolean])[] = [
  ['y', MS_PER[0] as number, true],
  ['w', MS_PER[1] as number, true],
  ['d', MS_PER[2] as number, false],
  ['h', MS_PER[3] as number, false],
  ['m', MS_PER[4] as number, false],
  ['s', MS_PER[5] as number, false],
  ['ms', 1, false],
];

/**
 * model.Duration.String(): `0s`, `1h30m`, `1d`, `1w`, `500ms`. Years and weeks are used only
 * when they divide the duration exactly (90d stays 90d rather than 12w6d). Negative durations
 * print with a leading `-` (Go prints nothing for them; the printer always passes magnitudes).
 */
export function formatDuration(ms: number): string {
  if (ms < 0) return `-${formatDuration(-ms)}`;
  let rest = Math.trunc(ms);
  if (rest === 0) return '0s';
  let out = '';
  for (const [unit, mult, exact] of UNITS) {
    if (exact && rest % mult !== 0) continue;
    const v = Math.floor(rest / mult);
    if (v > 0) {
      out += `${v}${unit}`;
      rest -= v * mult;
    }
  }
  return out;
}
