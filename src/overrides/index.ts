/**
 * Runtime configuration and per-tenant limits. `RuntimeConfigManager` loads the runtime
 * configuration file (`-runtime-config.file`, Cortex format: `overrides` per tenant and
 * `multi_kv_config`) and reloads it periodically; `Overrides` is the one accessor every
 * component asks for a tenant's limits (defaults merged with that tenant's overrides, always
 * from the latest good reload). This module must never let an invalid reload replace a good
 * config, never read a file or the clock except through the Env it is given, and never
 * cache a tenant's limits beyond the config they came from.
 */
export {
  RuntimeConfigManager,
  type RuntimeConfigListener,
  type RuntimeConfigManagerConfig,
  type RuntimeConfigManagerDeps,
} from './manager.js';
export { Overrides, type RuntimeConfigSource } from './overrides.js';
export { renderRuntimeConfig, type RuntimeConfigRenderMode } from './render.js';
export {
  emptyRuntimeConfig,
  type MultiKVRuntimeConfig,
  parseRuntimeConfig,
  type RuntimeConfig,
  type TenantLimitsOverride,
} from './runtime_config.js';
export { RuntimeConfigError } from './runtime_config_error.js';
export { LIMIT_NAMES, type LimitName } from './limit_fields.js';
