/**
 * The query API's parameter rules (Prometheus web/api/v1 parseTime, parseDuration,
 * parseLimitParam, parseMatchersParam) with their error texts. Times are nanoseconds since
 * the epoch held in bigints, because Prometheus compares `start`/`end` and computes the
 * 11,000-points rule at nanosecond precision and its default range bounds lie far outside
 * the range of safe JavaScript integers; they become milliseconds only when handed on.
 */
import { goQuote, type Matcher } from '../model/index.js';
import { parseDuration as parsePromDuration, parseMetricSelector } from '../promql/parser/index.js';
import { goAtoi, goParseFloat, goParseRFC3339 } from './go_parse.js';

const NS_PER_MS = 1_000_000n;
const NS_PER_S = 1_000_000_000n;
const INT64_MAX = (1n << 63n) - 1n;
const INT64_MIN = -(1n << 63n);

/**
 * Prometheus's MinTime/MaxTime (the defaults of optional `start`/`end`), in ns. Their values
 * are historical (`math.MinInt64/1000 + 62135596801` seconds) and kept for compatibility.
 */
export const MIN_TIME_NS = (-9223372036854775n + 62135596801n) * NS_PER_S;
export const MAX_TIME_NS = (9223372036854775n - 62135596801n) * NS_PER_S + 999_999_999n;

/** What `MinTime.Format(time.RFC3339Nano)` prints: clients send it back as a sentinel. */
export const MIN_TIME_FORMATTED = '-292273086-05-16T16:47:06Z';
export const MAX_TIME_FORMATTED = '292277025-08-18T07:12:54.999999999Z';

/** A parameter error: the text Prometheus puts after `invalid parameter "<name>": `. */
export class ParamError extends Error {
  override name = 'ParamError';
}

/** Go's math.Round: half away from zero. */
function goRound(x: number): number {
  const r = Math.trunc(x);
  return Math.abs(x - r) >= 0.5 ? r + Math.sign(x) : r;
}

/**
 * Prometheus `parseTime`: Unix seconds with an optional fraction (rounded to milliseconds),
 * RFC 3339 with nanoseconds, or the MinTime/MaxTime sentinels. Returns ns.
 */
export function parseTime(s: string): bigint {
  const f = goParseFloat(s);
  // Go would turn ±Inf/NaN/huge values into garbage times; we refuse them instead.
  if (f !== undefined && Number.isFinite(f) && Math.abs(f) < 2 ** 63) {
    const secs = Math.trunc(f);
    const frac = goRound((f - secs) * 1000) / 1000;
    return BigInt(secs) * NS_PER_S + BigInt(Math.trunc(frac * 1e9));
  }
  const t = goParseRFC3339(s);
  if (t !== undefined) return t;
  if (s === MIN_TIME_FORMATTED) return MIN_TIME_NS;
  if (s === MAX_TIME_FORMATTED) return MAX_TIME_NS;
  throw new ParamError(`cannot parse ${goQuote(s)} to a valid timestamp`);
}

/** Prometheus `parseTimeParam`: the default when empty, else `parseTime` with context. */
export function parseTimeParam(value: string, name: string, dflt: bigint): bigint {
  if (value === '') return dflt;
  try {
    return parseTime(value);
  } catch (err) {
    throw new ParamError(`invalid time value for '${name}': ${(err as Error).message}`);
  }
}

/**
 * Prometheus `parseDuration`: float seconds, or a Prometheus duration (`1h30m`, `5m`, `0`).
 * Returns ns (a Go time.Duration); NaN seconds become MinInt64 as Go's conversion does.
 */
export function parseDuration(s: string): bigint {
  const f = goParseFloat(s);
  if (f !== undefined) {
    const ns = f * 1e9;
    if (ns > 2 ** 63 || ns < -(2 ** 63)) {
      throw new ParamError(`cannot parse ${goQuote(s)} to a valid duration. It overflows int64`);
    }
    if (Number.isNaN(ns)) return INT64_MIN;
    const v = BigInt(Math.trunc(ns));
    return v > INT64_MAX ? INT64_MIN : v;
  }
  let ms: number;
  try {
    ms = parsePromDuration(s);
  } catch {
    throw new ParamError(`cannot parse ${goQuote(s)} to a valid duration`);
  }
  return BigInt(ms) * NS_PER_MS;
}

/** Prometheus `parseLimitParam`: 0 (no limit) when empty; non-negative integer otherwise. */
export function parseLimit(s: string): number {
  if (s === '') return 0;
  const r = goAtoi(s);
  if (!r.ok) throw new ParamError(r.error);
  if (r.value < 0) throw new ParamError('limit must be non-negative');
  return r.value;
}

/**
 * Prometheus `timestamp.FromTime`: ms since the epoch, rounded down (toward the past).
 * Values beyond the safe-integer range lose precision, as they must as JS numbers.
 */
export function nsToMs(ns: bigint): number {
  let ms = ns / NS_PER_MS;
  if (ns < 0n && ms * NS_PER_MS !== ns) ms -= 1n;
  return Number(ms);
}

/** A Go time.Duration (ns) in ms as Prometheus's engine takes it (truncated). */
export function durationToMs(ns: bigint): number {
  return Number(ns / NS_PER_MS);
}

/** Go's `t.Sub(u)`: the difference in ns, saturating at the int64 bounds. */
export function subSaturating(t: bigint, u: bigint): bigint {
  const d = t - u;
  if (d > INT64_MAX) return INT64_MAX;
  if (d < INT64_MIN) return INT64_MIN;
  return d;
}

/**
 * Prometheus `parseMatchersParam`: every `match[]` must parse as a series selector and
 * contain at least one matcher that does not match the empty string.
 */
export function parseMatchersParam(values: readonly string[]): (readonly Matcher[])[] {
  const sets = values.map((v) => parseMetricSelector(v));
  for (const set of sets) {
    if (!set.some((m) => !m.matches(''))) {
      throw new ParamError('match[] must contain at least one non-empty matcher');
    }
  }
  return sets;
}
