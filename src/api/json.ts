/**
 * JSON primitives that reproduce Prometheus's bytes exactly. Prometheus writes its API
 * responses with three different string encoders and two float formats, and clients (and
 * result caches keyed on bodies) see the difference, so each is reproduced here:
 *
 * - label names and values go through jsoniter's `Stream.WriteString`: only `"`, `\`, and
 *   control characters are escaped; `<`, `>`, `&` and U+2028/U+2029 are written raw;
 * - every other string of the envelope (warnings, errors, label lists, format_query, …) goes
 *   through jsoniter's standard-library-compatible encoder: HTML characters and U+2028/U+2029
 *   are escaped too;
 * - `string` query results are marshalled by Go's `encoding/json` (Go ≥ 1.22), which also
 *   writes `\b` and `\f` in their short forms.
 *
 * Sample values are quoted strings (`"NaN"`, `"+Inf"`, shortest round-trip digits in fixed
 * notation, switching to exponent notation below 1e-6 and from 1e21 on, as
 * `jsonutil.MarshalFloat` does); timestamps are seconds with exactly the millisecond digits
 * `jsonutil.MarshalTimestamp` writes (`1.100`, not `1.1`).
 */

import { compareGoStrings, formatFloatE, formatFloatF } from '../model/index.js';

const HEX = '0123456789abcdef';

/** How a string is escaped; see the module comment. */
export type JsonStringMode = 'raw' | 'html' | 'std';

/** A JSON string literal for `s` escaped the way Prometheus's encoder for `mode` does. */
export function jsonString(s: string, mode: JsonStringMode = 'html'): string {
  if (isPlain(s, mode)) return `"${s}"`;
  let out = '"';
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const esc = escapeFor(c, s, i, mode);
    if (esc === undefined) {
      // A surrogate pair is one code point: skip its second half in one go.
      if (c >= 0xd800 && c <= 0xdbff && isLowSurrogate(s.charCodeAt(i + 1))) i++;
      continue;
    }
    out += s.slice(start, i) + esc;
    start = i + 1;
  }
  return out + s.slice(start) + '"';
}

/** Fast path: nothing to escape (the common case for label values and messages). */
function isPlain(s: string, mode: JsonStringMode): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c === 0x22 || c === 0x5c) return false;
    if (c < 0x7f) {
      if (mode !== 'raw' && (c === 0x3c || c === 0x3e || c === 0x26)) return false;
      continue;
    }
    if (c >= 0x2028 && c <= 0x2029 && mode !== 'raw') return false;
    if (c >= 0xd800 && c <= 0xdfff) return false;
  }
  return true;
}

function isLowSurrogate(c: number): boolean {
  return c >= 0xdc00 && c <= 0xdfff;
}

/** The escape sequence for the UTF-16 unit at `i`, or undefined to copy it as is. */
function escapeFor(c: number, s: string, i: number, mode: JsonStringMode): string | undefined {
  if (c === 0x22) return '\\"';
  if (c === 0x5c) return '\\\\';
  if (c < 0x20) {
    if (c === 0x0a) return '\\n';
    if (c === 0x0d) return '\\r';
    if (c === 0x09) return '\\t';
    if (mode === 'std' && c === 0x08) return '\\b';
    if (mode === 'std' && c === 0x0c) return '\\f';
    return `\\u00${HEX[c >> 4]}${HEX[c & 0xf]}`;
  }
  if (mode === 'raw') {
    // Go would copy the (invalid) bytes; a lone surrogate can only be written as U+FFFD.
    if (c >= 0xd800 && c <= 0xdfff && !isPairAt(s, i)) return '\ufffd';
    return undefined;
  }
  if (c === 0x3c) return '\\u003c';
  if (c === 0x3e) return '\\u003e';
  if (c === 0x26) return '\\u0026';
  if (c === 0x2028) return '\\u2028';
  if (c === 0x2029) return '\\u2029';
  // Invalid UTF-8 becomes the escaped replacement character in both Go encoders.
  if (c >= 0xd800 && c <= 0xdfff && !isPairAt(s, i)) return '\\ufffd';
  return undefined;
}

/** True when the unit at `i` is the first half of a well-formed surrogate pair. */
function isPairAt(s: string, i: number): boolean {
  const c = s.charCodeAt(i);
  return c >= 0xd800 && c <= 0xdbff && isLowSurrogate(s.charCodeAt(i + 1));
}

/**
 * A sample value as Prometheus's `jsonutil.MarshalFloat` writes it, quotes included: fixed
 * notation, except exponent notation for magnitudes below 1e-6 and from 1e21 on.
 */
export function sampleValue(v: number): string {
  const abs = Math.abs(v);
  if (abs !== 0 && Number.isFinite(abs) && (abs < 1e-6 || abs >= 1e21)) {
    return `"${formatFloatE(v)}"`;
  }
  return `"${formatFloatF(v)}"`;
}

/**
 * A timestamp in ms as `jsonutil.MarshalTimestamp` writes it: whole seconds, then `.` and
 * exactly three millisecond digits when the millisecond part is not zero.
 */
export function sampleTimestamp(t: number): string {
  let sign = '';
  let abs = t;
  if (t < 0) {
    sign = '-';
    abs = -t;
  }
  // Integer arithmetic: a float division could round x.999 up for large timestamps.
  const ms = abs % 1000;
  const secs = (abs - ms) / 1000;
  if (ms === 0) return `${sign}${secs}`;
  return `${sign}${secs}.${String(ms).padStart(3, '0')}`;
}

/**
 * A float64 as Go's `encoding/json` (and jsoniter's compatible mode) writes a number:
 * shortest round-trip digits, exponent form below 1e-6 and from 1e21 on with the exponent
 * written without padding. JavaScript's Number#toString follows the same rules.
 */
export function jsonNumber(v: number): string {
  if (!Number.isFinite(v)) {
    throw new Error(`json: unsupported value: ${String(v)}`);
  }
  if (Object.is(v, -0)) return '-0';
  return String(v);
}

/**
 * A generic value in Go map semantics: objects have their keys sorted (Go sorts map keys),
 * `undefined` is `null` (a nil pointer), strings are escaped in `html` mode. Used for the
 * parse_query tree, which Prometheus builds out of `map[string]any`.
 */
export function jsonValue(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  switch (typeof v) {
    case 'string':
      return jsonString(v, 'html');
    case 'number':
      return jsonNumber(v);
    case 'boolean':
      return v ? 'true' : 'false';
    case 'bigint':
      return v.toString();
    case 'object': {
      if (Array.isArray(v)) return `[${v.map(jsonValue).join(',')}]`;
      const entries = Object.entries(v as Record<string, unknown>).sort(([a], [b]) =>
        compareGoStrings(a, b),
      );
      return `{${entries.map(([k, x]) => `${jsonString(k, 'html')}:${jsonValue(x)}`).join(',')}}`;
    }
    default:
      throw new Error(`json: unsupported type ${typeof v}`);
  }
}
