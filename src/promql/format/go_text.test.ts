import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatAtTimestamp, formatFloat, trimSpace, utf8Length } from './go_text.js';

describe('formatFloat (Go strconv.FormatFloat(v, f, -1, 64))', () => {
  it.each([
    [0, '0'],
    [-0, '-0'],
    [1, '1'],
    [-1, '-1'],
    [0.5, '0.5'],
    [1048576, '1048576'],
    [1e6, '1000000'],
    [1e21, '1000000000000000000000'],
    [1.5e22, '15000000000000000000000'],
    [1e-7, '0.0000001'],
    [1.234e-7, '0.0000001234'],
    [123.456, '123.456'],
    [0.1 + 0.2, '0.30000000000000004'],
    [5e-324, `0.${'0'.repeat(323)}5`],
    [1.7976931348623157e308, `17976931348623157${'0'.repeat(292)}`],
    [Infinity, '+Inf'],
    [-Infinity, '-Inf'],
    [NaN, 'NaN'],
  ])('%s -> %s', (v, want) => {
    expect(formatFloat(v)).toBe(want);
  });

  it('round-trips every finite float through Number()', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (v) => {
        const s = formatFloat(v);
        expect(s).not.toMatch(/e/i);
        expect(Object.is(Number(s), v)).toBe(true);
      }),
    );
  });
});

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
