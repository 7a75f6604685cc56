import { describe, expect, it } from 'vitest';
import { SeriesLimiter, convertGlobalToLocalLimit } from './series_limiter.js';

describe('convertGlobalToLocalLimit (Cortex limiter.go)', () => {
  it('is global / ingesters × RF, truncated', () => {
    expect(convertGlobalToLocalLimit(10, 3, 6)).toBe(5);
    expect(convertGlobalToLocalLimit(10, 3, 4)).toBe(7);
    expect(convertGlobalToLocalLimit(100, 1, 1)).toBe(100);
  });
  it('keeps 0 as unlimited and ignores the limit while no ingester is known', () => {
    expect(convertGlobalToLocalLimit(0, 3, 3)).toBe(0);
    expect(convertGlobalToLocalLimit(1000, 3, 0)).toBe(0);
  });
  it('asks the ring on every call', () => {
    let instances = 3;
    const limiter = new SeriesLimiter(
      { maxGlobalSeriesPerUser: () => 300, maxGlobalSeriesPerMetric: () => 30 },
      { replicationFactor: () => 3, healthyInstances: () => instances },
    );
    expect(limiter.localSeriesPerUser('t')).toBe(300);
    expect(limiter.localSeriesPerMetric('t')).toBe(30);
    instances = 6;
    expect(limiter.localSeriesPerUser('t')).toBe(150);
    expect(limiter.localSeriesPerMetric('t')).toBe(15);
  });
});
