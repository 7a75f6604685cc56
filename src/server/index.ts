/**
 * The HTTP API server shared by every module in a process: route registration with
 * descriptions (for the `/` index page) and tenancy (`X-Scope-OrgID`), the URL prefixes and
 * their neutral aliases, Cortex's request metrics, the error table that maps coded errors to
 * HTTP statuses, and the endpoints every process serves (`/config`, `/runtime_config`,
 * `/services`, `/ready`, `/metrics`, `/debug/pprof/...`).
 *
 * It must never listen on a socket or touch node:http itself (the runtime's listener does),
 * never know a component's internals (modules register their own routes), and never answer
 * an error without going through the error table.
 */
export {
  HttpServer,
  tenantOf,
  writeBody,
  writeText,
  type HttpMethod,
  type HttpServerConfig,
  type HttpServerDeps,
  type RegisteredRoute,
  type RouteHandler,
  type RouteSpec,
} from './http_server.js';
export {
  NEUTRAL_PREFIXES,
  normalizePrefix,
  prefixedPaths,
  registerPrefixedRoute,
  type ApiPrefix,
  type ApiPrefixes,
} from './prefixes.js';
export {
  MAX_TENANT_ID_LENGTH,
  NO_AUTH_TENANT,
  TENANT_HEADER,
  resolveTenant,
  tenantIdProblem,
} from './tenant.js';
export * from './errors.js';
export {
  REQUEST_DURATION_BUCKETS,
  RequestMetrics,
  UNMATCHED_ROUTE_LABEL,
  routeLabel,
} from './request_metrics.js';
export { INITIALISED_ONLY, readiness, type ModuleStatus, type Readiness } from './module_status.js';
export {
  firstQueryValue,
  registerStatusRoutes,
  renderServicesPage,
  type ConfigRenderMode,
  type RuntimeConfigRenderMode,
  type StatusRoutesDeps,
} from './status_routes.js';
export { registerIndexRoute, renderIndexPage } from './index_page.js';
export {
  DEFAULT_PROFILE_SECONDS,
  MAX_PROFILE_SECONDS,
  parseSeconds,
  registerDebugRoutes,
  type DebugRoutesDeps,
  type Profiler,
} from './debug_routes.js';
export { escapeHtml, htmlPage } from './html.js';
export { dispatchInProcess, type RequestListener } from './in_process.js';
export {
  createServerRequest,
  createServerResponse,
  type InProcessRequest,
  type InProcessResponse,
  type ServerAnswer,
  type ServerRequestInit,
} from './in_process_messages.js';
