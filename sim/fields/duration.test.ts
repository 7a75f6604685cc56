import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatDuration, parseDuration } from './duration.js';

describe('scenario durations', () => {
  it('parses Go-style durations and bare milliseconds', () => {
    expect(parseDuration('1m30s', 'x')).toBe(90_000);
    expect(parseDuration('250ms', 'x')).toBe(250);
    expect(parseDuration('1.5s', 'x')).toBe(1_500);
    expect(parseDuration('2h', 'x')).toBe(7_200_000);
    expect(parseDuration('1d', 'x')).toBe(86_400_000);
    expect(parseDuration('0', 'x')).toBe(0);
    expect(parseDuration(42, 'x')).toBe(42);
  });

  it('rejects malformed durations naming the key and value', () => {
    expect(() => parseDuration('10 seconds', 'schedule[2].at')).toThrow(
      /schedule\[2\]\.at: invalid duration "10 seconds"/,
    );
    expect(() => parseDuration('5x', 'duration')).toThrow(/"5x"/);
    expect(() => parseDuration(-1, 'duration')).toThrow(/-1/);
  });

  it('round-trips through formatDuration', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10 * 86_400_000 }), (ms) => {
        expect(parseDuration(formatDuration(ms), 'x')).toBe(ms);
      }),
    );
  });
});

describe('scenario durations match the configuration syntax', () => {
  it('rejects negative durations and formats the Go way', () => {
    expect(() => parseDuration('-5s', 'at')).toThrow(
      /at: invalid duration "-5s": must not be negative/,
    );
    expect(formatDuration(7_200_000)).toBe('2h0m0s');
  });
});
