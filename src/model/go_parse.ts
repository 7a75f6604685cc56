/**
 * Go's strconv number parsers with their exact acceptance rules and error texts:
 * `strconv.ParseInt(s, 0, 64)` (base prefixes `0x`/`0o`/`0b`, a leading `0` for octal,
 * underscores between digits) and `strconv.ParseFloat(s, 64)` (decimals, exponents, hex
 * floats like `0x1p-2`, `inf`/`infinity`/`nan` in any case, Go's underscore rule). PromQL
 * number literals, the test scripts' expected scalars and the HTTP API's parameters all
 * read numbers this way. (Prometheus's text-format parsers use a narrower ParseFloat: see
 * textparse's parseGoFloat.)
 */
import { goQuote } from './go_strings.js';

/** A parsed number, or the text of the error Go returns. */
export type GoParsedNumber = { readonly value: number } | { readonly error: string };

const INT_SYNTAX = /^[+-]?(?:0[xX][0-9a-fA-F_]+|0[oO][0-7_]+|0[bB][01_]+|0[0-7_]*|[1-9][0-9_]*)$/;
const DEC_FLOAT =
  /^(?:[0-9](?:_?[0-9])*)?(?:\.(?:[0-9](?:_?[0-9])*)?)?(?:[eE][+-]?[0-9](?:_?[0-9])*)?$/;
const HEX_FLOAT =
  /^0[xX]_?(?:[0-9a-fA-F](?:_?[0-9a-fA-F])*)?(?:\.(?:[0-9a-fA-F](?:_?[0-9a-fA-F])*)?)?[pP][+-]?[0-9](?:_?[0-9])*$/;
const SPECIAL = /^(?:([+-]?)(?:inf|infinity)|nan)$/i;
const INT64_MAX = (1n << 63n) - 1n;
const INT64_MIN = -(1n << 63n);

/** Go's underscoreOK: underscores only between digits or after a base prefix. */
function underscoreOK(s: string): boolean {
  let saw = '^';
  let i = 0;
  if (s.length >= 1 && (s[0] === '-' || s[0] === '+')) s = s.slice(1);
  let hex = false;
  if (s.length >= 2 && s[0] === '0' && 'bBoOxX'.includes(s[1] as string)) {
    i = 2;
    saw = '0';
    hex = s[1] === 'x' || s[1] === 'X';
  }
  for (; i < s.length; i++) {
    const c = s[i] as string;
    if ((c >= '0' && c <= '9') || (hex && /[a-fA-F]/.test(c))) {
      saw = '0';
      continue;
    }
    if (c === '_') {
      if (saw !== '0') return false;
      saw = '_';
      continue;
    }
    if (saw === '_') return false;
    saw = '!';
  }
  return saw !== '_';
}

/** `strconv.ParseInt(s, 0, 64)`; values beyond 2^53 are rounded to the nearest double. */
export function strconvParseInt(s: string): GoParsedNumber {
  if (!INT_SYNTAX.test(s) || !underscoreOK(s)) {
    return { error: `strconv.ParseInt: parsing ${goQuote(s)}: invalid syntax` };
  }
  const negative = s[0] === '-';
  const body = (s[0] === '-' || s[0] === '+' ? s.slice(1) : s).replaceAll('_', '');
  let magnitude: bigint;
  if (/^0[xXoObB]/.test(body)) magnitude = BigInt(body.toLowerCase());
  else if (body.length > 1 && body[0] === '0') magnitude = BigInt(`0o${body.slice(1)}`);
  else magnitude = BigInt(body);
  const n = negative ? -magnitude : magnitude;
  if (n > INT64_MAX || n < INT64_MIN) {
    return { error: `strconv.ParseInt: parsing ${goQuote(s)}: value out of range` };
  }
  return { value: Number(n) };
}

/** The value of an unsigned, underscore-free hex float body like `1.8p3`. */
function hexFloatValue(body: string): number {
  const m = /^0[xX]([0-9a-fA-F]*)(?:\.([0-9a-fA-F]*))?[pP]([+-]?[0-9]+)$/.exec(body);
  if (m === null) return NaN;
  const intPart = m[1] ?? '';
  const frac = m[2] ?? '';
  const mantissa = BigInt(`0x${intPart + frac || '0'}`);
  const exp = Number(m[3]) - 4 * frac.length;
  // Scale in two steps so a large exponent does not overflow (or underflow) the power alone.
  return Number(mantissa) * 2 ** Math.trunc(exp / 2) * 2 ** (exp - Math.trunc(exp / 2));
}

/** `strconv.ParseFloat(s, 64)`; overflow to ±Inf is Go's "value out of range" error. */
export function strconvParseFloat(s: string): GoParsedNumber {
  const special = SPECIAL.exec(s);
  if (special !== null) {
    if (/nan/i.test(s)) return { value: NaN };
    return { value: special[1] === '-' ? -Infinity : Infinity };
  }
  const syntax = { error: `strconv.ParseFloat: parsing ${goQuote(s)}: invalid syntax` };
  const negative = s[0] === '-';
  const body = s[0] === '-' || s[0] === '+' ? s.slice(1) : s;
  let v: number;
  if (/^0[xX]/.test(body)) {
    if (!HEX_FLOAT.test(body) || !underscoreOK(body)) return syntax;
    // Go needs at least one mantissa digit.
    if (!/[0-9a-fA-F]/.test(body.slice(2).replace(/[pP].*$/, ''))) return syntax;
    v = hexFloatValue(body.replaceAll('_', ''));
  } else {
    if (!DEC_FLOAT.test(body) || !/[0-9]/.test(body.replace(/[eE].*$/, ''))) return syntax;
    if (!underscoreOK(body)) return syntax;
    v = Number(body.replaceAll('_', ''));
  }
  if (!Number.isFinite(v)) {
    return { error: `strconv.ParseFloat: parsing ${goQuote(s)}: value out of range` };
  }
  return { value: negative ? -v : v };
}
