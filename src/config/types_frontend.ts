/**
 * The typed shape of the query path's configuration blocks (see schema_frontend.ts):
 * durations are integer milliseconds, as everywhere in Config.
 */

export interface FrontendConfig {
  /** -querier.max-outstanding-requests-per-tenant: per tenant per frontend queue; 0 = none. */
  max_outstanding_per_tenant: number;
  /** -frontend.log-queries-longer-than: 0 = off, < 0 = every query. */
  log_queries_longer_than: number;
  max_body_size: number;
  query_stats_enabled: boolean;
  /** -frontend.scheduler-address: enqueue at this query-scheduler instead of locally. */
  scheduler_address: string;
  querier_forget_delay: number;
}

export interface QueryRangeConfig {
  /** -querier.split-queries-by-interval: 0 = no splitting. */
  split_queries_by_interval: number;
  align_queries_with_step: boolean;
  results_cache: ResultsCacheConfig;
  cache_results: boolean;
  max_retries: number;
}

export interface ResultsCacheConfig {
  cache: ResultsCacheBackendConfig;
}

export interface ResultsCacheBackendConfig {
  enable_fifocache: boolean;
  default_validity: number;
  background: { writeback_goroutines: number; writeback_buffer: number };
  memcached: { expiration: number; batch_size: number; parallelism: number };
  memcached_client: {
    addresses: string;
    timeout: number;
    max_idle_conns: number;
    update_interval: number;
    max_item_size: number;
  };
  fifocache: { max_size_bytes: number; max_size_items: number; validity: number };
}

export interface FrontendWorkerConfig {
  frontend_address: string;
  scheduler_address: string;
  parallelism: number;
  dns_lookup_duration: number;
  id: string;
}

export interface QuerySchedulerConfig {
  max_outstanding_requests_per_tenant: number;
  querier_forget_delay: number;
}
