import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatAtTimestamp, trimSpace, utf8Length } from './go_text.js';

describe('formatAtTimestamp (%.3f seconds)', () => {
  it.each([
    [10000, '10.000'],
    [1, '0.001'],
    [-1000, '-1.000'],
    [1234567, '1234.567'],
    [0, '0.000'],
  ])('%s -> %s', (ms, want) => {
    expect(formatAtTimestamp(ms)).toBe(want);
  });
});

describe('utf8Length and trimSpace', () => {
  it('counts UTF-8 bytes like Go len()', () => {
    expect(utf8Length('abc')).toBe(3);
    expect(utf8Length('é')).toBe(2);
    expect(utf8Length('€')).toBe(3);
    expect(utf8Length('😀')).toBe(4);
    expect(utf8Length('\ud800x')).toBe(4);
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), (str) => {
        expect(utf8Length(str)).toBe(Buffer.byteLength(str, 'utf8'));
      }),
    );
  });

  it('trims Go whitespace only', () => {
    expect(trimSpace('  \n\tfoo \u0085')).toBe('foo');
    expect(trimSpace('\ufefffoo')).toBe('\ufefffoo');
    expect(trimSpace('a b')).toBe('a b');
  });
});
