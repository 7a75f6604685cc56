/**
 * The lifecycle contract of every long-running part of Strata (components, ring clients,
 * the runtime-config manager): a small state machine that the app's module manager starts
 * and stops in dependency order. It must stay free of any component or app import, so that
 * components can implement it without an import cycle.
 */
export {
  BasicService,
  ServiceStateError,
  type Service,
  type ServiceHooks,
  type ServiceState,
} from './service.js';
