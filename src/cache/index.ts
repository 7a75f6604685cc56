/**
 * Cache clients for the index, chunks, metadata and results caches. This module holds the
 * memcached client — binary protocol codec, xxhash64 + jump-hash server selection over
 * naturally sorted addresses, `dns+`/`dnssrv+`/`dnssrvnoa+` discovery re-resolved on the
 * clock, pooled connections, batched and bounded multi-gets, asynchronous sets — as pure
 * logic behind two small interfaces, `Resolver` (DNS) and `Dialer` (byte streams), which
 * the real runtime implements with node:dns/node:net and the simulator with its own fakes.
 * (The in-memory LRU lives in `src/runtime/memory/memory_cache.ts`.)
 *
 * It must never touch real IO, timers or randomness itself (everything comes from the Env
 * and the injected Resolver/Dialer), and a cache must never fail a caller or change an
 * answer: a server that is down, slow or answering garbage is a miss, counted and logged.
 *
 * Why not `memjs`: it hashes keys to servers its own way (so a memcached shared with Cortex
 * would not agree on where a key lives), keeps one socket per server with no idle pool, has
 * no multi-get batching nor get/set concurrency limits, and opens `node:net` sockets itself,
 * which cannot run under the deterministic simulator.
 */
export { MemcachedClient, DEFAULT_DNS_UPDATE_INTERVAL_MS } from './memcached_client.js';
export { legalKey } from './memcached_protocol.js';
export type { MemcachedClientConfig, MemcachedClientDeps } from './memcached_client.js';
export {
  MemcachedError,
  type Dialer,
  type ByteStream,
  type StreamHandlers,
  type FailureReason,
} from './connection.js';
export {
  AddressDiscovery,
  parseAddress,
  joinHostPort,
  type Resolver,
  type AddressSpec,
} from './discovery.js';
export { ServerSelector, jumpHash, naturalCompare, naturalSort } from './server_selector.js';
export { xxhash64, xxhash64String } from './xxhash64.js';
export * as memcachedProtocol from './memcached_protocol.js';
export {
  FakeMemcached,
  FakeMemcachedNetwork,
  FakeResolver,
  type FakeServerFault,
} from './fake_memcached.js';
