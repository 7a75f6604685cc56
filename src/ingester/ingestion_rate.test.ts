import { describe, expect, it } from 'vitest';
import { IngestionRate } from './ingestion_rate.js';

describe('IngestionRate', () => {
  it('averages samples over the window and forgets older ones', () => {
    const rate = new IngestionRate(10_000);
    rate.add(1_000, 50);
    rate.add(5_500, 50);
    expect(rate.perSecond(9_999)).toBe(10);
    // At 11s the bucket of second 1 left the window [2s, 11s].
    expect(rate.perSecond(11_000)).toBe(5);
    expect(rate.perSecond(30_000)).toBe(0);
    // A reused slot starts from zero.
    rate.add(21_000, 7);
    expect(rate.perSecond(21_000)).toBe(0.7);
  });
});
