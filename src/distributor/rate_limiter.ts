import { formatFloatG } from '../model/index.js';
import type { Clock } from '../runtime/index.js';
import { IngestionRateLimitedError } from './errors.js';
import type { DistributorLimitsFn } from './limits.js';

/** How often a tenant's limit and burst are re-read from the limits (Cortex: 10s). */
export const DEFAULT_RATE_LIMIT_RECHECK_MS = 10_000;

/**
 * A token bucket with golang.org/x/time/rate's AllowN semantics: it starts full, refills at
 * `limit` tokens per second up to `burst`, and a request for `n` tokens either takes them all
 * now or takes none (never borrows from the future). `limit` may be Infinity.
 */
export class TokenBucket {
  private tokens: number;
  private last: number;

  constructor(
    private limitPerSecond: number,
    private burstSize: number,
    nowMs: number,
  ) {
    this.tokens = burstSize;
    this.last = nowMs;
  }

  get limit(): number {
    return this.limitPerSecond;
  }

  get burst(): number {
    return this.burstSize;
  }

  allowN(nowMs: number, n: number): boolean {
    if (this.limitPerSecond === Infinity) return true;
    this.advance(nowMs);
    if (n > this.tokens) return false;
    this.tokens -= n;
    return true;
  }

  /** Changes the rate from `nowMs` on (tokens so far accrue at the old rate). */
  setLimitAt(nowMs: number, limit: number): void {
    this.advance(nowMs);
    this.limitPerSecond = limit;
  }

  setBurstAt(nowMs: number, burst: number): void {
    this.advance(nowMs);
    this.burstSize = burst;
    this.tokens = Math.min(this.tokens, burst);
  }

  private advance(nowMs: number): void {
    // A clock that steps back (skew in simulation) must not mint or remove tokens.
    const elapsed = Math.max(0, nowMs - this.last);
    this.last = Math.max(this.last, nowMs);
    this.tokens = Math.min(this.burstSize, this.tokens + (elapsed / 1000) * this.limitPerSecond);
  }
}

export interface IngestionRateLimiterConfig {
  /** Re-read period of each tenant's limits; Cortex uses 10s. */
  recheckPeriodMs?: number;
}

export interface IngestionRateLimiterDeps {
  clock: Clock;
  limits: DistributorLimitsFn;
}

/**
 * The distributor's per-tenant ingestion rate limiter (Cortex's RateLimiter with the local or
 * global strategy). Under `global`, the tenant's `ingestion_rate` is divided by the number of
 * healthy distributors the caller passes (the burst is not divided, as in Cortex).
 */
export class IngestionRateLimiter {
  private readonly tenants = new Map<string, { bucket: TokenBucket; recheckAt: number }>();
  private readonly recheckPeriodMs: number;

  constructor(
    config: IngestionRateLimiterConfig,
    private readonly deps: IngestionRateLimiterDeps,
  ) {
    this.recheckPeriodMs = config.recheckPeriodMs ?? DEFAULT_RATE_LIMIT_RECHECK_MS;
  }

  /** The effective rate for `tenant` given `healthyDistributors` (0 counts as 1). */
  effectiveLimit(tenant: string, healthyDistributors: number): number {
    const l = this.deps.limits(tenant);
    if (l.ingestionRateStrategy === 'global' && healthyDistributors > 0) {
      return l.ingestionRate / healthyDistributors;
    }
    return l.ingestionRate;
  }

  /** True (and the tokens taken) when `n` more samples+exemplars+metadata fit now. */
  allowN(tenant: string, n: number, healthyDistributors = 1): boolean {
    const now = this.deps.clock.now();
    return this.bucket(tenant, now, healthyDistributors).allowN(now, n);
  }

  /** The limit currently applied to `tenant` (what the 429 message shows). */
  limit(tenant: string, healthyDistributors = 1): number {
    return this.bucket(tenant, this.deps.clock.now(), healthyDistributors).limit;
  }

  /**
   * Takes the tokens for a push, or throws Cortex's 429 error naming the limit and the counts.
   */
  check(
    tenant: string,
    counts: { samples: number; exemplars: number; metadata: number },
    healthyDistributors = 1,
  ): void {
    const n = counts.samples + counts.exemplars + counts.metadata;
    if (this.allowN(tenant, n, healthyDistributors)) return;
    throw new IngestionRateLimitedError(
      `ingestion rate limit (${formatFloatG(this.limit(tenant, healthyDistributors))}) exceeded while adding ${counts.samples} samples and ${counts.metadata} metadata`,
    );
  }

  private bucket(tenant: string, now: number, healthyDistributors: number): TokenBucket {
    const entry = this.tenants.get(tenant);
    if (entry === undefined) {
      const bucket = new TokenBucket(
        this.effectiveLimit(tenant, healthyDistributors),
        this.deps.limits(tenant).ingestionBurstSize,
        now,
      );
      this.tenants.set(tenant, { bucket, recheckAt: now + this.recheckPeriodMs });
      return bucket;
    }
    if (now >= entry.recheckAt) {
      const limit = this.effectiveLimit(tenant, healthyDistributors);
      const burst = this.deps.limits(tenant).ingestionBurstSize;
      if (entry.bucket.limit !== limit) entry.bucket.setLimitAt(now, limit);
      if (entry.bucket.burst !== burst) entry.bucket.setBurstAt(now, burst);
      entry.recheckAt = now + this.recheckPeriodMs;
    }
    return entry.bucket;
  }

  /** Forgets a tenant's bucket (tenant inactive). */
  forget(tenant: string): void {
    this.tenants.delete(tenant);
  }
}
