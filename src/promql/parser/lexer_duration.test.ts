// Properties of the pieces under the parser: Prometheus duration syntax round-trips, number
// literals follow Go's ParseInt/ParseFloat, and string literals follow Go's unquoting.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatDuration, parseDuration } from './duration.js';
import { Lexer } from './lexer.js';
import { parseNumberLiteral } from './number.js';
import { unquoteString } from './unquote.js';

describe('durations', () => {
  it('formats like model.Duration.String', () => {
    expect(formatDuration(0)).toBe('0s');
    expect(formatDuration(90 * 60_000)).toBe('1h30m');
    expect(formatDuration(86_400_000)).toBe('1d');
    expect(formatDuration(7 * 86_400_000)).toBe('1w');
    expect(formatDuration(90 * 86_400_000)).toBe('90d');
    expect(formatDuration(365 * 86_400_000)).toBe('1y');
    expect(formatDuration(1500)).toBe('1s500ms');
    expect(formatDuration(-300_000)).toBe('-5m');
  });

  it('parses like model.ParseDuration', () => {
    expect(parseDuration('1h30m')).toBe(5_400_000);
    expect(parseDuration('0')).toBe(0);
    expect(parseDuration('1y2w3d4h5m6s7ms')).toBe(
      ((((365 + 17) * 24 + 4) * 60 + 5) * 60 + 6) * 1000 + 7,
    );
    expect(() => parseDuration('')).toThrow('empty duration string');
    expect(() => parseDuration('1m1h')).toThrow('not a valid duration string: "1m1h"');
    expect(() => parseDuration('300000y')).toThrow('duration out of range');
  });

  it('round-trips every millisecond count', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 9_000_000_000_000 }), (ms) => {
        expect(parseDuration(formatDuration(ms))).toBe(ms);
      }),
    );
  });
});

describe('numbers', () => {
  it('reads integers with Go base prefixes and floats', () => {
    expect(parseNumberLiteral('0x1F')).toEqual({ value: 31 });
    expect(parseNumberLiteral('0755')).toEqual({ value: 493 });
    expect(parseNumberLiteral('08')).toEqual({ value: 8 });
    expect(parseNumberLiteral('1_000')).toEqual({ value: 1000 });
    expect(parseNumberLiteral('1e-3')).toEqual({ value: 0.001 });
    expect(parseNumberLiteral('0x1p-2')).toEqual({ value: 0.25 });
    expect(parseNumberLiteral('NaN')).toEqual({ value: NaN });
    expect(parseNumberLiteral('1e400')).toEqual({
      error: 'error parsing number: strconv.ParseFloat: parsing "1e400": value out of range',
    });
  });

  it('reads any finite decimal the way JavaScript prints it', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true, min: 0 }), (x) => {
        expect(parseNumberLiteral(String(x))).toEqual({ value: x });
      }),
    );
  });
});

describe('strings', () => {
  it('unquotes Go escapes; bytes of invalid UTF-8 become lone surrogates', () => {
    expect(unquoteString('"a\\tb"')).toBe('a\tb');
    expect(unquoteString("'\\''")).toBe("'");
    expect(unquoteString('"\\xc3\\xa9"')).toBe('é');
    expect(unquoteString('"a\\xc5z"')).toBe('a\udcc5z');
    expect(unquoteString('`a\\n\r`')).toBe('a\\n');
  });

  it('round-trips JSON-quoted ASCII text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary-ascii' }), (s) => {
        expect(unquoteString(JSON.stringify(s).replace(/\\u00([0-9a-f]{2})/g, '\\x$1'))).toBe(s);
      }),
    );
  });
});

describe('lexer', () => {
  function types(q: string): string[] {
    const l = new Lexer(q);
    const out: string[] = [];
    for (;;) {
      const t = l.nextToken();
      out.push(t.type);
      if (t.type === 'EOF' || t.type === 'ERROR') return out;
    }
  }

  it('scans keywords, names and numbers as Prometheus does', () => {
    expect(types('sum by (a) (rate(x:y[5m]))')).toEqual([
      'SUM',
      'BY',
      'LEFT_PAREN',
      'IDENTIFIER',
      'RIGHT_PAREN',
      'LEFT_PAREN',
      'IDENTIFIER',
      'LEFT_PAREN',
      'METRIC_IDENTIFIER',
      'LEFT_BRACKET',
      'DURATION',
      'RIGHT_BRACKET',
      'RIGHT_PAREN',
      'RIGHT_PAREN',
      'EOF',
    ]);
    expect(types('Inf nan fill fill(')).toEqual([
      'NUMBER',
      'NUMBER',
      'IDENTIFIER',
      'FILL',
      'LEFT_PAREN',
      'ERROR',
    ]);
    expect(types('{by="x"} # c')).toEqual([
      'LEFT_BRACE',
      'IDENTIFIER',
      'EQL',
      'STRING',
      'RIGHT_BRACE',
      'COMMENT',
      'EOF',
    ]);
  });

  it('reports positions in bytes', () => {
    const l = new Lexer('"é" x');
    expect(l.nextToken()).toMatchObject({ type: 'STRING', pos: 0, len: 4 });
    expect(l.nextToken()).toMatchObject({ type: 'IDENTIFIER', pos: 5 });
  });
});
