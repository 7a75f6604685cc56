import { describe, expect, it } from 'vitest';
import { ChunkPool, ChunkPoolExhaustedError, DEFAULT_MAX_CHUNK_POOL_BYTES } from './chunk_pool.js';

describe('ChunkPool', () => {
  it('defaults to 2 GiB as the reference says', () => {
    expect(DEFAULT_MAX_CHUNK_POOL_BYTES).toBe(2147483648);
  });

  it('grants reservations up to the limit and fails beyond it, reserving nothing', () => {
    const pool = new ChunkPool({ maxBytes: 100, tenant: 'team-a' });
    pool.acquire(60);
    pool.acquire(40);
    expect(pool.inUse).toBe(100);
    let err: unknown;
    try {
      pool.acquire(1);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ChunkPoolExhaustedError);
    expect((err as ChunkPoolExhaustedError).code).toBe('resource_exhausted');
    expect((err as Error).message).toBe(
      'resource exhausted: chunk pool of tenant "team-a" cannot take 1 more bytes (100 in use by queries in flight, limit max_chunk_pool_bytes=100)',
    );
    expect(pool.inUse).toBe(100);
    pool.release(60);
    pool.acquire(50);
    expect(pool.inUse).toBe(90);
  });

  it('fails a single reservation larger than the whole pool', () => {
    const pool = new ChunkPool({ maxBytes: 10, tenant: 't' });
    expect(() => pool.acquire(11)).toThrow(/max_chunk_pool_bytes=10/);
    expect(pool.inUse).toBe(0);
  });

  it('treats 0 as no limit', () => {
    const pool = new ChunkPool({ maxBytes: 0, tenant: 't' });
    pool.acquire(1e12);
    expect(pool.inUse).toBe(1e12);
  });

  it('leases release everything they hold at once, once', () => {
    const pool = new ChunkPool({ maxBytes: 100, tenant: 't' });
    const a = pool.lease();
    const b = pool.lease();
    a.acquire(30);
    a.acquire(20);
    b.acquire(50);
    expect(() => b.acquire(1)).toThrow(ChunkPoolExhaustedError);
    expect(b.bytes).toBe(50);
    a.releaseAll();
    a.releaseAll();
    expect(pool.inUse).toBe(50);
    b.acquire(50);
    b.releaseAll();
    expect(pool.inUse).toBe(0);
  });

  it('rejects invalid byte counts and over-release', () => {
    const pool = new ChunkPool({ maxBytes: 100, tenant: 't' });
    expect(() => pool.acquire(-1)).toThrow(/non-negative integer/);
    expect(() => pool.acquire(1.5)).toThrow(/non-negative integer/);
    expect(() => pool.release(1)).toThrow(/only 0 are in use/);
    expect(() => new ChunkPool({ maxBytes: Number.NaN, tenant: 't' })).toThrow(/finite/);
  });
});
