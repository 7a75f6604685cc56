import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../../src/config/index.js';
import { applyFrontend, parseFrontendSim } from './config_frontend.js';

const TENANTS = new Set(['team-a', 'team-b']);
const MC = { memcached_addresses: 'dns+memcached.sim:11211' };

describe('workload.frontend', () => {
  it('is optional and has documented defaults', () => {
    expect(parseFrontendSim(undefined, 'w.frontend', TENANTS)).toBeUndefined();
    const f = parseFrontendSim(MC, 'w.frontend', TENANTS)!;
    expect(f).toMatchObject({
      splitIntervalMs: 60_000,
      resultsCache: 'memcached',
      maxCacheFreshnessMs: 60_000,
      storeCachesOnMemcached: true,
      shardSize: 0,
      maxOutstandingPerTenant: 100,
      stepMs: 15_000,
      broken: 'none',
      flood: undefined,
    });
  });

  it('refuses unknown backends, memcached caches without addresses and unknown flooders', () => {
    expect(() => parseFrontendSim({ ...MC, results_cache: 'redis' }, 'w.f', TENANTS)).toThrow(
      'w.f.results_cache: unknown backend "redis" (known: memcached, fifo, none)',
    );
    expect(() => parseFrontendSim({}, 'w.f', TENANTS)).toThrow(
      'w.f.memcached_addresses: required by memcached caches',
    );
    expect(() =>
      parseFrontendSim({ ...MC, flood: { tenant: 'x', from: '1m', until: '2m' } }, 'w.f', TENANTS),
    ).toThrow('w.f.flood.tenant: unknown tenant x');
    expect(() => parseFrontendSim({ ...MC, broken: 'nope' }, 'w.f', TENANTS)).toThrow(
      'w.f.broken: unknown mode "nope"',
    );
  });

  it('points queriers at the frontend and sets the caches; the broken mode drops the freshness', () => {
    const f = parseFrontendSim({ ...MC, shard_size: 2 }, 'w.f', TENANTS)!;
    f.address = 'query-frontend-1';
    const querier = defaultConfig();
    querier.target = 'querier';
    applyFrontend(querier, f);
    expect(querier.frontend_worker.frontend_address).toBe('query-frontend-1');
    expect(querier.tsdb.bucket_store.index_cache.backend).toBe('memcached');
    expect(querier.tsdb.bucket_store.chunks_cache.memcached.addresses).toBe(MC.memcached_addresses);
    const frontend = defaultConfig();
    frontend.target = 'query-frontend';
    applyFrontend(frontend, f);
    expect(frontend.frontend_worker.frontend_address).toBe('');
    expect(frontend.query_range.cache_results).toBe(true);
    expect(frontend.query_range.results_cache.cache.memcached_client.addresses).toBe(
      MC.memcached_addresses,
    );
    expect(frontend.limits.max_cache_freshness).toBe(60_000);
    expect(frontend.limits.query_vertical_shard_size).toBe(2);
    const broken = defaultConfig();
    applyFrontend(broken, { ...f, broken: 'ignore_cache_freshness' });
    expect(broken.limits.max_cache_freshness).toBe(0);
  });
});
