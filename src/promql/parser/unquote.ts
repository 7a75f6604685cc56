// String literals: Prometheus's strutil.Unquote (Go's strconv.Unquote extended to single
// quotes). `"…"` and `'…'` take Go escapes, where `\x`/octal escapes are bytes and `\u`/`\U`
// code points; backtick strings are raw (carriage returns dropped, as Go does).
import { decodeGoBytes } from './utf8.js';

/** Thrown for malformed literals (strconv.ErrSyntax). */
export class UnquoteError extends Error {
  constructor() {
    super('invalid syntax');
    this.name = 'UnquoteError';
  }
}

const SIMPLE_ESCAPES: Readonly<Record<string, number>> = {
  a: 0x07,
  b: 0x08,
  f: 0x0c,
  n: 0x0a,
  r: 0x0d,
  t: 0x09,
  v: 0x0b,
  '\\': 0x5c,
};

function pushCodePoint(out: number[], cp: number): void {
  for (const b of new TextEncoder().encode(String.fromCodePoint(cp))) out.push(b);
}

export function unquoteString(s: string): string {
  if (s.length < 2) throw new UnquoteError();
  const quote = s[0] as string;
  if (quote !== s[s.length - 1]) throw new UnquoteError();
  const body = s.slice(1, -1);
  if (quote === '`') {
    if (body.includes('`')) throw new UnquoteError();
    return body.replace(/\r/g, '');
  }
  if (quote !== '"' && quote !== "'") throw new UnquoteError();
  if (!body.includes('\\') && !body.includes(quote)) {
    if (body.includes('\n')) throw new UnquoteError();
    return body;
  }
  const out: number[] = [];
  const cps = Array.from(body);
  for (let i = 0; i < cps.length; i++) {
    const c = cps[i] as string;
    if (c === quote || c === '\n') throw new UnquoteError();
    if (c !== '\\') {
      pushCodePoint(out, c.codePointAt(0) as number);
      continue;
    }
    const e = cps[++i];
    if (e === undefined) throw new UnquoteError();
    const simple = SIMPLE_ESCAPES[e];
    if (simple !== undefined) {
      out.push(simple);
      continue;
    }
    if (e === quote) {
      out.push(quote.charCodeAt(0));
      continue;
    }
    let digits: number;
    let base: number;
    let isByte: boolean;
    if (e === 'x') {
      [digits, base, isByte] = [2, 16, true];
    } else if (e === 'u') {
      [digits, base, isByte] = [4, 16, false];
    } else if (e === 'U') {
      [digits, base, isByte] = [8, 16, false];
    } else if (e >= '0' && e <= '7') {
      [digits, base, isByte] = [3, 8, true];
      i--;
    } else {
      throw new UnquoteError();
    }
    const text = cps.slice(i + 1, i + 1 + digits).join('');
    const valid = base === 16 ? /^[0-9a-fA-F]+$/ : /^[0-7]+$/;
    if (text.length !== digits || !valid.test(text)) throw new UnquoteError();
    const v = parseInt(text, base);
    i += digits;
    if (isByte) {
      if (v > 255) throw new UnquoteError();
      out.push(v);
    } else {
      if (v > 0x10ffff || (v >= 0xd800 && v < 0xe000)) throw new UnquoteError();
      pushCodePoint(out, v);
    }
  }
  return decodeGoBytes(out);
}
