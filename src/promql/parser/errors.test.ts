import { describe, expect, it } from 'vitest';
import { startPosInput } from './errors.js';

describe('startPosInput (PositionRange.StartPosInput)', () => {
  it('prints line:col of a byte offset, the column counted in bytes', () => {
    expect(startPosInput('sum(rate(x[5m]))', 4)).toBe('1:5');
    expect(startPosInput('sum(\n  rate(x[5m]))', 8)).toBe('2:4');
    expect(startPosInput('{a="é"} + b', 11)).toBe('1:12');
    expect(startPosInput('a\nb', 2, 3)).toBe('5:1');
  });

  it('reports positions it cannot place as Prometheus does', () => {
    expect(startPosInput('', 0)).toBe('unknown position');
    expect(startPosInput('abc', -1)).toBe('invalid position');
    expect(startPosInput('abc', 4)).toBe('invalid position');
  });
});
