import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatDuration, parseDuration } from './duration.js';
import { ConfigError } from './errors.js';

const S = 1000;
const M = 60 * S;
const H = 60 * M;
const D = 24 * H;

describe('parseDuration', () => {
  it.each([
    ['2h0m0s', 2 * H],
    ['6h', 6 * H],
    ['100ms', 100],
    ['1m30s', 90 * S],
    ['0', 0],
    ['0s', 0],
    ['1.5h', 90 * M],
    ['.5s', 500],
    ['1h1m1.001s', H + M + S + 1],
    ['1d', D],
    ['1w', 7 * D],
    ['1y', 365 * D],
    ['1y2w3d4h', 365 * D + 14 * D + 3 * D + 4 * H],
    ['-1m', -M],
    ['+5s', 5 * S],
    ['1000us', 1],
    ['1000µs', 1],
    ['2000000ns', 2],
  ])('parses %s', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each([
    ['', 'empty'],
    ['abc', 'expected <number><unit>'],
    ['10', 'missing unit'],
    ['5x', 'unknown unit "x"'],
    ['1h5', 'missing unit'],
    ['h', 'expected <number><unit>'],
    ['1.5ms', 'whole milliseconds'],
    ['-', 'empty'],
  ])('rejects %j naming the value', (text, why) => {
    expect(() => parseDuration(text)).toThrow(ConfigError);
    expect(() => parseDuration(text)).toThrow(`invalid duration "${text}"`);
    expect(() => parseDuration(text)).toThrow(why);
  });
});

describe('formatDuration', () => {
  it.each([
    [2 * H, '2h0m0s'],
    [M, '1m0s'],
    [100, '100ms'],
    [0, '0s'],
    [90 * S, '1m30s'],
    [1500, '1.5s'],
    [25 * H + M + S + 1, '25h1m1.001s'],
    [-M, '-1m0s'],
    [24 * H, '24h0m0s'],
    [0.5, '500µs'],
  ])('formats %d ms as %s', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });

  it('round-trips every integer millisecond value through Go form', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -Number.MAX_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER }),
        (ms) => {
          expect(parseDuration(formatDuration(ms))).toBe(ms);
        },
      ),
    );
  });

  it('parses any sum of Go and Prometheus components to the sum of their values', () => {
    const units: [string, number][] = [
      ['y', 365 * D],
      ['w', 7 * D],
      ['d', D],
      ['h', H],
      ['m', M],
      ['s', S],
      ['ms', 1],
    ];
    const component = fc.tuple(fc.constantFrom(...units), fc.integer({ min: 0, max: 10_000 }));
    fc.assert(
      fc.property(fc.array(component, { minLength: 1, maxLength: 6 }), (parts) => {
        const text = parts.map(([[unit], n]) => `${n}${unit}`).join('');
        const expected = parts.reduce((sum, [[, size], n]) => sum + n * size, 0);
        expect(parseDuration(text)).toBe(expected);
        expect(parseDuration(formatDuration(expected))).toBe(expected);
      }),
    );
  });
});
