/**
 * Strata's configuration: command-line flags, the YAML file, defaults, validation, and the
 * renderings derived from one definition table (`-help`, `/config`, the markdown reference).
 * It must never touch the outside world itself: files come through the FileSystem and the
 * environment through the map the caller passes in; nothing here holds mutable module state.
 */
export { INGESTION_RATE_STRATEGIES, type LimitsConfig } from './limits.js';
export type * from './types.js';
export type * from './types_frontend.js';
export { ConfigError } from './errors.js';
export { loadConfig, type LoadDeps, type LoadResult } from './load.js';
export { defaultConfig } from './config_tree.js';
export { validateConfig } from './validate.js';
export { renderConfig, SECRET_MASK, type RenderMode } from './render.js';
export { renderConfigReference } from './reference.js';
export { flagHelp } from './help.js';
export { formatDuration, parseDuration } from './duration.js';
export { ALL_COMPONENTS, parseTargets } from './targets.js';
