/**
 * The querier: answers a tenant's PromQL queries, series and label lookups over the
 * ingesters and, with the blocks path wired, the store-gateways. Each ingester query fans out to the ingester ring's READ replication set with the tenant
 * in every call, succeeds once the set's quorum answered (Cortex's ReplicationSet.Do), and
 * merges the replicas' answers into one sorted list of series with every replicated sample
 * once. It serves the Prometheus query API (both engines, `-querier.*` timeout, sample limit
 * and lookback), Cortex's `/api/v1/user_stats`, and the `querier.Select` / `querier.Query`
 * RPCs the simulator's workload uses.
 *
 * It must never let one tenant's query read another tenant's data (the tenant travels in
 * every ingester call and nothing is cached across tenants), never read time except through
 * the injected Clock, and never return a sample twice or hide an ingester failure beyond
 * what the replication set tolerates. Older data comes from the store-gateways: the blocks
 * finder (bucket index or bucket scan) names the tenant's blocks in range, each is asked of
 * one store-gateway of its replica set, and blocks no store-gateway read are retried
 * elsewhere until the consistency check passes or fails the query. Store chunks are
 * decoded lazily inside the query window, and a series both sources hold is merged with
 * every timestamp once.
 *
 * It must also never answer from a partial set of blocks: a block the finder knows and no
 * store-gateway read fails the query (500) rather than silently missing data.
 */
export {
  BlocksConsistencyChecker,
  CONSISTENCY_CHECK_FAILED_PREFIX,
  consistencyCheckerConfig,
  type BlocksConsistencyCheckerConfig,
  type BlocksConsistencyCheckerDeps,
} from './blocks_consistency_checker.js';
export {
  BlocksFinderError,
  INVALID_BLOCKS_RANGE_MESSAGE,
  type BlocksFinder,
  type FoundBlock,
  type FoundBlocks,
} from './blocks_finder.js';
export {
  BUCKET_INDEX_TOO_OLD_MESSAGE,
  BucketIndexBlocksFinder,
  bucketIndexReader,
  type BucketIndexBlocksFinderConfig,
  type BucketIndexBlocksFinderDeps,
  type BucketIndexReader,
} from './blocks_finder_bucket_index.js';
export {
  BucketScanBlocksFinder,
  type BucketScanBlocksFinderConfig,
  type BucketScanBlocksFinderDeps,
} from './blocks_finder_bucket_scan.js';
export {
  newBlocksFinder,
  type BlocksFinderDeps,
  type BlocksFinderSettings,
} from './blocks_finder_factory.js';
export {
  IN_PROCESS_STORE_ADDRESS,
  inProcessBlocksStoreClient,
  type BlocksStoreClient,
  type InProcessBlocksStore,
} from './blocks_store_client.js';
export {
  BlocksStoreQueryable,
  type BlocksStoreQueryableConfig,
  type BlocksStoreQueryableDeps,
} from './blocks_store_queryable.js';
export {
  BalancedBlocksStoreSet,
  InProcessBlocksStoreSet,
  ReplicatedBlocksStoreSet,
  type BlocksStoreSet,
  type ReplicatedBlocksStoreSetConfig,
  type ReplicatedBlocksStoreSetDeps,
} from './blocks_store_set.js';
export {
  ChunkLaneIterator,
  chunkLanes,
  mergeStoreSeries,
  storeChunksIterator,
  storeSeriesToStorageSeries,
} from './chunk_series.js';
export {
  DistributorStoreQuerier,
  DistributorStoreQueryable,
  mergeStorageSeries,
} from './distributor_store_merge.js';
export {
  IngesterQueryable,
  type IngesterQueryableConfig,
  type IngesterQueryableDeps,
} from './ingester_queryable.js';
export { SeriesSamplesIterator, mergeIngesterAnswers, toStorageSeries } from './merge.js';
export { BlocksQuerierMetrics, BucketIndexLoaderMetrics, QuerierMetrics } from './metrics.js';
export {
  DEFAULT_QUERIER_BLOCKS_CONFIG,
  Querier,
  type QuerierBlocksConfig,
  type QuerierBlocksDeps,
  type QuerierConfig,
  type QuerierDeps,
} from './querier.js';
export {
  QUERIER_QUERY,
  QUERIER_SELECT,
  SERIES_CONTENT_TYPE,
  registerQuerierRpcs,
  type QueryRpcRequest,
  type SelectRpcRequest,
} from './querier_rpc.js';
export { doReplicationSet, type InstanceResult } from './replication_set.js';
export { registerQuerierRoutes } from './routes.js';
export { collectUserStats, encodeUserStats, sumUserStats, type UserStats } from './user_stats.js';
