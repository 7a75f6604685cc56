/**
 * The definition table against the reference's configuration tables (flag, YAML key, default,
 * read literally) and the brief's list of general settings, plus the table's own integrity.
 */
import { describe, expect, it } from 'vitest';
import { META_FLAGS } from './flags.js';
import { CONFIG_TABLE } from './schema.js';
import { formatValue } from './values.js';

type Row = readonly [yamlPath: string, flag: string, defaultValue: string];

const T = 'experimental.tsdb.';
const BS = `${T}bucket-store.`;

const memcachedRows = (cache: string, flagPrefix: string): Row[] => [
  [`${cache}.memcached.addresses`, `${flagPrefix}memcached.addresses`, ''],
  [`${cache}.memcached.timeout`, `${flagPrefix}memcached.timeout`, '100ms'],
  [`${cache}.memcached.max_idle_connections`, `${flagPrefix}memcached.max-idle-connections`, '16'],
  [
    `${cache}.memcached.max_async_concurrency`,
    `${flagPrefix}memcached.max-async-concurrency`,
    '50',
  ],
  [
    `${cache}.memcached.max_async_buffer_size`,
    `${flagPrefix}memcached.max-async-buffer-size`,
    '10000',
  ],
  [
    `${cache}.memcached.max_get_multi_concurrency`,
    `${flagPrefix}memcached.max-get-multi-concurrency`,
    '100',
  ],
  [
    `${cache}.memcached.max_get_multi_batch_size`,
    `${flagPrefix}memcached.max-get-multi-batch-size`,
    '0',
  ],
  [`${cache}.memcached.max_item_size`, `${flagPrefix}memcached.max-item-size`, '1048576'],
];

const ringRows = (yamlRing: string, flagPrefix: string, heartbeatPeriod: string): Row[] => [
  [`${yamlRing}.kvstore.store`, `${flagPrefix}store`, 'consul'],
  [`${yamlRing}.kvstore.prefix`, `${flagPrefix}prefix`, 'collectors/'],
  [`${yamlRing}.kvstore.consul.host`, `${flagPrefix}consul.hostname`, 'localhost:8500'],
  [`${yamlRing}.kvstore.consul.acl_token`, `${flagPrefix}consul.acl-token`, ''],
  [`${yamlRing}.kvstore.consul.http_client_timeout`, `${flagPrefix}consul.client-timeout`, '20s'],
  [`${yamlRing}.kvstore.consul.consistent_reads`, `${flagPrefix}consul.consistent-reads`, 'true'],
  [`${yamlRing}.kvstore.etcd.endpoints`, `${flagPrefix}etcd.endpoints`, ''],
  [`${yamlRing}.kvstore.etcd.dial_timeout`, `${flagPrefix}etcd.dial-timeout`, '10s'],
  [`${yamlRing}.kvstore.etcd.max_retries`, `${flagPrefix}etcd.max-retries`, '10'],
  [`${yamlRing}.kvstore.multi.primary`, `${flagPrefix}multi.primary`, ''],
  [`${yamlRing}.kvstore.multi.secondary`, `${flagPrefix}multi.secondary`, ''],
  [`${yamlRing}.kvstore.multi.mirror_enabled`, `${flagPrefix}multi.mirror-enabled`, 'false'],
  [`${yamlRing}.kvstore.multi.mirror_timeout`, `${flagPrefix}multi.mirror-timeout`, '2s'],
  [`${yamlRing}.heartbeat_period`, `${flagPrefix}heartbeat-period`, heartbeatPeriod],
  [`${yamlRing}.heartbeat_timeout`, `${flagPrefix}heartbeat-timeout`, '1m0s'],
];

const REFERENCE_ROWS: Row[] = [
  ['tsdb.dir', `${T}dir`, 'tsdb'],
  ['tsdb.block_ranges_period', `${T}block-ranges-period`, '2h0m0s'],
  ['tsdb.retention_period', `${T}retention-period`, '6h0m0s'],
  ['tsdb.ship_interval', `${T}ship-interval`, '1m0s'],
  ['tsdb.ship_concurrency', `${T}ship-concurrency`, '10'],
  ['tsdb.backend', `${T}backend`, 's3'],
  ['tsdb.head_compaction_interval', `${T}head-compaction-interval`, '1m0s'],
  ['tsdb.head_compaction_concurrency', `${T}head-compaction-concurrency`, '5'],
  ['tsdb.stripe_size', `${T}stripe-size`, '16384'],
  ['tsdb.wal_compression_enabled', `${T}wal-compression-enabled`, 'false'],
  ['tsdb.store_gateway_enabled', `${T}store-gateway-enabled`, 'false'],
  [
    'tsdb.max_tsdb_opening_concurrency_on_startup',
    `${T}max-tsdb-opening-concurrency-on-startup`,
    '10',
  ],
  ['tsdb.bucket_store.sync_dir', `${BS}sync-dir`, 'tsdb-sync'],
  ['tsdb.bucket_store.sync_interval', `${BS}sync-interval`, '5m0s'],
  ['tsdb.bucket_store.max_chunk_pool_bytes', `${BS}max-chunk-pool-bytes`, '2147483648'],
  ['tsdb.bucket_store.max_sample_count', `${BS}max-sample-count`, '0'],
  ['tsdb.bucket_store.max_concurrent', `${BS}max-concurrent`, '20'],
  ['tsdb.bucket_store.tenant_sync_concurrency', `${BS}tenant-sync-concurrency`, '10'],
  ['tsdb.bucket_store.block_sync_concurrency', `${BS}block-sync-concurrency`, '20'],
  ['tsdb.bucket_store.meta_sync_concurrency', `${BS}meta-sync-concurrency`, '20'],
  ['tsdb.bucket_store.consistency_delay', `${BS}consistency-delay`, '0s'],
  ['tsdb.bucket_store.ignore_deletion_mark_delay', `${BS}ignore-deletion-marks-delay`, '6h0m0s'],
  ['tsdb.bucket_store.index_cache.backend', `${BS}index-cache.backend`, 'inmemory'],
  [
    'tsdb.bucket_store.index_cache.inmemory.max_size_bytes',
    `${BS}index-cache.inmemory.max-size-bytes`,
    '1073741824',
  ],
  [
    'tsdb.bucket_store.index_cache.postings_compression_enabled',
    `${BS}index-cache.postings-compression-enabled`,
    'false',
  ],
  ['tsdb.bucket_store.chunks_cache.backend', `${BS}chunks-cache.backend`, ''],
  ['tsdb.bucket_store.chunks_cache.subrange_size', `${BS}chunks-cache.subrange-size`, '16000'],
  [
    'tsdb.bucket_store.chunks_cache.max_get_range_requests',
    `${BS}chunks-cache.max-get-range-requests`,
    '3',
  ],
  ['tsdb.bucket_store.chunks_cache.attributes_ttl', `${BS}chunks-cache.attributes-ttl`, '24h0m0s'],
  ['tsdb.bucket_store.chunks_cache.subrange_ttl', `${BS}chunks-cache.subrange-ttl`, '24h0m0s'],
  ['tsdb.bucket_store.metadata_cache.backend', `${BS}metadata-cache.backend`, ''],
  [
    'tsdb.bucket_store.metadata_cache.tenants_list_ttl',
    `${BS}metadata-cache.tenants-list-ttl`,
    '15m0s',
  ],
  [
    'tsdb.bucket_store.metadata_cache.tenant_blocks_list_ttl',
    `${BS}metadata-cache.tenant-blocks-list-ttl`,
    '15m0s',
  ],
  [
    'tsdb.bucket_store.metadata_cache.chunks_list_ttl',
    `${BS}metadata-cache.chunks-list-ttl`,
    '24h0m0s',
  ],
  [
    'tsdb.bucket_store.metadata_cache.metafile_exists_ttl',
    `${BS}metadata-cache.metafile-exists-ttl`,
    '2h0m0s',
  ],
  [
    'tsdb.bucket_store.metadata_cache.metafile_doesnt_exist_ttl',
    `${BS}metadata-cache.metafile-doesnt-exist-ttl`,
    '15m0s',
  ],
  [
    'tsdb.bucket_store.metadata_cache.metafile_content_ttl',
    `${BS}metadata-cache.metafile-content-ttl`,
    '24h0m0s',
  ],
  [
    'tsdb.bucket_store.metadata_cache.metafile_max_size_bytes',
    `${BS}metadata-cache.metafile-max-size-bytes`,
    '1048576',
  ],
  ...memcachedRows('tsdb.bucket_store.index_cache', `${BS}index-cache.`),
  ...memcachedRows('tsdb.bucket_store.chunks_cache', `${BS}chunks-cache.`),
  ...memcachedRows('tsdb.bucket_store.metadata_cache', `${BS}metadata-cache.`),
  ['tsdb.s3.endpoint', `${T}s3.endpoint`, ''],
  ['tsdb.s3.bucket_name', `${T}s3.bucket-name`, ''],
  ['tsdb.s3.secret_access_key', `${T}s3.secret-access-key`, ''],
  ['tsdb.s3.access_key_id', `${T}s3.access-key-id`, ''],
  ['tsdb.s3.insecure', `${T}s3.insecure`, 'false'],
  ['tsdb.gcs.bucket_name', `${T}gcs.bucket-name`, ''],
  ['tsdb.gcs.service_account', `${T}gcs.service-account`, ''],
  ['tsdb.azure.account_name', `${T}azure.account-name`, ''],
  ['tsdb.azure.account_key', `${T}azure.account-key`, ''],
  ['tsdb.azure.container_name', `${T}azure.container-name`, ''],
  ['tsdb.azure.endpoint_suffix', `${T}azure.endpoint-suffix`, ''],
  ['tsdb.azure.max_retries', `${T}azure.max-retries`, '20'],
  ['tsdb.filesystem.dir', `${T}filesystem.dir`, ''],
  ['store_gateway.sharding_enabled', 'experimental.store-gateway.sharding-enabled', 'false'],
  ...ringRows('store_gateway.sharding_ring', 'experimental.store-gateway.sharding-ring.', '15s'),
  [
    'store_gateway.sharding_ring.replication_factor',
    'experimental.store-gateway.replication-factor',
    '3',
  ],
  [
    'store_gateway.sharding_ring.tokens_file_path',
    'experimental.store-gateway.tokens-file-path',
    '',
  ],
  ['compactor.block_ranges', 'compactor.block-ranges', '2h0m0s,12h0m0s,24h0m0s'],
  ['compactor.block_sync_concurrency', 'compactor.block-sync-concurrency', '20'],
  ['compactor.meta_sync_concurrency', 'compactor.meta-sync-concurrency', '20'],
  ['compactor.consistency_delay', 'compactor.consistency-delay', '0s'],
  ['compactor.data_dir', 'compactor.data-dir', './data'],
  ['compactor.compaction_interval', 'compactor.compaction-interval', '1h0m0s'],
  ['compactor.compaction_retries', 'compactor.compaction-retries', '3'],
  ['compactor.compaction_concurrency', 'compactor.compaction-concurrency', '1'],
  ['compactor.deletion_delay', 'compactor.deletion-delay', '12h0m0s'],
  ['compactor.sharding_enabled', 'compactor.sharding-enabled', 'false'],
  ...ringRows('compactor.sharding_ring', 'compactor.ring.', '5s'),
];

const GENERAL_ROWS: Row[] = [
  ['target', 'target', 'all'],
  ['auth_enabled', 'auth.enabled', 'true'],
  ['http_prefix', 'http.prefix', '/api/prom'],
  ['api.prometheus_http_prefix', 'http.prometheus-http-prefix', '/prometheus'],
  ['api.alertmanager_http_prefix', 'http.alertmanager-http-prefix', '/alertmanager'],
  ['server.http_listen_address', 'server.http-listen-address', ''],
  ['server.http_listen_port', 'server.http-listen-port', '80'],
  ['server.grpc_listen_address', 'server.grpc-listen-address', ''],
  ['server.grpc_listen_port', 'server.grpc-listen-port', '9095'],
  ['server.graceful_shutdown_timeout', 'server.graceful-shutdown-timeout', '30s'],
  ['server.log_level', 'log.level', 'info'],
  ['runtime_config.file', 'runtime-config.file', ''],
  ['runtime_config.period', 'runtime-config.reload-period', '10s'],
  ['storage.engine', 'store.engine', 'tsdb'],
  ['ruler.enable_api', 'ruler.enable-api', 'false'],
  ['alertmanager.enable_api', 'alertmanager.enable-api', 'false'],
  ['ingester.lifecycler.ring.kvstore.store', 'ring.store', 'consul'],
  ['ingester.lifecycler.ring.kvstore.prefix', 'ring.prefix', 'collectors/'],
  ['ingester.lifecycler.ring.kvstore.consul.host', 'consul.hostname', 'localhost:8500'],
  ['ingester.lifecycler.ring.kvstore.etcd.endpoints', 'etcd.endpoints', ''],
  ['ingester.lifecycler.ring.replication_factor', 'distributor.replication-factor', '3'],
  [
    'ingester.flush_on_shutdown_with_wal_enabled',
    'ingester.flush-on-shutdown-with-wal-enabled',
    'false',
  ],
  ['ingester.unregister_on_shutdown', 'ingester.unregister-on-shutdown', 'true'],
  ['tsdb.flush_blocks_on_shutdown', 'blocks-storage.tsdb.flush-blocks-on-shutdown', 'false'],
  ['limits.ingestion_rate', 'distributor.ingestion-rate-limit', '25000'],
  ['limits.ingestion_burst_size', 'distributor.ingestion-burst-size', '50000'],
  ['limits.max_global_series_per_user', 'ingester.max-global-series-per-user', '0'],
  ['limits.max_global_series_per_metric', 'ingester.max-global-series-per-metric', '0'],
  ['limits.ruler_max_rules_per_rule_group', 'ruler.max-rules-per-rule-group', '0'],
  ['limits.ruler_max_rule_groups_per_tenant', 'ruler.max-rule-groups-per-tenant', '0'],
  ['limits.out_of_order_time_window', 'ingester.out-of-order-time-window', '0s'],
];

describe('definition table', () => {
  it.each([...REFERENCE_ROWS, ...GENERAL_ROWS])(
    '%s: flag -%s, default %j',
    (yamlPath, flag, def) => {
      const entry = CONFIG_TABLE.byYamlPath.get(yamlPath);
      expect(entry, `no setting at ${yamlPath}`).toBeDefined();
      expect(entry?.yamlPath).toBe(yamlPath);
      expect(entry?.spec.flags[0]).toBe(flag);
      expect(CONFIG_TABLE.byFlag.get(flag)).toBe(entry);
      if (entry !== undefined) expect(formatValue(entry.spec, entry.spec.default)).toBe(def);
    },
  );

  it('names every other flag the reference mentions', () => {
    for (const flag of [
      'experimental.ruler.enable-api',
      'notifier.enable-api',
      'http.mon-http-prefix',
      'http.notifier-http-prefix',
      'experimental.tsdb.flush-blocks-on-shutdown',
    ]) {
      expect(CONFIG_TABLE.byFlag.has(flag), flag).toBe(true);
    }
  });

  it('gives every setting a description and a type-correct default', () => {
    for (const { yamlPath, spec } of CONFIG_TABLE.settings) {
      expect(spec.help.length, yamlPath).toBeGreaterThan(10);
      expect(spec.help.endsWith('.'), `${yamlPath} help should be a sentence`).toBe(true);
      if (spec.choices !== undefined && !spec.choices.commaList) {
        expect(spec.choices.values, yamlPath).toContain(spec.default);
      }
    }
  });

  it('keeps meta flags apart from setting flags', () => {
    for (const m of META_FLAGS) expect(CONFIG_TABLE.byFlag.has(m.name), m.name).toBe(false);
  });

  it('lists settings in pre-order with their block paths', () => {
    const first = CONFIG_TABLE.settings[0];
    expect(first?.yamlPath).toBe('target');
    expect(first?.blockPath).toBe('');
    const syncDir = CONFIG_TABLE.byYamlPath.get('tsdb.bucket_store.sync_dir');
    expect(syncDir?.blockPath).toBe('tsdb.bucket_store');
    expect(syncDir?.path).toEqual(['tsdb', 'bucket_store', 'sync_dir']);
  });

  it('knows the neutral spellings of blocks', () => {
    const spellings = (path: string) =>
      CONFIG_TABLE.blocks.find((b) => b.yamlPath === path)?.spellings;
    expect(spellings('tsdb.s3')).toEqual(['tsdb.s3', 'tsdb.bucketa']);
    expect(spellings('tsdb.bucket_store.index_cache.memcached')).toEqual([
      'tsdb.bucket_store.index_cache.memcached',
      'tsdb.bucket_store.index_cache.mcache',
    ]);
    expect(spellings('alertmanager')).toEqual(['alertmanager', 'notifier']);
  });
});
