// Go text conventions the printer must reproduce byte for byte, because format_query output
// and the `String()` of an expression are compared with what Prometheus prints: float
// formatting (strconv.FormatFloat 'f', -1), the `@` timestamp (`%.3f` seconds), Go's byte
// length of a string (len() counts UTF-8 bytes, which is what the prettifier's 100-character
// limit measures) and strings.TrimSpace. Durations come from the parser's formatDuration.

/**
 * Go's strconv.FormatFloat(v, 'f', -1, 64): the shortest digits that round-trip, laid out
 * without an exponent (`1e+21` prints as `1000000000000000000000`, `1e-7` as `0.0000001`),
 * with `+Inf`, `-Inf`, `NaN` and `-0` as Go spells them.
 */
export function formatFloat(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return '+Inf';
  if (v === -Infinity) return '-Inf';
  if (v === 0) return Object.is(v, -0) ? '-0' : '0';
  const sign = v < 0 ? '-' : '';
  // toExponential() without an argument yields the shortest round-trip digits (like Go's -1
  // precision); only the layout differs, so re-place the decimal point.
  const exponential = Math.abs(v).toExponential();
  const e = exponential.indexOf('e');
  const digits = exponential.slice(0, e).replace('.', '');
  const intDigits = Number(exponential.slice(e + 1)) + 1;
  if (intDigits <= 0) return `${sign}0.${'0'.repeat(-intDigits)}${digits}`;
  if (intDigits >= digits.length) return sign + digits + '0'.repeat(intDigits - digits.length);
  return `${sign}${digits.slice(0, intDigits)}.${digits.slice(intDigits)}`;
}

/** Go's `fmt.Sprintf("%.3f", float64(ts)/1000.0)` for an `@` timestamp in milliseconds. */
export function formatAtTimestamp(ms: number): string {
  return (ms / 1000).toFixed(3);
}

/** Go's len() of the string: its UTF-8 byte count (a lone surrogate becomes 3-byte U+FFFD). */
export function utf8Length(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n += 4;
        i++;
      } else {
        n += 3;
      }
    } else {
      n += 3;
    }
  }
  return n;
}

// Go's unicode.IsSpace set (strings.TrimSpace), which differs from JavaScript's trim() in
// U+0085 (Go trims it) and U+FEFF (Go keeps it).
const GO_SPACE =
  '[\\t\\n\\v\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]';
const GO_TRIM = new RegExp(`^${GO_SPACE}+|${GO_SPACE}+$`, 'gu');

/** Go's strings.TrimSpace. */
export function trimSpace(s: string): string {
  return s.replace(GO_TRIM, '');
}
