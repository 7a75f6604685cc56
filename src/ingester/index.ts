/**
 * The ingester: the `Ingester` component, which registers its RPC handlers (`ingester.Push`,
 * `QueryStream`, label and stats calls) on the Transport and its HTTP routes
 * (`/ingester/flush`, `/shutdown`, `/mode`, `/push`, `/all_user_stats`), joins the ingester
 * ring through a Lifecycler and leaves it on shutdown; and its storage side: one TSDB per
 * tenant under `<tsdb.dir>/<tenant>`, created on the tenant's first push and opened at
 * startup (WAL replay, bounded concurrency), pushes appended in one appender per batch with
 * Cortex's partial-acceptance semantics (what the head accepts is committed, the rest is
 * reported per series), per-tenant series limits converted from global to local by
 * replication factor and ring size, each tenant's out-of-order window applied at open and on
 * overrides reload, the head-compaction loop and flush, and per-tenant stats; and shipping:
 * each tenant's blocks uploaded to the bucket (Thanos shipper, `thanos.shipper.json`) every
 * ship interval and on flush and shutdown.
 *
 * It must never read time or disk except through the Clock and FileSystem it is given, never
 * answer a query from another tenant's database or create a database for a query, never
 * acknowledge a push before the head committed it, never delete a local block that is not
 * recorded as shipped, and never reach the ring other than through its Lifecycler and the
 * read-only ring it is handed.
 */
export {
  Ingester,
  type IngesterConfig,
  type IngesterDeps,
  type IngesterMode,
  type IngesterTenantStats,
} from './ingester.js';
export { registerIngesterRoutes } from './ingester_http.js';
export { registerIngesterRpc, toPushSeries } from './ingester_rpc.js';
export {
  renderUserStatsPage,
  sortUserStats,
  userStatsJson,
  type UserIdStatsJson,
} from './user_stats_page.js';
export { forEachBounded } from './bounded.js';
export {
  SeriesLimitError,
  formatRFC3339Nano,
  sampleErrorMessage,
  type SeriesLimitKind,
} from './errors.js';
export { DEFAULT_RATE_WINDOW_MS, IngestionRate } from './ingestion_rate.js';
export {
  SeriesLimiter,
  convertGlobalToLocalLimit,
  type RingShape,
  type SeriesLimits,
} from './series_limiter.js';
export {
  TenantDBs,
  tenantDBsConfigFrom,
  tenantDirProblem,
  type TenantDBsConfig,
  type TenantDBsDeps,
  type TenantLimits,
  type TenantStats,
} from './tenant_dbs.js';
export {
  pushSampleCount,
  type PushRejection,
  type PushResult,
  type PushSample,
  type PushSeries,
  type PushSeriesColumns,
  type PushSeriesSamples,
  type PushSource,
} from './push_types.js';
export {
  TransportIngesterClient,
  encodePushBatch,
  type IngesterCallOptions,
  type IngesterClient,
  type PushBatch,
} from './client.js';
export { LocalFirstIngesterClient } from './local_client.js';
export { decodeSeriesChunks, encodeSeriesChunks } from './wire_chunks.js';
export {
  INGESTER_ALL_USER_STATS,
  INGESTER_LABEL_NAMES,
  INGESTER_LABEL_VALUES,
  INGESTER_METRICS_FOR_LABEL_MATCHERS,
  INGESTER_METRICS_METADATA,
  INGESTER_PUSH,
  INGESTER_QUERY_STREAM,
  INGESTER_USER_STATS,
  PUSH_SOURCE_HEADER,
  TENANT_RPC_HEADER,
  decodeSeriesLabels,
  decodeSeriesSamples,
  encodeSeriesLabels,
  encodeSeriesSamples,
  fromWireMatchers,
  parseWireMetadata,
  toWireMatchers,
  type LabelNamesRequest,
  type LabelValuesRequest,
  type QueryRequest,
  type SeriesSamples,
  type WireMatcher,
  type WireTenantStats,
  type WireUserStats,
} from './wire.js';
export {
  BlockShipping,
  DEFAULT_SHIP_CONCURRENCY,
  DEFAULT_SHIP_INTERVAL,
  DELETION_MARK_CHECK_INTERVAL,
  INGESTER_ID_EXTERNAL_LABEL,
  newIngesterShipping,
  type BlockShipState,
  type BlockShippingConfig,
  type BlockShippingDeps,
  type IngesterShippingOptions,
} from './shipping.js';
export { Shipper, type ShipperConfig, type ShipperDeps, type SyncResult } from './shipper.js';
export {
  SHIPPER_META_VERSION,
  ShipperMetaError,
  encodeShipperMeta,
  readShipperMeta,
  writeShipperMeta,
  type ShipperMeta,
} from './shipper_meta.js';
export {
  oldestUnshippedSeconds,
  registerOldestUnshippedGauge,
  shipperMetrics,
  type ShipperMetrics,
  type UnshippedBlocksView,
} from './shipper_metrics.js';
export { jsonRequest, numberField, rpcTenant } from './rpc_request.js';
