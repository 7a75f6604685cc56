/**
 * The simulated runtime: an implementation of every `src/runtime` interface bound to the
 * simulation kernel and to one process incarnation of a node (virtual clock, a disk that
 * loses unsynced data on power loss, a lossy partitionable network, an object store with
 * lagging listings and throttling, a shared KV store, cache servers that can be wiped,
 * captured logs). Everything here is deterministic given the seed: it must never touch the
 * real clock, real timers, real randomness or real IO, and never import `src/runtime/real/`.
 */
export { CapturedLogger, LogSink, formatLogLine, type LogLine } from './captured_logger.js';
export { describeLatency, sampleLatency, validateLatency, type LatencySpec } from './latency.js';
export {
  ServiceHealth,
  ServiceLink,
  type ServiceLinkConfig,
  type ServiceLinkDeps,
} from './service_call.js';
export {
  SimBucket,
  SimObjectStore,
  type ObjectStoreEvent,
  type UploadListener,
  type SimObjectStoreConfig,
  type ThrottleLimit,
} from './sim_bucket.js';
export { SimCache, SimCacheServer, type SimCacheServerConfig } from './sim_cache.js';
export { SimClock, type SimClockConfig, type SimClockDeps } from './sim_clock.js';
export { SIM_DNS_LATENCY_MS, SimDnsRecords, SimResolver } from './sim_dns.js';
export {
  MEMCACHED_PORT,
  SimMemcachedCluster,
  SimMemcachedServer,
  openSimMemcachedClient,
  type SimMemcachedClientDeps,
  type SimMemcachedConfig,
  type WrongValuesMode,
} from './sim_memcached_server.js';
export { SimMemcachedDialer, type SimMemcachedDialerDeps } from './sim_memcached_stream.js';
export {
  SimDisk,
  type DiskDir,
  type DiskFile,
  type DiskNode,
  type PowerLossOutcome,
} from './sim_disk.js';
export { defaultSimRuntimeConfig } from './default_config.js';
export { createSimNodeEnv, type SimNodeEnv, type SimNodeEnvOptions } from './sim_env.js';
export {
  SimFileSystem,
  type SimFileSystemConfig,
  type SimFileSystemDeps,
} from './sim_filesystem.js';
export { SimKV, type SimKVConfig, type SimKVDeps } from './sim_kv.js';
export {
  SimNetwork,
  type NetworkEndpoint,
  type NetworkRequest,
  type NetworkStats,
  type ReplyOutcome,
  type SimNetworkConfig,
  type SimNetworkDeps,
} from './sim_network.js';
export {
  CACHE_SERVICE,
  KV_SERVICE,
  OBJECT_STORE_SERVICE,
  SimServices,
  bucketKey,
  type SimRuntimeConfig,
} from './sim_services.js';
export { DEFAULT_CALL_TIMEOUT_MS, SimTransport, type SimTransportDeps } from './sim_transport.js';
export {
  DEFAULT_HTTP_TIMEOUT_MS,
  SIM_HTTP_PORT,
  SimHttp,
  SimHttpError,
  SimHttpNetwork,
  type SimHttpFailure,
  type SimHttpHandler,
  type SimHttpListener,
  type SimHttpNetworkDeps,
  type SimHttpRequest,
  type SimHttpRequestOptions,
  type SimHttpResponse,
} from './sim_http.js';
