import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { scanQuoted, unquoteGo, UnquoteError } from './go_unquote.js';

describe('unquoteGo (strconv.Unquote)', () => {
  it('reads escapes in double and single quotes and raw strings', () => {
    expect(unquoteGo('"a\\tb\\n\\\\\\""')).toBe('a\tb\n\\"');
    expect(unquoteGo("'it\\'s'")).toBe("it's");
    expect(unquoteGo('"\\x41\\101\\u00e9\\U0001F600"')).toBe('AAé😀');
    expect(unquoteGo('"\\xc3\\xa9"')).toBe('é');
    expect(unquoteGo('`a\\nb`')).toBe('a\\nb');
  });

  it('rejects malformed literals', () => {
    expect(() => unquoteGo('"abc')).toThrow(UnquoteError);
    expect(() => unquoteGo('"a\\qb"')).toThrow(/invalid syntax: "a\\qb"/);
    expect(() => unquoteGo('"\\x4"')).toThrow(UnquoteError);
    expect(() => unquoteGo('"a"b"')).toThrow(/invalid syntax/);
    expect(() => unquoteGo('abc')).toThrow(/invalid syntax/);
  });

  it('finds the end of a literal', () => {
    expect(scanQuoted('x="a\\"b", y', 2)).toBe(8);
    expect(() => scanQuoted('"abc', 0)).toThrow(/unterminated/);
  });

  it('round-trips JSON-quoted strings (property)', () => {
    fc.assert(
      fc.property(fc.string(), (s) => {
        expect(unquoteGo(JSON.stringify(s))).toBe(s);
      }),
    );
  });
});
