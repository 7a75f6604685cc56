/**
 * Definition table, query path part: the query-frontend (`frontend`, `query_range`), the
 * querier's worker that pulls queries from a frontend or scheduler (`frontend_worker`) and the
 * query-scheduler (`query_scheduler`). YAML keys, flags and defaults are Cortex's; the
 * per-tenant knobs of the frontend (outstanding requests, querier shuffle sharding, vertical
 * shard size, cache freshness) are limits (schema_general.ts), as in Cortex since 1.6/1.14.
 */
import { block, setting } from './definition.js';
import { MINUTE, MS, SECOND } from './time_units.js';

export const frontendBlock = block(
  'The query-frontend: queues queries per tenant in front of the queriers, splits, caches and shards range queries.',
  {
    max_outstanding_per_tenant: setting('int', 100, {
      flag: 'querier.max-outstanding-requests-per-tenant',
      help: 'Maximum number of outstanding requests per tenant per frontend; requests beyond this error with HTTP 429. The per-tenant limit -frontend.max-outstanding-requests-per-tenant applies too: the smaller of the two bounds a queue. 0 leaves only the per-tenant limit.',
    }),
    log_queries_longer_than: setting('duration', 0, {
      flag: 'frontend.log-queries-longer-than',
      help: 'Log queries that are slower than the specified duration. Set to 0 to disable. Set to < 0 to enable on all queries.',
    }),
    max_body_size: setting('int', 10 * 1024 * 1024, {
      flag: 'frontend.max-body-size',
      help: 'Max body size for downstream prometheus.',
    }),
    query_stats_enabled: setting('bool', false, {
      flag: 'frontend.query-stats-enabled',
      help: 'True to enable query statistics tracking. When enabled, a message with some statistics is logged for every query and cortex_query_seconds_total counts querier wall time per tenant.',
    }),
    scheduler_address: setting('string', '', {
      flag: 'frontend.scheduler-address',
      help: 'Address of the query-scheduler (host:port). When set, the frontend enqueues queries there instead of in its own queue, and queriers answer it directly.',
    }),
    querier_forget_delay: setting('duration', 0, {
      flag: 'query-frontend.querier-forget-delay',
      help: "If a querier disconnects without notice, keep it in the tenants' shards for this long before replacing it (limits the blast radius of a query that crashes queriers under shuffle sharding). 0 forgets at once.",
    }),
  },
);

const memcachedClientSettings = block(
  'Memcached client of the results cache. Entries are sharded over the servers by jump hash.',
  {
    addresses: setting('string', '', {
      flag: 'frontend.memcached.addresses',
      help: 'Comma separated addresses list in DNS Service Discovery format: dns+ (A/AAAA lookup, port required), dnssrv+ (SRV lookup), dnssrvnoa+ (SRV lookup without the A/AAAA lookup after it), or a plain host:port.',
    }),
    timeout: setting('duration', 100 * MS, {
      flag: 'frontend.memcached.timeout',
      help: 'Maximum time to wait before giving up on memcached requests.',
    }),
    max_idle_conns: setting('int', 16, {
      flag: 'frontend.memcached.max-idle-conns',
      help: 'Maximum number of idle connections in pool.',
    }),
    update_interval: setting('duration', 1 * MINUTE, {
      flag: 'frontend.memcached.update-interval',
      help: 'Period with which to poll DNS for memcache servers.',
    }),
    max_item_size: setting('int', 1024 * 1024, {
      flag: 'frontend.memcached.max-item-size',
      help: 'The maximum size of an item stored in memcached. Bigger items are not stored. If set to 0, no maximum size is enforced.',
    }),
  },
);

const resultsCacheBlock = block('The results cache of split range queries.', {
  cache: block('The cache backend: memcached (addresses set) or the in-memory FIFO cache.', {
    enable_fifocache: setting('bool', false, {
      flag: 'frontend.cache.enable-fifocache',
      help: 'Enable in-memory cache.',
    }),
    default_validity: setting('duration', 0, {
      flag: 'frontend.default-validity',
      help: 'The default validity of entries for caches unless overridden. 0 keeps entries until evicted.',
    }),
    background: block('Asynchronous write-back of cache entries.', {
      writeback_goroutines: setting('int', 10, {
        flag: 'frontend.background.write-back-concurrency',
        help: 'At what concurrency to write back to cache.',
      }),
      writeback_buffer: setting('int', 10000, {
        flag: 'frontend.background.write-back-buffer',
        help: 'How many key batches to buffer for background write-back; writes beyond it are dropped and counted.',
      }),
    }),
    memcached: block('How results are stored in memcached.', {
      expiration: setting('duration', 0, {
        flag: 'frontend.memcached.expiration',
        help: 'How long keys stay in the memcache. 0 uses -frontend.default-validity.',
      }),
      batch_size: setting('int', 1024, {
        flag: 'frontend.memcached.batchsize',
        help: 'How many keys to fetch in each batch.',
      }),
      parallelism: setting('int', 100, {
        flag: 'frontend.memcached.parallelism',
        help: 'Maximum active requests to memcache.',
      }),
    }),
    memcached_client: memcachedClientSettings,
    fifocache: block('The in-memory FIFO cache.', {
      max_size_bytes: setting('int', 0, {
        flag: 'frontend.fifocache.max-size-bytes',
        help: 'Maximum memory size of the cache in bytes. 0 with max_size_items 0 means 1 GiB.',
      }),
      max_size_items: setting('int', 0, {
        flag: 'frontend.fifocache.max-size-items',
        help: 'Maximum number of entries in the cache. 0 = unlimited (bounded by bytes).',
      }),
      validity: setting('duration', 0, {
        flag: 'frontend.fifocache.duration',
        help: 'The expiry duration for the cache. 0 uses -frontend.default-validity.',
      }),
    }),
  }),
});

export const queryRangeBlock = block(
  'Splitting, alignment, caching and retries of range queries in the query-frontend.',
  {
    split_queries_by_interval: setting('duration', 0, {
      flag: 'querier.split-queries-by-interval',
      help: 'Split queries by an interval and execute in parallel, 0 disables it. You should use a multiple of 24 hours (same as the storage bucketing scheme), to avoid queriers downloading and processing the same chunks. This also determines how cache keys are chosen when result caching is enabled.',
    }),
    align_queries_with_step: setting('bool', false, {
      flag: 'querier.align-querier-with-step',
      help: 'Mutate incoming queries to align their start and end with their step.',
    }),
    results_cache: resultsCacheBlock,
    cache_results: setting('bool', false, {
      flag: 'querier.cache-results',
      help: 'Cache query results.',
    }),
    max_retries: setting('int', 5, {
      flag: 'querier.max-retries-per-request',
      help: 'Maximum number of retries for a single request; beyond this, the downstream error is returned.',
    }),
  },
);

export const frontendWorkerBlock = block(
  'The worker in the querier that pulls queries from the query-frontend or the query-scheduler.',
  {
    frontend_address: setting('string', '', {
      flag: 'querier.frontend-address',
      help: 'Address of query frontend service, in host:port format. Only one of -querier.frontend-address or -querier.scheduler-address can be set. If neither is set, queries are only received via HTTP endpoint.',
    }),
    scheduler_address: setting('string', '', {
      flag: 'querier.scheduler-address',
      help: 'Hostname (and port) of scheduler that querier will periodically resolve, connect to and receive queries from. Only one of -querier.frontend-address or -querier.scheduler-address can be set.',
    }),
    parallelism: setting('int', 10, {
      flag: 'querier.worker-parallelism',
      help: 'Number of simultaneous queries to process per query-frontend or query-scheduler.',
    }),
    dns_lookup_duration: setting('duration', 10 * SECOND, {
      flag: 'querier.dns-lookup-period',
      help: 'How often to query DNS for query-frontend or query-scheduler address.',
    }),
    id: setting('string', '', {
      flag: 'querier.id',
      help: 'Querier ID, sent to the frontend or scheduler to identify requests from the same querier (shuffle sharding). Defaults to the hostname.',
    }),
  },
);

export const querySchedulerBlock = block(
  'The query-scheduler: holds the per-tenant queues when frontends and queriers are scaled apart.',
  {
    max_outstanding_requests_per_tenant: setting('int', 100, {
      flag: 'query-scheduler.max-outstanding-requests-per-tenant',
      help: 'Maximum number of outstanding requests per tenant per query-scheduler. In-flight requests above this limit fail with HTTP response status code 429. The per-tenant limit -frontend.max-outstanding-requests-per-tenant applies too: the smaller of the two bounds a queue.',
    }),
    querier_forget_delay: setting('duration', 0, {
      flag: 'query-scheduler.querier-forget-delay',
      help: "If a querier disconnects without notice, keep it in the tenants' shards for this long before replacing it. 0 forgets at once.",
    }),
  },
);
