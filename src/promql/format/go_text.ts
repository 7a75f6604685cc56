// Go text conventions the printer must reproduce byte for byte, because format_query output
// and the `String()` of an expression are compared with what Prometheus prints: the `@`
// timestamp (`%.3f` seconds), Go's byte length of a string (len() counts UTF-8 bytes, which
// is what the prettifier's 100-character limit measures) and strings.TrimSpace. Floats use
// the model's formatFloatF; durations come from the parser's formatDuration.

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
