/**
 * The typed shape of Strata's configuration. Property names equal the YAML keys and nest as
 * the YAML does; durations are integer milliseconds. The definition table in `schema*.ts`
 * must produce exactly this shape: `schema.ts` fails to compile when the two drift apart.
 */
import type { LimitsConfig } from './limits.js';
import type {
  FrontendConfig,
  FrontendWorkerConfig,
  QueryRangeConfig,
  QuerySchedulerConfig,
} from './types_frontend.js';

export interface Config {
  /** Comma-separated components to run; see parseTargets(). */
  target: string;
  auth_enabled: boolean;
  http_prefix: string;
  api: ApiConfig;
  server: ServerConfig;
  distributor: DistributorConfig;
  ingester: IngesterConfig;
  querier: QuerierConfig;
  frontend: FrontendConfig;
  query_range: QueryRangeConfig;
  frontend_worker: FrontendWorkerConfig;
  query_scheduler: QuerySchedulerConfig;
  storage: StorageConfig;
  limits: LimitsConfig;
  tsdb: TsdbConfig;
  compactor: CompactorConfig;
  store_gateway: StoreGatewayConfig;
  ruler: RulerConfig;
  alertmanager: AlertmanagerConfig;
  runtime_config: RuntimeConfigFileConfig;
  memberlist: MemberlistConfig;
}

export interface ApiConfig {
  prometheus_http_prefix: string;
  alertmanager_http_prefix: string;
}

export interface ServerConfig {
  http_listen_address: string;
  http_listen_port: number;
  grpc_listen_address: string;
  /** Strata's internal RPC port (the role gRPC plays in Cortex). */
  grpc_listen_port: number;
  graceful_shutdown_timeout: number;
  /** One of debug, info, warn, error. */
  log_level: string;
}

export interface IngesterConfig {
  lifecycler: LifecyclerConfig;
  flush_on_shutdown_with_wal_enabled: boolean;
  unregister_on_shutdown: boolean;
  /** -ingester.metadata-retain-period: milliseconds metadata stays after it was last pushed. */
  metadata_retain_period: number;
  /** -ingester.series-labels-cache-size: label sets kept for reuse across pushes; 0 = off. */
  series_labels_cache_size: number;
}

export interface LifecyclerConfig {
  ring: IngesterRingConfig;
  num_tokens: number;
  heartbeat_period: number;
  join_after: number;
  min_ready_duration: number;
  tokens_file_path: string;
  /** Ring ID; empty means the Env's node name (the hostname). */
  id: string;
  /** Advertised address; empty means the internal RPC listen address. */
  address: string;
  availability_zone: string;
}

export interface DistributorConfig {
  remote_timeout: number;
  shard_by_all_labels: boolean;
  extend_writes: boolean;
  max_recv_msg_size: number;
  /** -distributor.series-labels-cache-size: label sets kept for reuse across pushes; 0 = off. */
  series_labels_cache_size: number;
  ha_tracker: HATrackerBlockConfig;
  ring: DistributorRingConfig;
}

export interface DistributorRingConfig {
  kvstore: KVStoreConfig;
  heartbeat_period: number;
  heartbeat_timeout: number;
  instance_id: string;
}

export interface HATrackerBlockConfig {
  enable_ha_tracker: boolean;
  ha_tracker_update_timeout: number;
  ha_tracker_update_timeout_jitter_max: number;
  ha_tracker_failover_timeout: number;
  kvstore: KVStoreConfig;
}

export interface QuerierConfig {
  timeout: number;
  max_samples: number;
  lookback_delta: number;
  query_ingesters_within: number;
  /** -querier.query-store-after: queries newer than this skip the bucket; 0 = always query it. */
  query_store_after: number;
  /** -querier.store-gateway-addresses: comma-separated store-gateways when sharding is off. */
  store_gateway_addresses: string;
}

export interface IngesterRingConfig {
  kvstore: KVStoreConfig;
  heartbeat_timeout: number;
  replication_factor: number;
}

/** Where a hash ring is kept. `store` is one of consul, etcd, inmemory, multi, memberlist. */
export interface KVStoreConfig {
  store: string;
  /** Key prefix; always ends with `/`. */
  prefix: string;
  consul: ConsulConfig;
  etcd: EtcdConfig;
  multi: MultiKVConfig;
}

export interface ConsulConfig {
  host: string;
  acl_token: string;
  http_client_timeout: number;
  consistent_reads: boolean;
  watch_rate_limit: number;
  watch_burst_size: number;
}

export interface EtcdConfig {
  endpoints: string[];
  dial_timeout: number;
  max_retries: number;
}

export interface MultiKVConfig {
  primary: string;
  secondary: string;
  mirror_enabled: boolean;
  mirror_timeout: number;
}

export interface StorageConfig {
  /** Always `tsdb` (blocks storage); validation refuses anything else. */
  engine: string;
}

export interface TsdbConfig {
  dir: string;
  block_ranges_period: number[];
  retention_period: number;
  ship_interval: number;
  ship_concurrency: number;
  /** One of s3, gcs, azure, filesystem. */
  backend: string;
  head_compaction_interval: number;
  head_compaction_concurrency: number;
  stripe_size: number;
  wal_compression_enabled: boolean;
  flush_blocks_on_shutdown: boolean;
  store_gateway_enabled: boolean;
  max_tsdb_opening_concurrency_on_startup: number;
  /** ms without pushes after which a fully shipped tenant's TSDB is closed and deleted; 0 = never. */
  close_idle_tsdb_timeout: number;
  bucket_store: BucketStoreConfig;
  s3: S3Config;
  gcs: GcsConfig;
  azure: AzureConfig;
  filesystem: FilesystemBucketConfig;
}

export interface BucketStoreConfig {
  sync_dir: string;
  sync_interval: number;
  max_chunk_pool_bytes: number;
  max_sample_count: number;
  max_concurrent: number;
  tenant_sync_concurrency: number;
  block_sync_concurrency: number;
  meta_sync_concurrency: number;
  consistency_delay: number;
  index_cache: IndexCacheConfig;
  chunks_cache: ChunksCacheConfig;
  metadata_cache: MetadataCacheConfig;
  ignore_deletion_mark_delay: number;
  bucket_index: BucketIndexConfig;
  index_header_lazy_loading_enabled: boolean;
  index_header_lazy_loading_idle_timeout: number;
}

export interface BucketIndexConfig {
  enabled: boolean;
  update_on_error_interval: number;
  idle_timeout: number;
  max_stale_period: number;
}

export interface IndexCacheConfig {
  /** inmemory or memcached. */
  backend: string;
  inmemory: InMemoryIndexCacheConfig;
  memcached: MemcachedClientConfig;
  postings_compression_enabled: boolean;
}

export interface InMemoryIndexCacheConfig {
  max_size_bytes: number;
}

export interface ChunksCacheConfig {
  /** Empty (disabled) or memcached. */
  backend: string;
  memcached: MemcachedClientConfig;
  subrange_size: number;
  max_get_range_requests: number;
  attributes_ttl: number;
  subrange_ttl: number;
}

export interface MetadataCacheConfig {
  /** Empty (disabled) or memcached. */
  backend: string;
  memcached: MemcachedClientConfig;
  tenants_list_ttl: number;
  tenant_blocks_list_ttl: number;
  chunks_list_ttl: number;
  metafile_exists_ttl: number;
  metafile_doesnt_exist_ttl: number;
  metafile_content_ttl: number;
  metafile_max_size_bytes: number;
}

export interface MemcachedClientConfig {
  /** Comma-separated addresses; `dns+`, `dnssrv+` and `dnssrvnoa+` prefixes allowed. */
  addresses: string;
  timeout: number;
  max_idle_connections: number;
  max_async_concurrency: number;
  max_async_buffer_size: number;
  max_get_multi_concurrency: number;
  max_get_multi_batch_size: number;
  max_item_size: number;
}

export interface S3Config {
  endpoint: string;
  bucket_name: string;
  secret_access_key: string;
  access_key_id: string;
  insecure: boolean;
}

export interface GcsConfig {
  bucket_name: string;
  service_account: string;
}

export interface AzureConfig {
  account_name: string;
  account_key: string;
  container_name: string;
  endpoint_suffix: string;
  max_retries: number;
}

export interface FilesystemBucketConfig {
  dir: string;
}

export interface CompactorConfig {
  block_ranges: number[];
  block_sync_concurrency: number;
  meta_sync_concurrency: number;
  consistency_delay: number;
  data_dir: string;
  compaction_interval: number;
  compaction_retries: number;
  compaction_concurrency: number;
  /** Mark source blocks with out-of-order chunks no-compact instead of halting the tenant. */
  skip_blocks_with_out_of_order_chunks_enabled: boolean;
  deletion_delay: number;
  /** ms between a deleted tenant's last block going and the removal of its markers. */
  tenant_cleanup_delay: number;
  cleanup_interval: number;
  cleanup_concurrency: number;
  /** ms a partial block stays untouched before the cleaner deletes it; 0 = never (Cortex). */
  partial_block_deletion_delay: number;
  sharding_enabled: boolean;
  /** `default` (one compactor per tenant) or `shuffle-sharding` (a subring per tenant). */
  sharding_strategy: string;
  /** ms after which another compactor may take over a block's visit marker. */
  block_visit_marker_timeout: number;
  /** ms between rewrites of the visit markers of the blocks being compacted. */
  block_visit_marker_file_update_interval: number;
  sharding_ring: CompactorRingConfig;
}

export interface CompactorRingConfig {
  kvstore: KVStoreConfig;
  heartbeat_period: number;
  heartbeat_timeout: number;
  /** ms without heartbeat before a compactor is removed from the ring; 0 = never. */
  auto_forget_delay: number;
  /** ms the ring must stay unchanged at startup before compacting; 0 = no wait. */
  wait_stability_min_duration: number;
  /** ms after which startup goes on even if the ring keeps changing. */
  wait_stability_max_duration: number;
  /** Ring ID; empty means the Env's node name (the hostname). */
  instance_id: string;
  /** Advertised address; empty means the internal RPC listen address. */
  instance_addr: string;
}

export interface StoreGatewayConfig {
  sharding_enabled: boolean;
  sharding_ring: StoreGatewayRingConfig;
}

export interface StoreGatewayRingConfig {
  kvstore: KVStoreConfig;
  heartbeat_period: number;
  heartbeat_timeout: number;
  replication_factor: number;
  tokens_file_path: string;
  wait_stability_min_duration: number;
  wait_stability_max_duration: number;
  zone_awareness_enabled: boolean;
  instance_availability_zone: string;
  /** Ring ID; empty means the Env's node name (the hostname). */
  instance_id: string;
  /** Advertised address; empty means the internal RPC listen address. */
  instance_addr: string;
}

export interface RulerConfig {
  enable_api: boolean;
}

export interface AlertmanagerConfig {
  enable_api: boolean;
}

export interface RuntimeConfigFileConfig {
  file: string;
  period: number;
}

/** The memberlist (gossip) KV store of this process (`-memberlist.*`); durations in ms. */
export interface MemberlistConfig {
  node_name: string;
  randomize_node_name: boolean;
  stream_timeout: number;
  retransmit_factor: number;
  pull_push_interval: number;
  gossip_interval: number;
  gossip_nodes: number;
  gossip_to_dead_nodes_time: number;
  dead_node_reclaim_time: number;
  /** Internal RPC addresses (host:port) of members to join. */
  join_members: string[];
  min_join_backoff: number;
  max_join_backoff: number;
  max_join_retries: number;
  abort_if_cluster_join_fails: boolean;
  rejoin_interval: number;
  left_ingesters_timeout: number;
  tombstone_timeout: number;
  leave_timeout: number;
  message_history_buffer_bytes: number;
  /** Accepted for Cortex compatibility; gossip uses the internal RPC listener. */
  bind_addr: string[];
  /** Accepted for Cortex compatibility; gossip uses the internal RPC port. */
  bind_port: number;
  packet_dial_timeout: number;
  packet_write_timeout: number;
}
