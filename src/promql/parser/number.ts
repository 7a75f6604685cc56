// Number literals as Prometheus's parser reads them: strconv.ParseInt(s, 0, 64) first (so
// `0x1f`, `0755`, `0b1`, `1_000` are integers), then strconv.ParseFloat(s, 64) (decimals,
// exponents, hex floats, Inf/NaN), with Go's error text when both fail.
import { goQuote } from '../../model/index.js';

const INT_SYNTAX = /^(0[xX][0-9a-fA-F_]+|0[oO][0-7_]+|0[bB][01_]+|0[0-7_]*|[1-9][0-9_]*)$/;
const DEC_FLOAT =
  /^(?:[0-9](?:_?[0-9])*)?(?:\.(?:[0-9](?:_?[0-9])*)?)?(?:[eE][+-]?[0-9](?:_?[0-9])*)?$/;
const HEX_FLOAT =
  /^0[xX]_?(?:[0-9a-fA-F](?:_?[0-9a-fA-F])*)?(?:\.(?:[0-9a-fA-F](?:_?[0-9a-fA-F])*)?)?[pP][+-]?[0-9](?:_?[0-9])*$/;

/** Go's underscoreOK: underscores only between digits or after a base prefix. */
function underscoreOK(s: string): boolean {
  let saw = '^';
  let i = 0;
  let hex = false;
  if (s.length >= 2 && s[0] === '0') {
    const c = (s[1] as string).toLowerCase();
    if (c === 'x' || c === 'o' || c === 'b') {
      hex = c === 'x';
      i = 2;
      saw = '0';
    }
  }
  for (; i < s.length; i++) {
    const ch = s[i] as string;
    if (/[0-9]/.test(ch) || (hex && /[a-fA-F]/.test(ch))) {
      saw = '0';
      continue;
    }
    if (ch === '_') {
      if (saw !== '0') return false;
      saw = '_';
      continue;
    }
    if (saw === '_') return false;
    saw = '!';
  }
  return saw !== '_';
}

/** strconv.ParseInt(s, 0, 64) without sign handling (the lexer never includes a sign). */
function parseGoInt(s: string): number | undefined {
  if (!INT_SYNTAX.test(s) || !underscoreOK(s)) return undefined;
  const clean = s.replace(/_/g, '');
  let big: bigint;
  if (/^0[xXoObB]/.test(clean)) {
    if (clean.length === 2) return undefined;
    big = BigInt(clean.toLowerCase());
  } else if (clean.length > 1 && clean[0] === '0') {
    big = BigInt('0o' + clean.slice(1));
  } else {
    big = BigInt(clean);
  }
  if (big > 0x7fffffffffffffffn) return undefined;
  return Number(big);
}

function parseHexFloat(s: string): number {
  const m = /^0[xX]([0-9a-fA-F]*)(?:\.([0-9a-fA-F]*))?[pP]([+-]?[0-9]+)$/.exec(s.replace(/_/g, ''));
  if (m === null) return NaN;
  const intPart = m[1] ?? '';
  const frac = m[2] ?? '';
  const mantissa = BigInt('0x' + (intPart + frac || '0'));
  const exp = Number(m[3]) - 4 * frac.length;
  // Scale in two steps so large exponents do not overflow the power before the product.
  return Number(mantissa) * 2 ** Math.trunc(exp / 2) * 2 ** (exp - Math.trunc(exp / 2));
}

/** strconv.ParseFloat(s, 64); returns undefined with Go's error text on failure. */
function parseGoFloat(s: string): { value: number } | { error: string } {
  const lower = s.toLowerCase();
  if (lower === 'inf' || lower === 'infinity' || lower === '+inf' || lower === '+infinity')
    return { value: Infinity };
  if (lower === '-inf' || lower === '-infinity') return { value: -Infinity };
  if (lower === 'nan') return { value: NaN };
  const syntaxError = { error: `strconv.ParseFloat: parsing ${goQuote(s)}: invalid syntax` };
  if (/^0[xX]/.test(s)) {
    if (!HEX_FLOAT.test(s) || !underscoreOK(s)) return syntaxError;
    return { value: parseHexFloat(s) };
  }
  if (s === '' || s === '.' || !DEC_FLOAT.test(s) || !/[0-9]/.test(s)) return syntaxError;
  if (!underscoreOK(s)) return syntaxError;
  const v = Number(s.replace(/_/g, ''));
  if (!Number.isFinite(v))
    return { error: `strconv.ParseFloat: parsing ${goQuote(s)}: value out of range` };
  return { value: v };
}

/** The value of a NUMBER token, or the text of Prometheus's "error parsing number" error. */
export function parseNumberLiteral(s: string): { value: number } | { error: string } {
  const i = parseGoInt(s);
  if (i !== undefined) return { value: i };
  const f = parseGoFloat(s);
  if ('error' in f) return { error: `error parsing number: ${f.error}` };
  return f;
}
