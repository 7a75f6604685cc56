import { describe, expect, it } from 'vitest';
import { Program, Re2SyntaxError, parseRe2 } from './index.js';

function errorOf(pattern: string): Re2SyntaxError | undefined {
  try {
    new Program(parseRe2(pattern), pattern);
    return undefined;
  } catch (e) {
    if (e instanceof Re2SyntaxError) return e;
    throw e;
  }
}

describe('parseRe2', () => {
  it('builds the expected tree for flags, groups and repeats', () => {
    expect(parseRe2('(?i)a(?-i:b)c')).toEqual({
      op: 'concat',
      subs: [
        { op: 'literal', rune: 0x61, fold: true },
        { op: 'literal', rune: 0x62, fold: false },
        { op: 'literal', rune: 0x63, fold: true },
      ],
    });
    expect(parseRe2('(?P<x>a)|b{2,}?')).toEqual({
      op: 'alternate',
      subs: [
        { op: 'capture', name: 'x', sub: { op: 'literal', rune: 0x61, fold: false } },
        {
          op: 'repeat',
          min: 2,
          max: -1,
          greedy: false,
          counted: true,
          sub: { op: 'literal', rune: 0x62, fold: false },
        },
      ],
    });
  });

  it('treats ^ and $ as text anchors unless (?m) is on', () => {
    expect(parseRe2('^$')).toEqual({
      op: 'concat',
      subs: [
        { op: 'assert', kind: 'bot' },
        { op: 'assert', kind: 'eot' },
      ],
    });
    expect(parseRe2('(?m)^$')).toEqual({
      op: 'concat',
      subs: [
        { op: 'assert', kind: 'bol' },
        { op: 'assert', kind: 'eol' },
      ],
    });
  });

  it('makes . match newline only under (?s) or the Prometheus default', () => {
    expect(parseRe2('.')).toEqual({ op: 'any', nl: false });
    expect(parseRe2('.', { dotMatchesNewline: true })).toEqual({ op: 'any', nl: true });
    expect(parseRe2('(?s).')).toEqual({ op: 'any', nl: true });
  });

  it('reports errors with Go error codes and expressions', () => {
    const e = errorOf('a(?=b)');
    expect(e?.code).toBe('invalid or unsupported Perl syntax');
    expect(e?.expr).toBe('(?=');
    expect(e?.message).toBe('error parsing regexp: invalid or unsupported Perl syntax: `(?=`');
  });

  it('rejects lone surrogates as invalid UTF-8', () => {
    expect(errorOf('a\ud800b')?.message).toBe('error parsing regexp: invalid UTF-8: `\ud800b`');
  });

  it('limits nesting depth and program size', () => {
    const deep = '('.repeat(1001) + 'a' + ')'.repeat(1001);
    expect(errorOf(deep)?.code).toBe('expression nests too deeply');
    expect(errorOf('('.repeat(100) + 'a' + ')'.repeat(100))).toBeUndefined();
    const big = '(?:abcdefghij){1000}'.repeat(60);
    expect(errorOf(big)?.code).toBe('expression too large');
  });

  it('accepts the largest legal counted repeat', () => {
    const program = new Program(parseRe2('a{1000}'), 'a{1000}');
    expect(program.matches('a'.repeat(1000))).toBe(true);
    expect(program.matches('a'.repeat(999))).toBe(false);
  });
});
