// The few Go fmt verbs whose output appears in Prometheus's parser errors: %q of a rune,
// %#U and %f. Kept apart so the lexer and parser read like the Go they mirror.

const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u;

function isGoPrintable(cp: number): boolean {
  if (cp === 0x20) return true;
  if (cp < 0x20 || cp === 0x7f) return false;
  if (cp >= 0xd800 && cp <= 0xdfff) return false;
  return PRINTABLE.test(String.fromCodePoint(cp));
}

function hex(n: number, width: number): string {
  return n.toString(16).padStart(width, '0');
}

/** Go's `%q` of a rune (strconv.QuoteRune); -1 (end of input) prints as U+FFFD like Go. */
export function goQuoteRune(cp: number): string {
  if (cp < 0 || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) cp = 0xfffd;
  switch (cp) {
    case 0x27:
      return "'\\''";
    case 0x5c:
      return "'\\\\'";
    case 0x07:
      return "'\\a'";
    case 0x08:
      return "'\\b'";
    case 0x0c:
      return "'\\f'";
    case 0x0a:
      return "'\\n'";
    case 0x0d:
      return "'\\r'";
    case 0x09:
      return "'\\t'";
    case 0x0b:
      return "'\\v'";
  }
  if (isGoPrintable(cp)) return `'${String.fromCodePoint(cp)}'`;
  if (cp < 0x80) return `'\\x${hex(cp, 2)}'`;
  if (cp < 0x10000) return `'\\u${hex(cp, 4)}'`;
  return `'\\U${hex(cp, 8)}'`;
}

/** Go's `%#U`: `U+0078 'x'`, or just `U+000A` for a non-printable rune. */
export function goUnicodeVerb(cp: number): string {
  const code =
    cp < 0 ? 'U+FFFFFFFFFFFFFFFF' : `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;
  if (cp >= 0 && isGoPrintable(cp)) return `${code} '${String.fromCodePoint(cp)}'`;
  return code;
}

/** Go's `%f` of a float64 (six decimals, `+Inf`, `-Inf`, `NaN`, no exponent). */
export function goFormatF(x: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (x === Infinity) return '+Inf';
  if (x === -Infinity) return '-Inf';
  if (Math.abs(x) < 1e21) return x.toFixed(6);
  // toFixed switches to exponent notation from 1e21; such values are integers anyway.
  return `${BigInt(x).toString()}.000000`;
}
