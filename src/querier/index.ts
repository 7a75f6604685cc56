/**
 * The querier: answers a tenant's PromQL queries, series and label lookups over the
 * ingesters. Each query fans out to the ingester ring's READ replication set with the tenant
 * in every call, succeeds once the set's quorum answered (Cortex's ReplicationSet.Do), and
 * merges the replicas' answers into one sorted list of series with every replicated sample
 * once. It serves the Prometheus query API (both engines, `-querier.*` timeout, sample limit
 * and lookback), Cortex's `/api/v1/user_stats`, and the `querier.Select` / `querier.Query`
 * RPCs the simulator's workload uses.
 *
 * It must never let one tenant's query read another tenant's data (the tenant travels in
 * every ingester call and nothing is cached across tenants), never read time except through
 * the injected Clock, and never return a sample twice or hide an ingester failure beyond
 * what the replication set tolerates.
 */
export {
  IngesterQueryable,
  type IngesterQueryableConfig,
  type IngesterQueryableDeps,
} from './ingester_queryable.js';
export { SeriesSamplesIterator, mergeSamples, mergeSeriesSets, toStorageSeries } from './merge.js';
export { QuerierMetrics } from './metrics.js';
export { Querier, type QuerierConfig, type QuerierDeps } from './querier.js';
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
