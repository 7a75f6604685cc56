/**
 * One Strata process, programmatically: resolve `-target`, wire the modules, start them and
 * stop them. `runServe` wraps this with configuration loading, the real Env and signals;
 * tests and the simulator use it directly.
 */
import { type Config, parseTargets } from '../config/index.js';
import type { Env } from '../runtime/index.js';
import type { HttpServer } from '../server/index.js';
import { type HttpListener, StrataContext, type StrataOptions } from './context.js';
import { ModuleManager, type StopResult } from './module_manager.js';
import { strataModules } from './modules.js';

export class Strata {
  private constructor(
    readonly config: Config,
    /** The targets as given (after alias resolution), e.g. `['all']`. */
    readonly targets: readonly string[],
    readonly modules: ModuleManager<StrataContext>,
    readonly context: StrataContext,
  ) {}

  /**
   * Resolves the targets and initialises every module (nothing runs yet: `/ready` answers 503
   * until `start` has brought every service to Running). Rejects with a ModuleStartError
   * naming the module that could not be built, or a ConfigError for a bad target list.
   */
  static async create(config: Config, env: Env, options: StrataOptions = {}): Promise<Strata> {
    const targets = parseTargets(config.target);
    const modules = new ModuleManager(
      strataModules(),
      { shutdownGraceMs: config.server.graceful_shutdown_timeout },
      { clock: env.clock, logger: env.logger },
    );
    const context = new StrataContext(
      config,
      env,
      options,
      () => modules.order,
      () => modules.statuses(),
    );
    await modules.init(targets, context);
    return new Strata(config, targets, modules, context);
  }

  /** The HTTP server's request listener (every registered route), for listeners and tests. */
  get httpHandler(): HttpServer['handler'] {
    return this.http.handler;
  }

  get http(): HttpServer {
    return this.context.need(this.context.http, 'server', 'strata');
  }

  /** The HTTP listener when `options.listen` was given and the server has started. */
  get listener(): HttpListener | undefined {
    return this.context.listener;
  }

  /**
   * Starts every module in dependency order. If one fails (or `signal` aborts), the ones
   * already started are stopped in reverse order and this rejects naming the module.
   */
  start(signal: AbortSignal = new AbortController().signal): Promise<void> {
    return this.modules.start(signal);
  }

  /** Stops every module in reverse order within `-server.graceful-shutdown-timeout`. */
  stop(): Promise<StopResult> {
    return this.modules.stop();
  }
}

export type RunningStrata = Strata;

/** Creates and starts a Strata process (see `Strata.create` and `Strata.start`). */
export async function startStrata(
  config: Config,
  env: Env,
  options: StrataOptions = {},
): Promise<RunningStrata> {
  const strata = await Strata.create(config, env, options);
  await strata.start();
  return strata;
}
