import { describe, expect, it } from 'vitest';
import { ManualClock } from '../runtime/testing/index.js';
import { HttpError } from '../server/index.js';
import { DEFAULT_DISTRIBUTOR_LIMITS, type DistributorLimits } from './limits.js';
import { IngestionRateLimiter, TokenBucket } from './rate_limiter.js';

function limiter(clock: ManualClock, overrides: Partial<DistributorLimits>) {
  let current: DistributorLimits = { ...DEFAULT_DISTRIBUTOR_LIMITS, ...overrides };
  const rl = new IngestionRateLimiter({}, { clock, limits: () => current });
  return { rl, set: (o: Partial<DistributorLimits>) => (current = { ...current, ...o }) };
}

describe('TokenBucket', () => {
  it('starts full, takes all-or-nothing and refills at the rate up to the burst', () => {
    const b = new TokenBucket(10, 20, 0);
    expect(b.allowN(0, 21)).toBe(false);
    expect(b.allowN(0, 15)).toBe(true);
    expect(b.allowN(0, 6)).toBe(false);
    expect(b.allowN(0, 5)).toBe(true);
    expect(b.allowN(500, 6)).toBe(false);
    expect(b.allowN(500, 5)).toBe(true);
    expect(b.allowN(100_000, 20)).toBe(true);
    expect(b.allowN(100_000, 1)).toBe(false);
    expect(new TokenBucket(Infinity, 0, 0).allowN(0, 1e9)).toBe(true);
  });
});

describe('IngestionRateLimiter', () => {
  it("answers 429 with Cortex's text once the burst is used", () => {
    const clock = new ManualClock(1_000_000);
    const { rl } = limiter(clock, { ingestionRate: 100, ingestionBurstSize: 200 });
    rl.check('t', { samples: 150, exemplars: 0, metadata: 0 });
    let err: unknown;
    try {
      rl.check('t', { samples: 40, exemplars: 5, metadata: 10 });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(HttpError);
    expect((err as HttpError).status).toBe(429);
    expect((err as Error).message).toBe(
      'ingestion rate limit (100) exceeded while adding 40 samples and 10 metadata',
    );
    // other tenants have their own bucket
    expect(rl.allowN('other', 200)).toBe(true);
  });

  it('refills with the injected clock', async () => {
    const clock = new ManualClock(0);
    const { rl } = limiter(clock, { ingestionRate: 10, ingestionBurstSize: 10 });
    expect(rl.allowN('t', 10)).toBe(true);
    expect(rl.allowN('t', 1)).toBe(false);
    await clock.advance(300);
    expect(rl.allowN('t', 3)).toBe(true);
    expect(rl.allowN('t', 1)).toBe(false);
  });

  it('divides the rate by healthy distributors under the global strategy (not the burst)', () => {
    const clock = new ManualClock(0);
    const { rl } = limiter(clock, {
      ingestionRate: 1000,
      ingestionBurstSize: 50,
      ingestionRateStrategy: 'global',
    });
    expect(rl.limit('t', 4)).toBe(250);
    expect(rl.effectiveLimit('t', 0)).toBe(1000);
    expect(rl.allowN('t2', 50, 4)).toBe(true);
    const local = limiter(clock, { ingestionRate: 1000, ingestionRateStrategy: 'local' }).rl;
    expect(local.limit('t', 4)).toBe(1000);
  });

  it('picks up changed limits after the recheck period', async () => {
    const clock = new ManualClock(0);
    const { rl, set } = limiter(clock, { ingestionRate: 1e6, ingestionBurstSize: 10 });
    expect(rl.limit('t')).toBe(1e6);
    set({ ingestionRate: 5, ingestionBurstSize: 5 });
    await clock.advance(9_999);
    expect(rl.limit('t')).toBe(1e6);
    await clock.advance(1);
    expect(rl.limit('t')).toBe(5);
    expect(() => rl.check('t', { samples: 6, exemplars: 0, metadata: 0 })).toThrow(
      'ingestion rate limit (5) exceeded while adding 6 samples and 0 metadata',
    );
    set({ ingestionRate: 1.5e6 });
    await clock.advance(10_000);
    expect(() => rl.check('t', { samples: 6, exemplars: 0, metadata: 0 })).toThrow(
      'ingestion rate limit (1.5e+06) exceeded while adding 6 samples and 0 metadata',
    );
  });
});
