/**
 * Strata's module graph, after Cortex's (pkg/cortex/modules.go): infrastructure modules
 * (`server`, `runtime-config`, `overrides`, `ring`), the components of reference §2, and the
 * umbrella `all`. Each definition says what it needs and what it publishes on the context.
 */
import { ALL_COMPONENTS } from '../config/index.js';
import { Overrides, RuntimeConfigManager } from '../overrides/index.js';
import {
  HttpServer,
  NotImplementedError,
  type Profiler,
  registerDebugRoutes,
  registerIndexRoute,
  registerStatusRoutes,
} from '../server/index.js';
import type { StrataContext } from './context.js';
import type { ModuleDefinition } from './module_manager.js';
import { placeholderService } from './placeholder.js';
import { registerMemberlistPage } from './memberlist_page.js';
import { INGESTER_RING_USERS, ringService } from './ring_kv.js';
import { registerDistributorRingPage, registerIngesterRingPage } from './ring_client.js';
import { BasicService, type Service } from '../services/index.js';
import { distributorService, ingesterService, querierService } from './components.js';
import { compactorService } from './compactor_component.js';
import { purgerService } from './purger_component.js';
import { storeGatewayService } from './storegateway_component.js';
import { queryFrontendService, querySchedulerService } from './frontend_component.js';

export type StrataModule = ModuleDefinition<StrataContext>;

/** Dependencies of each component, after Cortex's module graph (rings folded into `ring`). */
const COMPONENT_DEPS: Readonly<Record<string, readonly string[]>> = {
  distributor: ['ring', 'overrides', 'server'],
  ingester: ['ring', 'overrides', 'runtime-config', 'server'],
  querier: ['ring', 'overrides', 'server'],
  'query-frontend': ['overrides', 'server'],
  'query-scheduler': ['overrides', 'server'],
  'store-gateway': ['ring', 'overrides', 'server'],
  compactor: ['ring', 'overrides', 'server'],
  ruler: ['ring', 'overrides', 'server'],
  alertmanager: ['ring', 'overrides', 'server'],
  purger: ['overrides', 'server'],
  configs: ['server'],
};

/** Used when no profiler is given (tests, the simulator): the profile endpoints answer 501. */
const NO_PROFILER: Profiler = {
  captureCpuProfile: () =>
    Promise.reject(new NotImplementedError('profiling is not available in this process')),
  captureHeapProfile: () =>
    Promise.reject(new NotImplementedError('profiling is not available in this process')),
};

const serverModule: StrataModule = {
  name: 'server',
  deps: [],
  init: (ctx) => {
    const { config, env } = ctx;
    const logger = env.logger.child({ module: 'server' });
    const http = new HttpServer(
      {
        authEnabled: config.auth_enabled,
        prefixes: {
          legacy: config.http_prefix,
          prometheus: config.api.prometheus_http_prefix,
          alertmanager: config.api.alertmanager_http_prefix,
        },
      },
      { clock: env.clock, logger, metrics: env.metrics },
    );
    registerIndexRoute(http);
    registerStatusRoutes(http, {
      renderConfig: (mode) => ctx.renderConfig(mode),
      // Looked up per request: runtime-config is initialised after the server.
      renderRuntimeConfig: (mode) => ctx.runtimeConfig?.render(mode, config.limits),
      runtimeConfigEnabled: config.runtime_config.file !== '',
      statuses: ctx.statuses,
      metrics: env.metrics,
    });
    registerDebugRoutes(http, { profiler: ctx.options.profiler ?? NO_PROFILER });
    ctx.http = http;

    const { listen } = ctx.options;
    return Promise.resolve(
      new BasicService('server', {
        starting: async () => {
          const rpcAddress = await env.transport.listen();
          if (listen !== undefined) {
            ctx.listener = await listen(http.handler);
            logger.info('HTTP server listening', {
              address: ctx.listener.address,
              port: ctx.listener.port,
            });
          }
          logger.info('internal RPC listening', { address: rpcAddress });
        },
        stopping: async () => {
          // The HTTP server stops last (every module depends on it), so `/ready` keeps
          // answering 503 while the others stop; in-flight requests get the grace period.
          try {
            await ctx.listener?.close(config.server.graceful_shutdown_timeout);
          } finally {
            await env.transport.close();
          }
        },
      }),
    );
  },
};

const runtimeConfigModule: StrataModule = {
  name: 'runtime-config',
  deps: ['server'],
  init: (ctx) => {
    const { file, period } = ctx.config.runtime_config;
    // Like Cortex: without a file there is nothing to load and no service to run.
    if (file === '') return Promise.resolve(undefined);
    const { env } = ctx;
    const manager = new RuntimeConfigManager(
      { file, periodMs: period },
      { fs: env.fs, clock: env.clock, logger: env.logger, metrics: env.metrics },
    );
    ctx.runtimeConfig = manager;
    return Promise.resolve(
      new BasicService('runtime-config', {
        starting: (signal) => manager.start(signal),
        stopping: () => manager.stop(),
      }),
    );
  },
};

const overridesModule: StrataModule = {
  name: 'overrides',
  deps: ['runtime-config'],
  init: (ctx) => {
    ctx.overrides = new Overrides(ctx.config.limits, ctx.runtimeConfig);
    return Promise.resolve(undefined);
  },
};

const ringModule: StrataModule = {
  name: 'ring',
  // runtime-config: a multi KV store follows its `multi_kv_config`.
  deps: ['server', 'runtime-config'],
  init: (ctx) => {
    const http = ctx.need(ctx.http, 'server', 'ring');
    if (INGESTER_RING_USERS.some((m) => ctx.modules().includes(m)))
      registerIngesterRingPage(http, ctx);
    if (ctx.modules().includes('distributor')) registerDistributorRingPage(http, ctx);
    // Answers 503 unless some ring store of this process is memberlist.
    registerMemberlistPage(http, { kv: () => ctx.memberlistKV, clock: ctx.env.clock });
    return Promise.resolve(ringService(ctx));
  },
};

/** The components built so far; the others run as placeholders until their issue lands. */
const COMPONENT_SERVICES: Readonly<Record<string, (ctx: StrataContext) => Service>> = {
  distributor: distributorService,
  ingester: ingesterService,
  querier: querierService,
  compactor: compactorService,
  'store-gateway': storeGatewayService,
  purger: purgerService,
  'query-frontend': queryFrontendService,
  'query-scheduler': querySchedulerService,
};

function componentModule(name: string): StrataModule {
  const deps = COMPONENT_DEPS[name];
  if (deps === undefined) throw new Error(`no dependencies declared for component ${name}`);
  const build = COMPONENT_SERVICES[name];
  return {
    name,
    deps,
    init: (ctx) =>
      Promise.resolve(
        build !== undefined
          ? build(ctx)
          : placeholderService(name, ctx.env.logger.child({ module: name })),
      ),
  };
}

const allModule: StrataModule = { name: 'all', deps: ALL_COMPONENTS };

/** Every module Strata knows, in no particular order (the manager sorts). */
export function strataModules(): StrataModule[] {
  return [
    serverModule,
    runtimeConfigModule,
    overridesModule,
    ringModule,
    ...Object.keys(COMPONENT_DEPS).map(componentModule),
    allModule,
  ];
}
