import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatFloatE, formatFloatF } from './go_format.js';
import { strconvParseFloat, strconvParseInt } from './go_parse.js';

describe('strconvParseInt (strconv.ParseInt(s, 0, 64))', () => {
  it.each([
    ['0', 0],
    ['42', 42],
    ['-42', -42],
    ['+7', 7],
    ['0x1f', 31],
    ['0X1F', 31],
    ['0755', 493],
    ['0o17', 15],
    ['0b101', 5],
    ['1_000', 1000],
    ['0x_1f', 31],
    ['9223372036854775807', 2 ** 63],
    ['-9223372036854775808', -(2 ** 63)],
  ])('%s -> %s', (s, want) => {
    expect(strconvParseInt(s)).toEqual({ value: want });
  });

  it.each(['', '0x', '1_', '_1', '1__0', '08', '1.5', '1e3', 'inf', '0b2', ' 1'])(
    'rejects %j as invalid syntax',
    (s) => {
      expect(strconvParseInt(s)).toEqual({
        error: `strconv.ParseInt: parsing ${JSON.stringify(s)}: invalid syntax`,
      });
    },
  );

  it('reports int64 overflow as out of range', () => {
    expect(strconvParseInt('9223372036854775808')).toEqual({
      error: 'strconv.ParseInt: parsing "9223372036854775808": value out of range',
    });
  });
});

describe('strconvParseFloat (strconv.ParseFloat(s, 64))', () => {
  it.each([
    ['1', 1],
    ['-1.5', -1.5],
    ['+.5', 0.5],
    ['1.', 1],
    ['1e3', 1000],
    ['1E-3', 0.001],
    ['1_000.5', 1000.5],
    ['0x1p-2', 0.25],
    ['0x1.8p1', 3],
    ['-0x1.8p1', -3],
    ['inf', Infinity],
    ['-Infinity', -Infinity],
    ['+INF', Infinity],
    ['1e-400', 0],
  ])('%s -> %s', (s, want) => {
    expect(strconvParseFloat(s)).toEqual({ value: want });
  });

  it('reads NaN in any case, but not signed', () => {
    expect(strconvParseFloat('nan')).toEqual({ value: NaN });
    expect(strconvParseFloat('nAn')).toEqual({ value: NaN });
    expect('error' in strconvParseFloat('-nan')).toBe(true);
  });

  it.each([
    '',
    '.',
    'e5',
    '.e5',
    '1e',
    '1e+',
    'abc',
    '0x10',
    '0x',
    '0x.p1',
    '1_',
    '_1',
    '1__0',
    '1._5',
    '+nan',
    '30s',
    ' 1',
    '1 ',
    'infin',
  ])('rejects %j as invalid syntax', (s) => {
    expect(strconvParseFloat(s)).toEqual({
      error: `strconv.ParseFloat: parsing ${JSON.stringify(s)}: invalid syntax`,
    });
  });

  it('reports overflow as out of range', () => {
    expect(strconvParseFloat('1e400')).toEqual({
      error: 'strconv.ParseFloat: parsing "1e400": value out of range',
    });
    expect('error' in strconvParseFloat('0x1p1024')).toBe(true);
  });

  it('reads back every float as Go and JavaScript print it', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (v) => {
        expect(strconvParseFloat(String(v))).toEqual({ value: Number(String(v)) });
        expect(strconvParseFloat(formatFloatF(v))).toEqual({ value: v });
        expect(strconvParseFloat(formatFloatE(v))).toEqual({ value: v });
      }),
    );
  });
});
