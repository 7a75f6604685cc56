import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatFloatE, formatFloatF, formatFloatFixed6, formatFloatG } from './go_format.js';

describe('formatFloatF (strconv.FormatFloat(v, f, -1, 64))', () => {
  it.each([
    [0, '0'],
    [-0, '-0'],
    [1, '1'],
    [-1, '-1'],
    [0.5, '0.5'],
    [0.1, '0.1'],
    [-2.5e-3, '-0.0025'],
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
    [1e-6, '0.000001'],
    [-9.99999999999999e-7, '-0.000000999999999999999'],
    [123456789012345680000, '123456789012345680000'],
  ])('%s -> %s', (v, want) => {
    expect(formatFloatF(v)).toBe(want);
  });

  it('writes the digits of the exponent form laid out without an exponent, for any double', () => {
    // The layout rebuilt from toExponential (shortest round-trip digits, Go's choice too).
    const viaExponent = (v: number): string => {
      const e = Math.abs(v).toExponential();
      const at = e.indexOf('e');
      const digits = e.slice(0, at).replace('.', '');
      const exp = Number(e.slice(at + 1));
      const sign = v < 0 ? '-' : '';
      if (exp < 0) return `${sign}0.${'0'.repeat(-exp - 1)}${digits}`;
      if (digits.length <= exp + 1) return sign + digits + '0'.repeat(exp + 1 - digits.length);
      return `${sign}${digits.slice(0, exp + 1)}.${digits.slice(exp + 1)}`;
    };
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (v) => {
        fc.pre(v !== 0);
        expect(formatFloatF(v)).toBe(viaExponent(v));
      }),
      { numRuns: 5000 },
    );
  });
});

describe('formatFloatE (strconv.FormatFloat(v, e, -1, 64))', () => {
  it.each([
    [1, '1e+00'],
    [123.456, '1.23456e+02'],
    [1e-7, '1e-07'],
    [-1.5e300, '-1.5e+300'],
    [0, '0e+00'],
    [-0, '-0e+00'],
    [NaN, 'NaN'],
    [-Infinity, '-Inf'],
  ])('%s -> %s', (v, want) => {
    expect(formatFloatE(v)).toBe(want);
  });
});

describe('formatFloatG (%g)', () => {
  it.each([
    [1e20, '1e+20'],
    [123456, '123456'],
    [1234567, '1.234567e+06'],
    [0.0001, '0.0001'],
    [0.00001, '1e-05'],
    [-9223372036854775808, '-9.223372036854776e+18'],
    [0, '0'],
    [-0, '-0'],
    [0.5, '0.5'],
    [NaN, 'NaN'],
    [Infinity, '+Inf'],
    [-Infinity, '-Inf'],
  ])('%s -> %s', (v, want) => {
    expect(formatFloatG(v)).toBe(want);
  });
});

describe('formatFloatFixed6 (%f)', () => {
  it.each([
    [0, '0.000000'],
    [1.5, '1.500000'],
    [-0.1234567, '-0.123457'],
    [1e21, '1000000000000000000000.000000'],
    [NaN, 'NaN'],
    [Infinity, '+Inf'],
    [-Infinity, '-Inf'],
  ])('%s -> %s', (v, want) => {
    expect(formatFloatFixed6(v)).toBe(want);
  });
});

describe('shortest layouts round-trip', () => {
  it('reads back every finite float, with no exponent in f', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (v) => {
        expect(Object.is(Number(formatFloatF(v)), v)).toBe(true);
        expect(Object.is(Number(formatFloatE(v)), v)).toBe(true);
        expect(Object.is(Number(formatFloatG(v)), v)).toBe(true);
        expect(formatFloatF(v)).not.toMatch(/e/i);
      }),
    );
  });
});
