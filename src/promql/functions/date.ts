// minute, hour, day_of_week, day_of_month, day_of_year, days_in_month, month, year of
// Prometheus 3 functions.go: UTC calendar fields of Unix seconds, from the sample values or,
// without an argument, from the evaluation time. Calendar arithmetic is done on integers
// (proleptic Gregorian, like Go's time package) so that years far outside JavaScript's Date
// range still come out as Go computes them.
import { Labels } from '../../model/index.js';
import type { FunctionCall } from '../function_call.js';

export interface CivilTime {
  readonly year: number;
  /** 1–12 */
  readonly month: number;
  /** 1–31 */
  readonly day: number;
  /** 1–366 */
  readonly yearDay: number;
  /** 0 = Sunday */
  readonly weekday: number;
  readonly hour: number;
  readonly minute: number;
}

const SECONDS_PER_DAY = 86400n;

/** Go's int64(f) on amd64: truncation, and 0x8000000000000000 for NaN and out-of-range values. */
function goInt64(f: number): bigint {
  if (Number.isNaN(f) || f >= 9223372036854775808 || f < -9223372036854775808)
    return -9223372036854775808n;
  return BigInt(Math.trunc(f));
}

/**
 * Go's time package counts seconds from year -292277022399 in a uint64; Unix times before
 * that wrap around into the far future (time.Unix(math.MinInt64, 0) is in year 292277026596).
 */
const GO_EARLIEST_UNIX = -9223372028741760000n;

function goWrapUnix(seconds: bigint): bigint {
  return seconds < GO_EARLIEST_UNIX ? seconds + 18446744073709551616n : seconds;
}

function floorDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return a % b !== 0n && a < 0n !== b < 0n ? q - 1n : q;
}

function isLeap(year: bigint): boolean {
  return (year % 4n === 0n && year % 100n !== 0n) || year % 400n === 0n;
}

/** The UTC calendar fields of a Unix time in whole seconds (Howard Hinnant's civil_from_days). */
export function civilFromUnix(seconds: bigint): CivilTime {
  const days = floorDiv(seconds, SECONDS_PER_DAY);
  const secOfDay = Number(seconds - days * SECONDS_PER_DAY);
  const z = days + 719468n;
  const era = floorDiv(z, 146097n);
  const doe = z - era * 146097n;
  const yoe = (doe - doe / 1460n + doe / 36524n - doe / 146096n) / 365n;
  const doy = doe - (365n * yoe + yoe / 4n - yoe / 100n);
  const mp = (5n * doy + 2n) / 153n;
  const day = Number(doy - (153n * mp + 2n) / 5n + 1n);
  const month = Number(mp < 10n ? mp + 3n : mp - 9n);
  const yearBig = yoe + era * 400n + (month <= 2 ? 1n : 0n);
  const cumulative = [0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334];
  const yearDay = cumulative[month - 1]! + day + (month > 2 && isLeap(yearBig) ? 1 : 0);
  // 1970-01-01 was a Thursday (4).
  const weekday = Number(((days % 7n) + 11n) % 7n);
  return {
    year: Number(yearBig),
    month,
    day,
    yearDay,
    weekday,
    hour: Math.floor(secOfDay / 3600),
    minute: Math.floor((secOfDay % 3600) / 60),
  };
}

export function daysInMonth(year: number, month: number): number {
  if (month === 2) return isLeap(BigInt(year)) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** Prometheus's dateWrapper. */
function dateFunction(field: (t: CivilTime) => number): FunctionCall {
  return (vectorVals, _matrixVals, _args, enh) => {
    if (vectorVals.length === 0) {
      // Go: time.Unix(enh.Ts/1000, 0) — integer division truncates toward zero.
      const t = civilFromUnix(BigInt(enh.ts) / 1000n);
      enh.out.push({ metric: Labels.EMPTY, t: enh.ts, f: field(t) });
      return enh.out;
    }
    for (const el of vectorVals[0] ?? [])
      enh.out.push({
        metric: el.metric,
        t: enh.ts,
        f: field(civilFromUnix(goWrapUnix(goInt64(el.f)))),
        dropName: true,
      });
    return enh.out;
  };
}

export const funcMinute = dateFunction((t) => t.minute);
export const funcHour = dateFunction((t) => t.hour);
export const funcDayOfWeek = dateFunction((t) => t.weekday);
export const funcDayOfMonth = dateFunction((t) => t.day);
export const funcDayOfYear = dateFunction((t) => t.yearDay);
export const funcDaysInMonth = dateFunction((t) => daysInMonth(t.year, t.month));
export const funcMonth = dateFunction((t) => t.month);
export const funcYear = dateFunction((t) => t.year);
