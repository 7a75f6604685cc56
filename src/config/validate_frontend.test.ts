import { describe, expect, it } from 'vitest';
import { defaultConfig } from './config_tree.js';
import { loadConfig } from './load.js';
import { StaticFiles } from './testing_files.js';
import { configProblems } from './validate.js';
import type { Config } from './types.js';

const HOUR = 3_600_000;

function problems(change: (c: Config) => void): string[] {
  const c = defaultConfig();
  change(c);
  return configProblems(c);
}

describe('query path validation', () => {
  it('refuses results caching without split queries, naming both flags', () => {
    expect(
      problems((c) => {
        c.query_range.cache_results = true;
        c.query_range.results_cache.cache.enable_fifocache = true;
      }),
    ).toEqual([
      'query_range.cache_results (-querier.cache-results) may only be enabled in conjunction with query_range.split_queries_by_interval (-querier.split-queries-by-interval): please set the latter',
    ]);
  });

  it('refuses results caching with no cache backend', () => {
    expect(
      problems((c) => {
        c.query_range.cache_results = true;
        c.query_range.split_queries_by_interval = 24 * HOUR;
      }),
    ).toEqual([
      'query_range.cache_results (-querier.cache-results) is enabled but no results cache is configured: set query_range.results_cache.cache.memcached_client.addresses (-frontend.memcached.addresses) or query_range.results_cache.cache.enable_fifocache (-frontend.cache.enable-fifocache)',
    ]);
  });

  it('accepts results caching on memcached or the FIFO cache with a split interval', () => {
    for (const backend of ['memcached', 'fifo']) {
      expect(
        problems((c) => {
          c.query_range.cache_results = true;
          c.query_range.split_queries_by_interval = 24 * HOUR;
          if (backend === 'fifo') c.query_range.results_cache.cache.enable_fifocache = true;
          else c.query_range.results_cache.cache.memcached_client.addresses = 'dns+localhost:11211';
        }),
      ).toEqual([]);
    }
  });

  it('refuses a querier that pulls from both a frontend and a scheduler', () => {
    expect(
      problems((c) => {
        c.frontend_worker.frontend_address = 'frontend:9095';
        c.frontend_worker.scheduler_address = 'scheduler:9095';
      }),
    ).toEqual([
      'frontend_worker.frontend_address (-querier.frontend-address) and frontend_worker.scheduler_address (-querier.scheduler-address) are both set: a querier pulls queries from a frontend or from a scheduler, not both',
    ]);
  });

  it('refuses negative bounds', () => {
    expect(
      problems((c) => {
        c.query_range.split_queries_by_interval = -1;
        c.query_range.max_retries = -1;
        c.frontend_worker.parallelism = 0;
        c.limits.query_vertical_shard_size = -2;
        c.limits.max_query_parallelism = -3;
      }),
    ).toEqual([
      'limits.max_query_parallelism (-querier.max-query-parallelism) is -3: it must not be negative',
      'limits.query_vertical_shard_size (-frontend.query-vertical-shard-size) is -2: it must not be negative',
      'query_range.split_queries_by_interval (-querier.split-queries-by-interval) is negative: use 0 to disable splitting',
      'query_range.max_retries (-querier.max-retries-per-request) is -1: it must be 0 or more',
      'frontend_worker.parallelism (-querier.worker-parallelism) is 0: it must be greater than 0',
    ]);
  });

  it("reads Cortex's flags into the query path blocks and limits", async () => {
    const result = await loadConfig(
      [
        '-target=query-frontend',
        '-querier.cache-results=true',
        '-querier.split-queries-by-interval=24h',
        '-querier.align-querier-with-step=true',
        '-frontend.memcached.addresses=dns+localhost:11211',
        '-frontend.max-outstanding-requests-per-tenant=7',
        '-frontend.max-queriers-per-tenant=2',
        '-frontend.query-vertical-shard-size=3',
        '-frontend.max-cache-freshness=10m',
        '-frontend.log-queries-longer-than=5s',
        '-querier.max-retries-per-request=2',
        '-querier.max-query-parallelism=4',
      ],
      { fs: new StaticFiles({}), env: {} },
    );
    if (result.kind !== 'config') throw new Error('expected a config');
    const config = result.config;
    expect(config.query_range).toMatchObject({
      cache_results: true,
      split_queries_by_interval: 24 * HOUR,
      align_queries_with_step: true,
      max_retries: 2,
    });
    expect(config.query_range.results_cache.cache.memcached_client.addresses).toBe(
      'dns+localhost:11211',
    );
    expect(config.limits).toMatchObject({
      max_outstanding_requests_per_tenant: 7,
      max_queriers_per_tenant: 2,
      query_vertical_shard_size: 3,
      max_cache_freshness: 600_000,
      max_query_parallelism: 4,
    });
    expect(config.frontend.log_queries_longer_than).toBe(5000);
  });

  it('accepts the query-scheduler target', () => {
    expect(problems((c) => (c.target = 'query-scheduler'))).toEqual([]);
  });
});
