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
  ])('%s -> %s', (v, want) => {
    expect(formatFloatF(v)).toBe(want);
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
