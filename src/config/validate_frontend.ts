/**
 * Cross-setting rules of the query path (Cortex's queryrange.Config and worker Config
 * validation): results caching needs split intervals and a cache, a querier pulls from a
 * frontend or a scheduler but not both, and bounds must not be negative.
 */
import type { Config } from './types.js';

export function frontendProblems(config: Config, name: (yamlPath: string) => string): string[] {
  const problems: string[] = [];
  const range = config.query_range;
  if (range.split_queries_by_interval < 0)
    problems.push(
      `${name('query_range.split_queries_by_interval')} is negative: use 0 to disable splitting`,
    );
  if (range.cache_results) {
    // Cortex: the cache key is the split interval's bucket, so caching without splitting has
    // no key to use.
    if (range.split_queries_by_interval <= 0)
      problems.push(
        `${name('query_range.cache_results')} may only be enabled in conjunction with ${name('query_range.split_queries_by_interval')}: please set the latter`,
      );
    const cache = range.results_cache.cache;
    if (!cache.enable_fifocache && cache.memcached_client.addresses.trim() === '')
      problems.push(
        `${name('query_range.cache_results')} is enabled but no results cache is configured: set ${name('query_range.results_cache.cache.memcached_client.addresses')} or ${name('query_range.results_cache.cache.enable_fifocache')}`,
      );
  }
  if (range.max_retries < 0)
    problems.push(
      `${name('query_range.max_retries')} is ${range.max_retries}: it must be 0 or more`,
    );
  const worker = config.frontend_worker;
  if (worker.frontend_address !== '' && worker.scheduler_address !== '')
    problems.push(
      `${name('frontend_worker.frontend_address')} and ${name('frontend_worker.scheduler_address')} are both set: a querier pulls queries from a frontend or from a scheduler, not both`,
    );
  if (worker.parallelism <= 0)
    problems.push(
      `${name('frontend_worker.parallelism')} is ${worker.parallelism}: it must be greater than 0`,
    );
  return problems;
}
