/**
 * Float parsing as Prometheus's text parsers do it: Go's strconv.ParseFloat, minus the Go
 * 1.13 additions (hex mantissas and underscores), which Prometheus rejects.
 */

const DECIMAL_FLOAT = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;
const INFINITY = /^([+-]?)(?:inf|infinity)$/i;
const NOT_A_NUMBER = /^nan$/i;

/** Returns the value, or a string describing the error in Prometheus's words. */
export function parseGoFloat(s: string): number | string {
  if (/[pP_]/.test(s)) return 'unsupported character in float';
  if (DECIMAL_FLOAT.test(s)) {
    const v = Number(s);
    // Go reports overflow instead of silently returning ±Inf.
    if (!Number.isFinite(v))
      return `strconv.ParseFloat: parsing ${JSON.stringify(s)}: value out of range`;
    return v;
  }
  const inf = INFINITY.exec(s);
  if (inf !== null) return inf[1] === '-' ? -Infinity : Infinity;
  if (NOT_A_NUMBER.test(s)) return NaN;
  return `strconv.ParseFloat: parsing ${JSON.stringify(s)}: invalid syntax`;
}

/**
 * Seconds (a float, as OpenMetrics writes them) to integer milliseconds exactly like
 * Prometheus: `int64(seconds * 1000)`, i.e. the float product truncated toward zero.
 * Returns undefined when the result does not fit a safe integer (Go's conversion would be
 * implementation-defined there).
 */
export function secondsToMillis(seconds: number): number | undefined {
  const ms = Math.trunc(seconds * 1000);
  if (!Number.isSafeInteger(ms)) return undefined;
  return ms === 0 ? 0 : ms; // no -0
}

/** Go-compatible rendering of a sample value: NaN, +Inf, -Inf, else the shortest round-trip form. */
export function formatGoFloat(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return '+Inf';
  if (v === -Infinity) return '-Inf';
  if (Object.is(v, -0)) return '-0';
  return String(v);
}
