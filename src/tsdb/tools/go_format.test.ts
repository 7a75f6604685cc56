import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatGoDurationMs, formatGoG } from './go_format.js';

describe('formatGoG (Go %g, shortest precision)', () => {
  it('renders specials like Go', () => {
    expect(formatGoG(NaN)).toBe('NaN');
    expect(formatGoG(Infinity)).toBe('+Inf');
    expect(formatGoG(-Infinity)).toBe('-Inf');
    expect(formatGoG(0)).toBe('0');
    expect(formatGoG(-0)).toBe('-0');
  });

  it('switches to exponent form below 1e-4 and from 1e6 (not 1e21 as %v does)', () => {
    expect(formatGoG(0.0001)).toBe('0.0001');
    expect(formatGoG(0.00012)).toBe('0.00012');
    expect(formatGoG(0.00001)).toBe('1e-05');
    expect(formatGoG(0.000099)).toBe('9.9e-05');
    expect(formatGoG(999999)).toBe('999999');
    expect(formatGoG(999999.5)).toBe('999999.5');
    expect(formatGoG(1e6)).toBe('1e+06');
    expect(formatGoG(9839349)).toBe('9.839349e+06');
    expect(formatGoG(1e20)).toBe('1e+20');
    expect(formatGoG(1e21)).toBe('1e+21');
    expect(formatGoG(-123456789)).toBe('-1.23456789e+08');
  });

  it('uses at least two exponent digits and three when needed', () => {
    expect(formatGoG(5e-324)).toBe('5e-324');
    expect(formatGoG(1.7976931348623157e308)).toBe('1.7976931348623157e+308');
    expect(formatGoG(1e100)).toBe('1e+100');
    expect(formatGoG(2.5e-7)).toBe('2.5e-07');
  });

  it('prints plain decimals in range', () => {
    expect(formatGoG(1)).toBe('1');
    expect(formatGoG(-42.125)).toBe('-42.125');
    expect(formatGoG(0.1)).toBe('0.1');
    expect(formatGoG(123456.75)).toBe('123456.75');
    expect(formatGoG(100000)).toBe('100000');
  });

  it('always round-trips through parseFloat', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true }), (v) => {
        expect(Object.is(Number.parseFloat(formatGoG(v).replace('Inf', 'Infinity')), v)).toBe(true);
      }),
    );
  });
});

describe('formatGoDurationMs (Go time.Duration String)', () => {
  it('matches Go for the shapes promtool prints', () => {
    expect(formatGoDurationMs(0)).toBe('0s');
    expect(formatGoDurationMs(1)).toBe('1ms');
    expect(formatGoDurationMs(999)).toBe('999ms');
    expect(formatGoDurationMs(1000)).toBe('1s');
    expect(formatGoDurationMs(1500)).toBe('1.5s');
    expect(formatGoDurationMs(60_000)).toBe('1m0s');
    expect(formatGoDurationMs(7_200_000)).toBe('2h0m0s');
    expect(formatGoDurationMs(10_000_251)).toBe('2h46m40.251s');
    expect(formatGoDurationMs(7_199_990)).toBe('1h59m59.99s');
    expect(formatGoDurationMs(-1500)).toBe('-1.5s');
  });

  it('rejects fractional durations', () => {
    expect(() => formatGoDurationMs(1.5)).toThrow(/1\.5/);
  });
});
