/**
 * Definition table, general part: what a process runs, how it listens, API prefixes, the
 * runtime-config file, the storage engine switch, the ruler/alertmanager API switches and the
 * per-tenant `limits` defaults (the runtime-config overrides use the same keys).
 */
import { block, choices, setting } from './definition.js';
import { TARGETS } from './targets.js';
import { INGESTION_RATE_STRATEGIES } from './limits.js';
import { HOUR, MINUTE, SECOND } from './time_units.js';

const DAY = 24 * HOUR;

export const LOG_LEVELS = choices(['debug', 'info', 'warn', 'error']);

export const target = setting('string', 'all', {
  flag: 'target',
  help: 'Comma-separated list of components to run; "all" runs every component in one process (single-binary mode).',
  choices: TARGETS,
});

export const authEnabled = setting('bool', true, {
  flag: 'auth.enabled',
  help: 'Set to false to disable auth (multi-tenancy). When enabled, requests must carry the tenant ID in the X-Scope-OrgID header.',
});

export const httpPrefix = setting('string', '/api/prom', {
  flag: 'http.prefix',
  help: "HTTP path prefix for the legacy API (the reference's /api/mon is served too).",
});

export const apiBlock = block('HTTP API path prefixes.', {
  prometheus_http_prefix: setting('string', '/prometheus', {
    flag: ['http.prometheus-http-prefix', 'http.mon-http-prefix'],
    help: 'HTTP URL path under which the Prometheus API will be served.',
    yamlAliases: ['mon_http_prefix'],
  }),
  alertmanager_http_prefix: setting('string', '/alertmanager', {
    flag: ['http.alertmanager-http-prefix', 'http.notifier-http-prefix'],
    help: 'HTTP URL path under which the Alertmanager UI and API will be served.',
    yamlAliases: ['notifier_http_prefix'],
  }),
});

export const serverBlock = block('The HTTP server and the internal RPC listener.', {
  http_listen_address: setting('string', '', {
    flag: 'server.http-listen-address',
    help: 'HTTP server listen address (empty: all interfaces).',
  }),
  http_listen_port: setting('int', 80, {
    flag: 'server.http-listen-port',
    help: 'HTTP server listen port.',
  }),
  grpc_listen_address: setting('string', '', {
    flag: 'server.grpc-listen-address',
    help: 'Internal RPC listen address (empty: all interfaces).',
  }),
  grpc_listen_port: setting('int', 9095, {
    flag: 'server.grpc-listen-port',
    help: 'Internal RPC listen port: how Strata components call each other (the role gRPC plays in Cortex).',
  }),
  graceful_shutdown_timeout: setting('duration', 30 * SECOND, {
    flag: 'server.graceful-shutdown-timeout',
    help: 'Timeout for graceful shutdowns.',
  }),
  log_level: setting('string', 'info', {
    flag: 'log.level',
    help: 'Only log messages with the given severity or above.',
    choices: LOG_LEVELS,
  }),
});

export const storageBlock = block('Storage engine selection.', {
  engine: setting('string', 'tsdb', {
    flag: 'store.engine',
    help: 'The storage engine to use. Only "tsdb" (blocks storage) is supported; the chunks storage does not exist in Strata.',
  }),
});

export const limitsBlock = block(
  'Per-tenant limits: the defaults for every tenant. The runtime configuration file overrides them per tenant with the same keys.',
  {
    ingestion_rate: setting('float', 25000, {
      flag: 'distributor.ingestion-rate-limit',
      help: 'Per-tenant ingestion rate limit in samples per second.',
    }),
    ingestion_rate_strategy: setting('string', 'local', {
      flag: 'distributor.ingestion-rate-limit-strategy',
      help: 'Whether the ingestion rate limit should be applied individually to each distributor instance (local), or evenly shared across the cluster (global).',
      choices: choices(INGESTION_RATE_STRATEGIES),
    }),
    ingestion_burst_size: setting('int', 50000, {
      flag: 'distributor.ingestion-burst-size',
      help: 'Per-tenant allowed ingestion burst size (in number of samples).',
    }),
    accept_ha_samples: setting('bool', false, {
      flag: 'distributor.ha-tracker.enable-for-all-users',
      help: 'Flag to enable, for all users, handling of samples with external labels identifying replicas in an HA Prometheus setup.',
    }),
    ha_cluster_label: setting('string', 'cluster', {
      flag: 'distributor.ha-tracker.cluster',
      help: 'Prometheus label to look for in samples to identify a Prometheus HA cluster.',
    }),
    ha_replica_label: setting('string', '__replica__', {
      flag: 'distributor.ha-tracker.replica',
      help: 'Prometheus label to look for in samples to identify a Prometheus HA replica.',
    }),
    ha_max_clusters: setting('int', 0, {
      flag: 'distributor.ha-tracker.max-clusters',
      help: 'Maximum number of clusters that HA tracker will keep track of for single user. 0 to disable the limit.',
    }),
    max_label_name_length: setting('int', 1024, {
      flag: 'validation.max-length-label-name',
      help: 'Maximum length accepted for label names.',
    }),
    max_label_value_length: setting('int', 2048, {
      flag: 'validation.max-length-label-value',
      help: 'Maximum length accepted for label value. This setting also applies to the metric name.',
    }),
    max_label_names_per_series: setting('int', 30, {
      flag: 'validation.max-label-names-per-series',
      help: 'Maximum number of label names per series.',
    }),
    max_metadata_length: setting('int', 1024, {
      flag: 'validation.max-metadata-length',
      help: 'Maximum length accepted for metric metadata. Metadata refers to Metric Name, HELP and UNIT.',
    }),
    reject_old_samples: setting('bool', false, {
      flag: 'validation.reject-old-samples',
      help: 'Reject old samples.',
    }),
    reject_old_samples_max_age: setting('duration', 14 * DAY, {
      flag: 'validation.reject-old-samples.max-age',
      help: 'Maximum accepted sample age before rejecting.',
    }),
    // Cortex's help text (kept verbatim) dates from the chunks storage; what the setting does
    // is bound how far in the future a sample's timestamp may be.
    creation_grace_period: setting('duration', 10 * MINUTE, {
      flag: 'validation.create-grace-period',
      help: 'How far into the future a sample timestamp may be; later samples are rejected.',
    }),
    enforce_metadata_metric_name: setting('bool', true, {
      flag: 'validation.enforce-metadata-metric-name',
      help: 'Enforce every metadata has a metric name.',
    }),
    enforce_metric_name: setting('bool', true, {
      flag: 'validation.enforce-metric-name',
      help: 'Enforce every sample has a metric name.',
    }),
    max_global_series_per_user: setting('int', 0, {
      flag: 'ingester.max-global-series-per-user',
      help: 'The maximum number of active series per user, across the cluster. 0 to disable.',
    }),
    max_global_series_per_metric: setting('int', 0, {
      flag: 'ingester.max-global-series-per-metric',
      help: 'The maximum number of active series per metric name, across the cluster. 0 to disable.',
    }),
    max_metadata_per_user: setting('int', 8000, {
      flag: 'ingester.max-metadata-per-user',
      help: 'The maximum number of active metrics with metadata per user, per ingester. 0 to disable.',
    }),
    max_metadata_per_metric: setting('int', 10, {
      flag: 'ingester.max-metadata-per-metric',
      help: 'The maximum number of metadata per metric, per ingester. 0 to disable.',
    }),
    max_global_metadata_per_user: setting('int', 0, {
      flag: 'ingester.max-global-metadata-per-user',
      help: 'The maximum number of active metrics with metadata per user, across the cluster. 0 to disable.',
    }),
    max_global_metadata_per_metric: setting('int', 0, {
      flag: 'ingester.max-global-metadata-per-metric',
      help: 'The maximum number of metadata per metric, across the cluster. 0 to disable.',
    }),
    ruler_max_rules_per_rule_group: setting('int', 0, {
      flag: 'ruler.max-rules-per-rule-group',
      help: 'Maximum number of rules per rule group per-tenant. 0 to disable.',
    }),
    ruler_max_rule_groups_per_tenant: setting('int', 0, {
      flag: 'ruler.max-rule-groups-per-tenant',
      help: 'Maximum number of rule groups per-tenant. 0 to disable.',
    }),
    out_of_order_time_window: setting('duration', 0, {
      flag: 'ingester.out-of-order-time-window',
      help: "Opt-in window for accepting samples older than the default ingestion window (about 1h behind the tenant's newest sample). 0 keeps the reference behaviour: such samples are rejected.",
    }),
    compactor_blocks_retention_period: setting('duration', 0, {
      flag: 'compactor.blocks-retention-period',
      help: 'Delete blocks containing samples older than the specified retention period. 0 to disable.',
    }),
    compactor_tenant_shard_size: setting('int', 0, {
      flag: 'compactor.tenant-shard-size',
      help: "The default tenant's shard size when the shuffle-sharding strategy is used by the compactor. When this setting is specified in the per-tenant overrides, a value of 0 disables shuffle sharding for the tenant.",
    }),
    max_fetched_series_per_query: setting('int', 0, {
      flag: 'querier.max-fetched-series-per-query',
      help: 'The maximum number of unique series for which a query can fetch samples from each ingesters and blocks storage. This limit is enforced in the querier. 0 to disable.',
    }),
    max_fetched_chunk_bytes_per_query: setting('int', 0, {
      flag: 'querier.max-fetched-chunk-bytes-per-query',
      help: 'The maximum size of all chunks in bytes that a query can fetch from each ingester and storage. This limit is enforced in the querier. 0 to disable.',
    }),
    max_fetched_data_bytes_per_query: setting('int', 0, {
      flag: 'querier.max-fetched-data-bytes-per-query',
      help: 'The maximum combined size of all data that a query can fetch from each ingester and storage. This limit is enforced in the querier for `query`, `query_range` and `series` APIs. 0 to disable.',
    }),
    max_cache_freshness: setting('duration', 1 * MINUTE, {
      flag: 'frontend.max-cache-freshness',
      help: 'Most recent allowed cacheable result per-tenant, to prevent caching very recent results that might still be in flux.',
    }),
    max_queriers_per_tenant: setting('int', 0, {
      flag: 'frontend.max-queriers-per-tenant',
      help: 'Maximum number of queriers that can handle requests for a single tenant. If set to 0 or value higher than number of available queriers, *all* queriers will handle requests for the tenant. Each frontend (or query-scheduler, if used) will select the same set of queriers for the same tenant (given that all queriers are connected to all frontends / query-schedulers).',
    }),
    max_outstanding_requests_per_tenant: setting('int', 100, {
      flag: 'frontend.max-outstanding-requests-per-tenant',
      help: 'Maximum number of outstanding requests per tenant per request queue (either query frontend or query scheduler); requests beyond this error with HTTP 429.',
    }),
    max_query_parallelism: setting('int', 14, {
      flag: 'querier.max-query-parallelism',
      help: 'Maximum number of split queries will be scheduled in parallel by the frontend.',
    }),
    query_vertical_shard_size: setting('int', 0, {
      flag: 'frontend.query-vertical-shard-size',
      help: '[Experimental] Number of shards to use when distributing shardable PromQL queries (sum, count, min, max, avg, topk, bottomk aggregations by labels) across queriers. 0 or 1 disables sharding.',
    }),
  },
);

export const rulerBlock = block('The ruler.', {
  enable_api: setting('bool', false, {
    flag: ['ruler.enable-api', 'experimental.ruler.enable-api'],
    help: 'Enable the ruler API (rule group configuration endpoints).',
  }),
});

export const alertmanagerBlock = block(
  "The multi-tenant Alertmanager (the reference's notifier).",
  {
    enable_api: setting('bool', false, {
      flag: [
        'alertmanager.enable-api',
        'experimental.alertmanager.enable-api',
        'notifier.enable-api',
      ],
      help: 'Enable the Alertmanager configuration API (/api/v1/alerts).',
    }),
  },
  { yamlAliases: ['notifier'] },
);

export const runtimeConfigBlock = block(
  'The runtime configuration file with per-tenant overrides, reloaded periodically.',
  {
    file: setting('string', '', {
      flag: 'runtime-config.file',
      help: 'File with the configuration that can be updated in runtime.',
    }),
    period: setting('duration', 10 * SECOND, {
      flag: 'runtime-config.reload-period',
      help: 'How often to check runtime config file.',
    }),
  },
);
