import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatRFC3339Nano } from './errors.js';

describe('formatRFC3339Nano', () => {
  it('prints Go RFC3339Nano in UTC with trailing zeros trimmed', () => {
    expect(formatRFC3339Nano(0)).toBe('1970-01-01T00:00:00Z');
    expect(formatRFC3339Nano(1_700_000_123_456)).toBe('2023-11-14T22:15:23.456Z');
    expect(formatRFC3339Nano(1_700_000_123_400)).toBe('2023-11-14T22:15:23.4Z');
    expect(formatRFC3339Nano(-1)).toBe('1969-12-31T23:59:59.999Z');
  });
  it('agrees with Date for every year 0001..9999', () => {
    fc.assert(
      fc.property(fc.integer({ min: -62_135_596_800_000, max: 253_402_300_799_999 }), (ms) => {
        const iso = new Date(ms).toISOString().replace(/\.?0+Z$/, 'Z');
        expect(formatRFC3339Nano(ms)).toBe(iso.replace(/\.Z$/, 'Z'));
      }),
    );
  });
});
