/**
 * The store-gateway: serves the blocks in the bucket to queriers. Per tenant it discovers
 * blocks (bucket index or bucket scan, then Cortex's filters: sharding, consistency delay,
 * deletion marks, external labels), keeps each block's index-header on local disk under
 * `<sync_dir>/<tenant>/<block>/`, and answers `storegateway.Series/LabelNames/LabelValues`
 * over the requested blocks it holds, with chunks as stored. With sharding it joins the
 * `store-gateway` ring (JOINING until its blocks are loaded, then ACTIVE) and loads only the
 * blocks the ring gives it. It also serves the ring, tenants and blocks pages.
 *
 * It must never write to the bucket, never decode samples (the querier does), never answer
 * for a block it does not hold or list it as queried, never let one block's or one tenant's
 * fault take the others down, and never read time, randomness or disk except through the
 * Clock, Random and FileSystem it is given.
 */
export {
  emptyBlockQueryStats,
  type BlockQueryStats,
  type BlockSelectOptions,
  type LoadedBlock,
  type StoreChunk,
  type StoreSeries,
} from './block_api.js';
export {
  INDEX_HEADER_FILE,
  type BlockLoaderFactory,
  type BlockLoaderOptions,
  type TenantBlockLoader,
} from './block_loader.js';
export { bucketBlockLoader, type BucketBlockLoaderDeps } from './default_block_loader.js';
export {
  BucketStores,
  tenantDir,
  type BucketStoresConfig,
  type BucketStoresDeps,
  type HeldBlock,
} from './bucket_stores.js';
export type { LabelsQuery, LabelsResult, SeriesQuery, SeriesResult } from './tenant_store.js';
export {
  StoreGateway,
  type StoreGatewayConfig,
  type StoreGatewayDeps,
  type StoreGatewayRingOptions,
} from './store_gateway.js';
export { storeGatewayConfigFrom, type StoreGatewayConfigExtras } from './config.js';
export {
  AUTO_FORGET_UNHEALTHY_PERIODS,
  BLOCKS_OWNER_READ,
  BLOCKS_OWNER_SYNC,
  BLOCKS_READ,
  NO_SHARDING,
  RING_CHECK_PERIOD_MS,
  RingShardingStrategy,
  STORE_GATEWAY_NUM_TOKENS,
  STORE_GATEWAY_RING_KEY,
  STORE_GATEWAY_RING_NAME,
  blockReplicaSet,
  hashBlockId,
  healthyInstances,
  instanceSetSignature,
  storeGatewayRingConfig,
  type HealthOptions,
  type ShardingStrategy,
} from './sharding.js';
export {
  MAX_SAMPLES_PER_CHUNK,
  SampleLimitError,
  StoreGatewayUnavailableError,
  isRetryableStoreGatewayError,
} from './errors.js';
export {
  TransportStoreGatewayClient,
  type StoreGatewayCallOptions,
  type StoreGatewayClient,
} from './client.js';
export {
  STORE_GATEWAY_LABEL_NAMES,
  STORE_GATEWAY_LABEL_VALUES,
  STORE_GATEWAY_SERIES,
  type StoreLabelNamesRequest,
  type StoreLabelValuesRequest,
  type StoreLabelsResponse,
  type StoreSeriesRequest,
  type StoreSeriesResponse,
} from './wire.js';
export { decodeStoreSeriesResponse, encodeStoreSeriesResponse } from './wire_codec.js';
export { registerStoreGatewayRpc, type StoreGatewayServer } from './rpc.js';
export {
  registerStoreGatewayPages,
  registerStoreGatewayRingPage,
  registerStoreGatewayTenantPages,
  type StoreGatewaySource,
} from './pages.js';
export { StoreGatewayMetrics, type MetaSyncState, type SyncReason } from './metrics.js';
export {
  IndexCache,
  IndexCacheMetrics,
  MEMCACHED_INDEX_CACHE_TTL_MS,
  expandedPostingsCacheKey,
  matchersString,
  postingsCacheKey,
  seriesCacheKey,
  type IndexCacheDeps,
  type IndexCacheItemType,
} from './index_cache.js';
