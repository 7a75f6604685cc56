/**
 * The Go standard-library parsers the Prometheus API relies on for its parameters, with
 * their exact acceptance rules: `strconv.ParseFloat`, `strconv.Atoi` (and its error texts),
 * and `time.Parse(time.RFC3339Nano, …)`. Kept apart from the API's own rules (params.ts) so
 * that each can be tested against Go's behaviour on its own.
 */
import { goQuote, strconvParseFloat } from '../model/index.js';

/**
 * Go's `strconv.ParseFloat(s, 64)` (the model's), as the API uses it: the value, or
 * undefined where Go returns an error (including overflow to ±Inf, Go's ErrRange).
 */
export function goParseFloat(s: string): number | undefined {
  const r = strconvParseFloat(s);
  return 'value' in r ? r.value : undefined;
}

const INT64_MAX = (1n << 63n) - 1n;
const INT64_MIN = -(1n << 63n);

/** The result of a Go parse that can fail with an error text. */
export type GoResult<T> = { ok: true; value: T } | { ok: false; error: string };

/** Go's `strconv.Atoi` on a 64-bit platform, with its error texts. */
export function goAtoi(s: string): GoResult<number> {
  const syntax = {
    ok: false,
    error: `strconv.Atoi: parsing ${goQuote(s)}: invalid syntax`,
  } as const;
  let body = s;
  if (body.startsWith('+') || body.startsWith('-')) body = body.slice(1);
  if (body === '' || !/^[0-9]+$/.test(body)) return syntax;
  const n = BigInt(s.startsWith('+') ? body : s);
  if (n > INT64_MAX || n < INT64_MIN) {
    return { ok: false, error: `strconv.Atoi: parsing ${goQuote(s)}: value out of range` };
  }
  return { ok: true, value: Number(n) };
}

function isLeap(y: number): boolean {
  return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
}

function daysIn(month: number, year: number): number {
  if (month === 2) return isLeap(year) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** Days since 1970-01-01 of a proleptic Gregorian date (Hinnant's days_from_civil). */
export function daysFromCivil(y: number, m: number, d: number): number {
  const yy = m <= 2 ? y - 1 : y;
  const era = Math.floor(yy / 400);
  const yoe = yy - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

/**
 * Go's `time.Parse(time.RFC3339Nano, s)` (its strict RFC 3339 path): `YYYY-MM-DDTHH:MM:SS`,
 * an optional fraction of any length (digits past the ninth ignored), then `Z` or `±hh:mm`.
 * Returns nanoseconds since the epoch, or undefined when Go rejects the string.
 */
export function goParseRFC3339(s: string): bigint | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(Z|[+-]\d{2}:\d{2})$/.exec(
    s,
  );
  if (m === null) return undefined;
  const [, ys, mos, ds, hs, mis, ss, frac, zone] = m as unknown as [
    string,
    string,
    string,
    string,
    string,
    string,
    string,
    string | undefined,
    string,
  ];
  const year = Number(ys);
  const month = Number(mos);
  const day = Number(ds);
  const hour = Number(hs);
  const min = Number(mis);
  const sec = Number(ss);
  if (month < 1 || month > 12 || day < 1 || day > daysIn(month, year)) return undefined;
  if (hour > 23 || min > 59 || sec > 59) return undefined;
  let offsetSec = 0;
  if (zone !== 'Z') {
    const zh = Number(zone.slice(1, 3));
    const zm = Number(zone.slice(4, 6));
    if (zh > 23 || zm > 59) return undefined;
    offsetSec = (zh * 60 + zm) * 60 * (zone[0] === '-' ? -1 : 1);
  }
  const nanos = frac === undefined ? 0n : BigInt(frac.slice(0, 9).padEnd(9, '0'));
  const unixSec =
    BigInt(daysFromCivil(year, month, day)) * 86400n +
    BigInt(hour * 3600 + min * 60 + sec) -
    BigInt(offsetSec);
  return unixSec * 1_000_000_000n + nanos;
}
