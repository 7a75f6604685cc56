/**
 * In-memory backends of the runtime interfaces: the `inmemory` bucket, KV store and cache of
 * the real process, and the deterministic base the simulator wraps with latency and faults.
 * Everything here is pure computation over process memory: it must never read the wall
 * clock, start timers or do IO (time comes from the Clock passed in).
 */
export { dirPrefix, listObjectNames, compareCodeUnits } from './bucket_listing.js';
export { MemoryBucket, checkObjectName, checkRange } from './memory_bucket.js';
export { MemoryKVStore, type VersionedValue, type KVChangeListener } from './memory_kv_store.js';
export { MemoryKV, DEFAULT_MAX_CAS_RETRIES, type MemoryKVConfig } from './memory_kv.js';
export { MemoryCache, utf8ByteLength, type MemoryCacheConfig } from './memory_cache.js';
export { InMemoryCacheMetrics } from './cache_metrics.js';
export { MemoryNetwork, MemoryTransport } from './memory_transport.js';
