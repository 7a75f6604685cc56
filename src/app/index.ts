/**
 * Wiring by `-target`: Cortex-style modules with declared dependencies (server,
 * runtime-config, overrides, ring and the components of reference §2), started in dependency
 * order and stopped in reverse; `strata serve` (`runServe`) around it with the real Env and
 * process signals; the service lifecycle every long-running part implements.
 *
 * It must never hold component behaviour itself (components live in their own modules and
 * only get wired here), and nothing but `serve.ts` may touch process signals or the real
 * runtime.
 */
export { runServe, type ServeIO, type ServeOptions } from './serve.js';
export { Strata, startStrata, type RunningStrata } from './strata.js';
export {
  StrataContext,
  type HttpListener,
  type ListenFn,
  type RingKVClients,
  type SimCanaryHooks,
  type StrataOptions,
} from './context.js';
export {
  ModuleDependencyError,
  ModuleManager,
  ModuleStartError,
  StartAbortedError,
  UnknownModuleError,
  resolveModuleOrder,
  type ModuleDefinition,
  type ModuleManagerConfig,
  type ModuleManagerDeps,
  type StopResult,
} from './module_manager.js';
export { strataModules, type StrataModule } from './modules.js';
export { COMPONENT_ISSUES, placeholderNote, placeholderService } from './placeholder.js';
export { kvSpecFromConfig, ringService } from './ring_kv.js';
