/**
 * The `multi` KV store (Cortex's multi client): reads, watches and writes go to a primary
 * store, writes are optionally mirrored to a secondary one, and the primary can be switched
 * while running to migrate rings between stores. It only composes two KV clients it is
 * given: it must never open stores itself, do IO, or read the wall clock (the mirror
 * timeout runs on the injected Clock).
 */
export {
  MultiKV,
  DEFAULT_MIRROR_TIMEOUT_MS,
  type MultiKVConfig,
  type MultiKVDeps,
  type MultiKVRuntimeSettings,
} from './multi_kv.js';
export { MultiKVMetrics } from './multi_kv_metrics.js';
