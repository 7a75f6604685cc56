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

/**
 * Go's strconv.Quote: double-quoted, with `"` and `\` escaped, printable runes kept, C
 * escapes for \a \b \f \n \r \t \v, `\xHH` for other ASCII controls, `\uHHHH` / `\UHHHHHHHH`
 * for other non-printable runes. A lone surrogate is rendered as U+FFFD, which is what its
 * UTF-8 encoding becomes.
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
