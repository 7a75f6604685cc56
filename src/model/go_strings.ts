/**
 * Go string semantics on JavaScript strings: byte-wise (UTF-8) ordering and `%q` quoting.
 * Go compares strings by UTF-8 bytes, which equals code point order; JavaScript compares
 * UTF-16 code units, which puts U+E000..U+FFFF after astral characters. Sorting must follow Go
 * so that our index files, postings and series order match Prometheus's.
 */

/** Maps a UTF-16 unit so that unit order equals code point order at the first difference. */
function codePointOrderUnit(c: number): number {
  return c >= 0xe000 ? c - 0x800 : c + 0x2000;
}

/** Go's strings.Compare (UTF-8 byte order): negative, zero or positive. */
export function compareGoStrings(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x !== y) {
      if (x >= 0xd800 && y >= 0xd800) {
        x = codePointOrderUnit(x);
        y = codePointOrderUnit(y);
      }
      return x < y ? -1 : 1;
    }
  }
  return a.length < b.length ? -1 : a.length > b.length ? 1 : 0;
}

/** True when the string has no lone surrogate (the JavaScript analogue of valid UTF-8). */
export function isWellFormedUnicode(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0xd800 || c > 0xdfff) continue;
    if (c >= 0xdc00) return false;
    const d = s.charCodeAt(i + 1);
    if (!(d >= 0xdc00 && d <= 0xdfff)) return false;
    i++;
  }
  return true;
}

const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u;

function hex(n: number, width: number): string {
  return n.toString(16).padStart(width, '0');
}

/** Go's strconv.IsPrint for a code point (letters, marks, numbers, punctuation, symbols, space). */
function isGoPrintable(cp: number): boolean {
  if (cp === 0x20) return true;
  if (cp < 0x20 || cp === 0x7f) return false;
  if (cp >= 0xd800 && cp <= 0xdfff) return false;
  return PRINTABLE.test(String.fromCodePoint(cp));
}

/**
 * Go's strconv.Quote: double-quoted, with `"` and `\` escaped, printable runes kept, C
 * escapes for \a \b \f \n \r \t \v, `\xHH` for other ASCII controls, `\uHHHH` / `\UHHHHHHHH`
 * for other non-printable runes. A lone surrogate U+DC80–U+DCFF stands for the invalid byte
 * 0x80–0xFF it escapes (the PromQL lexer's "surrogateescape" of Go strings holding invalid
 * UTF-8), and is printed as Go prints that byte: `\xHH`. Any other lone surrogate is
 * rendered as U+FFFD, which is what its UTF-8 encoding becomes.
 */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const cp = ch.codePointAt(0) as number;
    if (cp === 0x22 || cp === 0x5c) {
      out += '\\' + ch;
    } else if (cp >= 0x20 && cp < 0x7f) {
      out += ch;
    } else if (cp < 0x80) {
      switch (cp) {
        case 0x07:
          out += '\\a';
          break;
        case 0x08:
          out += '\\b';
          break;
        case 0x0c:
          out += '\\f';
          break;
        case 0x0a:
          out += '\\n';
          break;
        case 0x0d:
          out += '\\r';
          break;
        case 0x09:
          out += '\\t';
          break;
        case 0x0b:
          out += '\\v';
          break;
        default:
          out += '\\x' + hex(cp, 2);
      }
    } else if (cp >= 0xdc80 && cp <= 0xdcff) {
      out += '\\x' + hex(cp - 0xdc00, 2);
    } else if (cp >= 0xd800 && cp <= 0xdfff) {
      out += '\ufffd';
    } else if (PRINTABLE.test(ch)) {
      out += ch;
    } else if (cp < 0x10000) {
      out += '\\u' + hex(cp, 4);
    } else {
      out += '\\U' + hex(cp, 8);
    }
  }
  return out + '"';
}

/** Go's `%q` of a rune (strconv.QuoteRune); -1 (the lexer's end of input) prints as U+FFFD like Go. */
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
