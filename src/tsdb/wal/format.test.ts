import { describe, expect, it } from 'vitest';
import { parseSegmentName, segmentName } from './index.js';

describe('segment names', () => {
  it('are 8-digit zero-padded indices, and only all-digit names are segments', () => {
    expect(segmentName(0)).toBe('00000000');
    expect(segmentName(123)).toBe('00000123');
    expect(segmentName(123456789)).toBe('123456789');
    expect(parseSegmentName('00000042')).toBe(42);
    expect(parseSegmentName('checkpoint.00000001')).toBeUndefined();
    expect(parseSegmentName('00000001.repair')).toBeUndefined();
    expect(parseSegmentName('')).toBeUndefined();
    expect(() => segmentName(-1)).toThrow(/-1/);
    expect(() => segmentName(1.5)).toThrow(/1\.5/);
  });
});
