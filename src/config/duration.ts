/**
 * Durations in Go syntax (`2h0m0s`, `1m30s`, `100ms`, `1.5h`, `0`) plus the Prometheus units
 * `d`, `w` and `y`, stored as integer milliseconds. Parsing works on BigInt nanoseconds so
 * that fractions (`1.5h`) and very long durations stay exact.
 */
import { ConfigError } from './errors.js';

const NS_PER_MS = 1_000_000n;

const UNIT_NANOS: ReadonlyMap<string, bigint> = new Map([
  ['ns', 1n],
  ['us', 1_000n],
  ['µs', 1_000n], // U+00B5 micro sign, as Go accepts
  ['μs', 1_000n], // U+03BC Greek mu, as Go accepts
  ['ms', NS_PER_MS],
  ['s', 1_000n * NS_PER_MS],
  ['m', 60_000n * NS_PER_MS],
  ['h', 3_600_000n * NS_PER_MS],
  ['d', 86_400_000n * NS_PER_MS],
  ['w', 7n * 86_400_000n * NS_PER_MS],
  ['y', 365n * 86_400_000n * NS_PER_MS],
]);

/** One `<number><unit>` component: digits, optional fraction, then a run of unit letters. */
const COMPONENT = /^(\d*)(?:\.(\d*))?([^\d.]+)/;

/** Parses a duration into integer milliseconds; throws ConfigError naming the value. */
export function parseDuration(text: string): number {
  const fail = (why: string): never => {
    throw new ConfigError(`invalid duration "${text}": ${why}`);
  };
  let rest = text.trim();
  let negative = false;
  if (rest.startsWith('-') || rest.startsWith('+')) {
    negative = rest.startsWith('-');
    rest = rest.slice(1);
  }
  if (rest === '') fail('empty');
  // Go special-cases a bare zero; every other number needs a unit.
  if (rest === '0') return 0;
  let nanos = 0n;
  while (rest !== '') {
    const m = COMPONENT.exec(rest);
    if (m === null) {
      if (/^[\d.]+$/.test(rest)) fail(`missing unit after "${rest}"`);
      return fail('expected <number><unit> components such as 1h30m or 100ms');
    }
    const [whole, intDigits = '', fracDigits, unit = ''] = m;
    if (intDigits === '' && (fracDigits === undefined || fracDigits === '')) {
      fail('expected <number><unit> components such as 1h30m or 100ms');
    }
    const unitNanos = UNIT_NANOS.get(unit);
    if (unitNanos === undefined)
      fail(`unknown unit "${unit}" (valid: ns, us, ms, s, m, h, d, w, y)`);
    const u = unitNanos as bigint;
    nanos += BigInt(intDigits === '' ? '0' : intDigits) * u;
    if (fracDigits !== undefined && fracDigits !== '') {
      // Truncates like Go: fractions finer than a nanosecond are dropped.
      nanos += (BigInt(fracDigits) * u) / 10n ** BigInt(fracDigits.length);
    }
    rest = rest.slice(whole.length);
  }
  if (nanos % NS_PER_MS !== 0n) fail('durations are kept in whole milliseconds');
  const ms = Number(nanos / NS_PER_MS);
  if (!Number.isSafeInteger(ms)) fail('too large');
  return negative && ms !== 0 ? -ms : ms;
}

/** Formats milliseconds like Go's time.Duration.String(): `2h0m0s`, `1m30s`, `100ms`, `0s`. */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms)) throw new ConfigError(`cannot format duration ${ms}`);
  const nanos = Number.isInteger(ms) ? BigInt(ms) * NS_PER_MS : BigInt(Math.round(ms * 1e6));
  if (nanos === 0n) return '0s';
  const sign = nanos < 0n ? '-' : '';
  const abs = nanos < 0n ? -nanos : nanos;
  return sign + formatPositiveNanos(abs);
}

function formatPositiveNanos(ns: bigint): string {
  if (ns < 1_000n) return `${ns}ns`;
  if (ns < NS_PER_MS) return `${fraction(ns, 3)}µs`;
  if (ns < 1_000n * NS_PER_MS) return `${fraction(ns, 6)}ms`;
  const totalSeconds = ns / 1_000_000_000n;
  const subSecond = ns % 1_000_000_000n;
  let out = `${totalSeconds % 60n}${fractionDigits(subSecond, 9)}s`;
  const totalMinutes = totalSeconds / 60n;
  if (totalMinutes > 0n) {
    out = `${totalMinutes % 60n}m${out}`;
    const hours = totalMinutes / 60n;
    if (hours > 0n) out = `${hours}h${out}`;
  }
  return out;
}

/** `value / 10^digits` printed with trailing zeros of the fraction removed. */
function fraction(value: bigint, digits: number): string {
  const scale = 10n ** BigInt(digits);
  return `${value / scale}${fractionDigits(value % scale, digits)}`;
}

function fractionDigits(remainder: bigint, digits: number): string {
  if (remainder === 0n) return '';
  return `.${remainder.toString().padStart(digits, '0').replace(/0+$/, '')}`;
}
