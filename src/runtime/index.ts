/**
 * The runtime boundary: the only way component code reaches time, randomness, disk,
 * network, object storage, key-value stores, caches, logs and metrics. Interfaces live here;
 * real implementations in `real/`, simulated ones in `sim/`. This module must never import a
 * component, and nothing outside `real/` (and the simulation kernel) may touch the
 * nondeterministic globals or node:fs/net/http.
 */
export * from './bucket.js';
export * from './upload_source.js';
export * from './forwarding_bucket.js';
export * from './cache.js';
export * from './child_abort.js';
export * from './clock.js';
export * from './compute.js';
export * from './env.js';
export * from './durable_mkdir.js';
export * from './durable_write.js';
export * from './filesystem.js';
export * from './kv.js';
export * from './logger.js';
export * from './metrics.js';
export * from './prng.js';
export * from './random.js';
export * from './slicer.js';
export * from './transport.js';
export * from './memory/index.js';
export * from './multi/index.js';
export * from './memberlist/index.js';
