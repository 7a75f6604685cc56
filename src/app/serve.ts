/**
 * `strata serve`: load the configuration, build the real Env, start the modules of `-target`,
 * serve HTTP, and on SIGTERM/SIGINT stop everything in reverse order within
 * `-server.graceful-shutdown-timeout`. A second signal exits at once.
 *
 * This file is the only place in Strata that listens for process signals.
 */
import { ConfigError, loadConfig, type Config } from '../config/index.js';
import {
  NodeFileSystem,
  NodeProfiler,
  createRealEnv,
  defaultNodeName,
  listenHttp,
} from '../runtime/real/index.js';
import type { Env, LogLevel } from '../runtime/index.js';
import type { Profiler } from '../server/index.js';
import { StartAbortedError, type StopResult } from './module_manager.js';
import { serveBuildInfo } from './build_info.js';
import { Strata, type RunningStrata } from './strata.js';

export interface ServeIO {
  stdout(s: string): void;
  stderr(s: string): void;
}

export interface ServeOptions {
  /**
   * Ends the process immediately: on a second signal, and when shutdown outlived its grace
   * period (something may still hold the event loop). Defaults to `process.exit`.
   */
  readonly exit?: (code: number) => void;
  /** Called once every module is Running (tests use it to learn the listening port). */
  readonly onStarted?: (strata: RunningStrata) => void;
  /** This node's name; defaults to the host name. */
  readonly nodeName?: string;
}

/** Exit code when a start failed, a module failed while running, or shutdown did not finish in time. */
const FAILURE_EXIT_CODE = 1;

export async function runServe(
  argv: string[],
  io: ServeIO,
  opts: ServeOptions = {},
): Promise<number> {
  let config: Config;
  try {
    const loaded = await loadConfig(argv, { fs: new NodeFileSystem(), env: process.env });
    if (loaded.kind === 'help') {
      io.stdout(loaded.text);
      return 0;
    }
    config = loaded.config;
  } catch (err) {
    if (err instanceof ConfigError) {
      io.stderr(`${err.message}\n`);
      return 1;
    }
    throw err;
  }

  const env = createRealEnv({
    nodeName: opts.nodeName ?? defaultNodeName(),
    logLevel: config.server.log_level as LogLevel,
    rpc: { host: config.server.grpc_listen_address, port: config.server.grpc_listen_port },
  });
  const exit = opts.exit ?? ((code: number) => process.exit(code));
  const signals = new SignalWatcher(env, exit);
  // One inspector session for the whole process. Heap sampling starts now so that the first
  // /debug/pprof/heap already shows what was allocated since startup, as Go's does.
  const profiler = new NodeProfiler();
  try {
    await profiler.startHeapSampling();
    return await serve(config, env, io, signals, profiler, opts, exit);
  } catch (err) {
    // serve() reports the failures it expects; anything else still ends with a message and
    // a non-zero code rather than an unhandled rejection in the CLI.
    return reportStartFailure(err, env, io);
  } finally {
    signals.dispose();
    await profiler.close();
  }
}

async function serve(
  config: Config,
  env: Env,
  io: ServeIO,
  signals: SignalWatcher,
  profiler: Profiler,
  opts: ServeOptions,
  exit: (code: number) => void,
): Promise<number> {
  const { logger } = env;
  const listen = { host: config.server.http_listen_address, port: config.server.http_listen_port };
  let strata: Strata;
  try {
    strata = await Strata.create(config, env, {
      listen: (handler) => listenHttp(handler, listen),
      profiler,
      buildInfo: serveBuildInfo(process.version),
    });
  } catch (err) {
    return reportStartFailure(err, env, io);
  }

  let failure: { module: string; err: Error } | undefined;
  const failed = new Promise<void>((resolve) => {
    strata.modules.onModuleFailure((module, err) => {
      failure ??= { module, err };
      resolve();
    });
  });

  try {
    await strata.start(signals.shutdown);
  } catch (err) {
    if (err instanceof StartAbortedError) {
      logger.info('startup abandoned: shutdown requested', { reason: err.message });
      return finishShutdown(await strata.stop(), config, env, io, exit, 0);
    }
    return reportStartFailure(err, env, io);
  }

  logger.info('Strata started', {
    targets: strata.targets.join(','),
    modules: strata.modules.order.join(','),
    http_address: strata.listener?.address,
    http_port: strata.listener?.port,
  });
  opts.onStarted?.(strata);

  await Promise.race([signals.requested, failed]);
  if (failure !== undefined) {
    io.stderr(`module ${failure.module} failed: ${failure.err.message}\n`);
    logger.error('module failed; shutting down', {
      module: failure.module,
      err: failure.err.message,
    });
  }
  return finishShutdown(
    await strata.stop(),
    config,
    env,
    io,
    exit,
    failure === undefined ? 0 : FAILURE_EXIT_CODE,
  );
}

function finishShutdown(
  result: StopResult,
  config: Config,
  env: Env,
  io: ServeIO,
  exit: (code: number) => void,
  code: number,
): number {
  const { logger } = env;
  for (const { module, error } of result.failed) {
    io.stderr(`module ${module} failed while stopping: ${error.message}\n`);
  }
  if (result.notStopped.length > 0) {
    const message = `graceful shutdown timed out after ${config.server.graceful_shutdown_timeout}ms; modules still stopping: ${result.notStopped.join(', ')}`;
    logger.error(message, { modules: result.notStopped.join(',') });
    io.stderr(`${message}\n`);
    // Something is stuck and may hold the event loop open forever: end the process now.
    exit(FAILURE_EXIT_CODE);
    return FAILURE_EXIT_CODE;
  }
  logger.info('Strata stopped');
  return result.failed.length > 0 ? FAILURE_EXIT_CODE : code;
}

function reportStartFailure(err: unknown, env: Env, io: ServeIO): number {
  const message = err instanceof Error ? err.message : String(err);
  env.logger.error('error starting Strata', { err: message });
  io.stderr(`error starting Strata: ${message}\n`);
  return FAILURE_EXIT_CODE;
}

/**
 * SIGTERM and SIGINT: the first asks for a graceful shutdown, a second one exits at once.
 * Listeners are removed on dispose so that a returned `runServe` leaves no trace.
 */
class SignalWatcher {
  private readonly controller = new AbortController();
  readonly requested: Promise<void>;
  private count = 0;
  private readonly handler = (signal: NodeJS.Signals): void => this.onSignal(signal);

  constructor(
    private readonly env: Env,
    private readonly exit: (code: number) => void,
  ) {
    this.requested = new Promise((resolve) => {
      this.controller.signal.addEventListener('abort', () => resolve(), { once: true });
    });
    this.arm();
  }

  /** Aborts when the first signal arrives. */
  get shutdown(): AbortSignal {
    return this.controller.signal;
  }

  dispose(): void {
    process.off('SIGTERM', this.handler);
    process.off('SIGINT', this.handler);
  }

  private arm(): void {
    // `once` per signal, re-armed after each: a signal that arrives while we handle the
    // previous one still finds a listener, so Node never falls back to its default (kill).
    process.once('SIGTERM', this.handler);
    process.once('SIGINT', this.handler);
  }

  private onSignal(signal: NodeJS.Signals): void {
    this.count++;
    this.dispose();
    this.arm();
    if (this.count === 1) {
      this.env.logger.info(
        'received signal; shutting down gracefully (send it again to exit at once)',
        { signal },
      );
      this.controller.abort();
      return;
    }
    this.env.logger.warn('received a second signal; exiting immediately', { signal });
    this.exit(FAILURE_EXIT_CODE);
  }
}
