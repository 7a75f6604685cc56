import { createHash } from 'node:crypto';
import { Counter, Gauge } from 'prom-client';
import type { LimitsConfig } from '../config/index.js';
import {
  AbortError,
  type Clock,
  type FileSystem,
  type Logger,
  type MetricsRegistry,
  type Timer,
} from '../runtime/index.js';
import { renderRuntimeConfig, type RuntimeConfigRenderMode } from './render.js';
import { emptyRuntimeConfig, parseRuntimeConfig, type RuntimeConfig } from './runtime_config.js';
import { RuntimeConfigError } from './runtime_config_error.js';

export interface RuntimeConfigManagerConfig {
  /** -runtime-config.file */
  file: string;
  /** -runtime-config.reload-period, in milliseconds. */
  periodMs: number;
}

export interface RuntimeConfigManagerDeps {
  fs: FileSystem;
  clock: Clock;
  logger: Logger;
  metrics: MetricsRegistry;
}

export type RuntimeConfigListener = (config: RuntimeConfig) => void;

type LoadResult = { ok: true; changed: boolean } | { ok: false; reason: string };

type State = 'new' | 'starting' | 'running' | 'stopped';

/**
 * Loads the runtime configuration file at start and reloads it every period (Cortex's
 * runtimeconfig.Manager). A file that cannot be read or is invalid at start makes `start`
 * reject, so the process refuses to start with a broken file; a bad file on a later reload
 * keeps the last good config applied, logs the reason and is counted, so a typo never takes
 * limits away from running components.
 */
export class RuntimeConfigManager {
  private config: RuntimeConfig = emptyRuntimeConfig();
  private appliedHash: string | undefined;
  private state: State = 'new';
  private timer: Timer | undefined;
  private inFlight: Promise<void> | undefined;
  private readonly listeners = new Set<{ fn: RuntimeConfigListener }>();
  private readonly logger: Logger;
  private readonly lastReloadSuccessful: Gauge;
  private readonly configHash: Gauge<'sha256'>;
  private readonly reloadFailures: Counter;
  private readonly listenerErrors: Counter;

  constructor(
    private readonly cfg: RuntimeConfigManagerConfig,
    private readonly deps: RuntimeConfigManagerDeps,
  ) {
    if (cfg.file === '') {
      throw new RuntimeConfigError('runtime config file name is empty (-runtime-config.file)');
    }
    if (!Number.isFinite(cfg.periodMs) || cfg.periodMs <= 0) {
      throw new RuntimeConfigError(
        `runtime config reload period must be positive, got ${cfg.periodMs}ms (-runtime-config.reload-period)`,
      );
    }
    this.logger = deps.logger.child({ module: 'runtime-config', file: cfg.file });
    const registers = [deps.metrics];
    this.lastReloadSuccessful = new Gauge({
      name: 'cortex_runtime_config_last_reload_successful',
      help: 'Whether the last runtime-config reload attempt was successful.',
      registers,
    });
    this.configHash = new Gauge({
      name: 'cortex_runtime_config_hash',
      help: 'Hash of the currently active runtime config file.',
      labelNames: ['sha256'] as const,
      registers,
    });
    this.reloadFailures = new Counter({
      name: 'cortex_runtime_config_reload_failures_total',
      help: 'Runtime-config load attempts that failed (the last good config stays applied).',
      registers,
    });
    this.listenerErrors = new Counter({
      name: 'cortex_runtime_config_listener_errors_total',
      help: 'Runtime-config change listeners that threw.',
      registers,
    });
  }

  /**
   * Loads the file; rejects with an error naming the file and the problem if it cannot.
   * Then reloads every period until `stop()` or until `signal` aborts.
   */
  async start(signal: AbortSignal): Promise<void> {
    if (this.state !== 'new') {
      throw new Error(
        `runtime config manager for ${this.cfg.file} cannot start: it is ${this.state}`,
      );
    }
    if (signal.aborted) throw new AbortError();
    this.state = 'starting';
    const result = await this.load();
    if (!result.ok) {
      this.state = 'stopped';
      throw new RuntimeConfigError(
        `failed to load runtime config file ${this.cfg.file}: ${result.reason}`,
      );
    }
    // stop() may have been called, or the signal aborted, while the file was being read.
    if (signal.aborted || this.state !== 'starting') {
      this.state = 'stopped';
      throw new AbortError('runtime config manager stopped while starting');
    }
    this.state = 'running';
    this.timer = this.deps.clock.every(this.cfg.periodMs, () => this.reload());
    signal.addEventListener('abort', () => void this.stop(), { once: true });
  }

  /** Cancels reloading; resolves once a reload in progress has finished (and was discarded). */
  async stop(): Promise<void> {
    this.state = 'stopped';
    this.timer?.cancel();
    this.timer = undefined;
    await this.inFlight;
  }

  /** The applied config: the last file that loaded successfully (empty before the first). */
  current(): RuntimeConfig {
    return this.config;
  }

  /**
   * Calls `listener` with the new config after each reload that changed the file's content
   * (not for the initial load, which `start` awaits; read `current()` for that). Listeners run
   * synchronously in subscription order; one that throws is logged and counted, the others
   * still run. Returns the function that unsubscribes.
   */
  onChange(listener: RuntimeConfigListener): () => void {
    const entry = { fn: listener };
    this.listeners.add(entry);
    return () => {
      this.listeners.delete(entry);
    };
  }

  /** YAML of the applied config for `/runtime_config` (see renderRuntimeConfig). */
  render(mode: RuntimeConfigRenderMode, defaults: LimitsConfig): string {
    return renderRuntimeConfig(this.config, mode, defaults);
  }

  private async reload(): Promise<void> {
    if (this.state !== 'running') return;
    const result = await this.load();
    if (!result.ok) {
      this.logger.error('failed to reload runtime config; keeping the last good one', {
        err: result.reason,
      });
    }
  }

  /** Runs one load attempt and remembers it, so `stop()` can wait for it to finish. */
  private async load(): Promise<LoadResult> {
    const attempt = this.loadOnce();
    const done = attempt.then(
      () => undefined,
      () => undefined,
    );
    this.inFlight = done;
    try {
      return await attempt;
    } finally {
      if (this.inFlight === done) this.inFlight = undefined;
    }
  }

  private async loadOnce(): Promise<LoadResult> {
    let bytes: Uint8Array;
    try {
      bytes = await this.deps.fs.readFile(this.cfg.file);
    } catch (err) {
      return this.failed(`read file: ${errorMessage(err)}`);
    }
    // Stopped while reading: apply nothing, so the config is frozen once stop() resolves.
    if (this.state === 'stopped') return { ok: true, changed: false };
    const hash = createHash('sha256').update(bytes).digest('hex');
    if (hash === this.appliedHash) {
      // Same bytes as the applied config: already validated, nothing to do.
      this.lastReloadSuccessful.set(1);
      return { ok: true, changed: false };
    }
    let parsed: RuntimeConfig;
    try {
      parsed = parseRuntimeConfig(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
    } catch (err) {
      return this.failed(`load file: ${errorMessage(err)}`);
    }
    const initial = this.appliedHash === undefined;
    this.config = parsed;
    this.appliedHash = hash;
    this.lastReloadSuccessful.set(1);
    this.configHash.reset();
    this.configHash.set({ sha256: hash }, 1);
    this.logger.info(initial ? 'runtime config loaded' : 'runtime config reloaded', {
      sha256: hash,
      tenants: parsed.overrides.size,
    });
    if (!initial) this.notify(parsed);
    return { ok: true, changed: true };
  }

  private failed(reason: string): LoadResult {
    this.lastReloadSuccessful.set(0);
    this.reloadFailures.inc();
    return { ok: false, reason };
  }

  private notify(config: RuntimeConfig): void {
    for (const { fn } of [...this.listeners]) {
      try {
        fn(config);
      } catch (err) {
        this.listenerErrors.inc();
        this.logger.error('runtime config listener failed', { err: errorMessage(err) });
      }
    }
  }
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
