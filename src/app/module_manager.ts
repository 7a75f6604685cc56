/**
 * Cortex-style modules: named units with declared dependencies, selected by `-target`. The
 * manager resolves targets to their transitive dependency closure, initialises the modules in
 * a deterministic topological order (dependencies first, ties broken by name), starts their
 * services in that order and stops them in reverse, within a grace period.
 */
import type { Clock, Logger, Timer } from '../runtime/index.js';
import { INITIALISED_ONLY, type ModuleStatus } from '../server/index.js';
import type { Service } from '../services/index.js';

export interface ModuleDefinition<Ctx> {
  readonly name: string;
  /** Modules that must be initialised and started before this one. */
  readonly deps: readonly string[];
  /**
   * Builds the module (and publishes what it provides on `ctx`). Returns the service to
   * start, or undefined for modules with nothing to run. Umbrella modules such as `all`
   * have no init: they only pull in their dependencies.
   */
  init?(ctx: Ctx): Promise<Service | undefined>;
}

export class UnknownModuleError extends Error {
  override name = 'UnknownModuleError';
}

export class ModuleDependencyError extends Error {
  override name = 'ModuleDependencyError';
}

/** A module failed to initialise or start; `module` names it, `cause` is the original error. */
export class ModuleStartError extends Error {
  override name = 'ModuleStartError';
  constructor(
    readonly module: string,
    readonly phase: 'initialise' | 'start',
    cause: unknown,
  ) {
    super(
      `module ${module} failed to ${phase}: ${cause instanceof Error ? cause.message : String(cause)}`,
      { cause },
    );
  }
}

/** Starting was abandoned because the process was asked to stop. */
export class StartAbortedError extends Error {
  override name = 'StartAbortedError';
}

export interface StopResult {
  /** Modules whose service had not finished stopping when the grace period ran out (stop order). */
  readonly notStopped: readonly string[];
  /** Modules whose service failed while stopping. */
  readonly failed: readonly { readonly module: string; readonly error: Error }[];
}

export interface ModuleManagerConfig {
  /** How long `stop()` waits for all services together before giving up (ms). */
  readonly shutdownGraceMs: number;
}

export interface ModuleManagerDeps {
  readonly clock: Clock;
  readonly logger: Logger;
}

interface ModuleEntry {
  readonly module: string;
  readonly service: Service;
}

/**
 * The modules to run for `targets` in initialisation order: the transitive closure of their
 * dependencies, topologically sorted, ties broken by name so the order never depends on the
 * order of the target list or of the definitions.
 */
export function resolveModuleOrder<Ctx>(
  definitions: readonly ModuleDefinition<Ctx>[],
  targets: readonly string[],
): string[] {
  const byName = indexDefinitions(definitions);
  if (targets.length === 0) throw new UnknownModuleError('no target given');
  const closure = new Set<string>();
  const visit = (name: string, from: string | undefined): void => {
    if (closure.has(name)) return;
    const def = byName.get(name);
    if (def === undefined) {
      throw new UnknownModuleError(
        from === undefined
          ? `unknown target "${name}": valid targets are ${[...byName.keys()].sort().join(', ')}`
          : `module ${from} depends on unknown module "${name}"`,
      );
    }
    closure.add(name);
    for (const dep of def.deps) visit(dep, name);
  };
  for (const t of targets) visit(t, undefined);

  // Kahn's algorithm, always taking the smallest ready name.
  const remaining = new Map<string, Set<string>>();
  for (const name of closure) remaining.set(name, new Set(byName.get(name)?.deps ?? []));
  const order: string[] = [];
  while (remaining.size > 0) {
    const ready = [...remaining.entries()]
      .filter(([, deps]) => deps.size === 0)
      .map(([n]) => n)
      .sort();
    const next = ready[0];
    if (next === undefined) {
      throw new ModuleDependencyError(
        `dependency cycle among modules: ${[...remaining.keys()].sort().join(', ')}`,
      );
    }
    order.push(next);
    remaining.delete(next);
    for (const deps of remaining.values()) deps.delete(next);
  }
  return order;
}

function indexDefinitions<Ctx>(
  definitions: readonly ModuleDefinition<Ctx>[],
): Map<string, ModuleDefinition<Ctx>> {
  const byName = new Map<string, ModuleDefinition<Ctx>>();
  for (const def of definitions) {
    if (byName.has(def.name)) throw new ModuleDependencyError(`module ${def.name} defined twice`);
    byName.set(def.name, def);
  }
  return byName;
}

export class ModuleManager<Ctx> {
  private readonly byName: Map<string, ModuleDefinition<Ctx>>;
  private moduleOrder: string[] = [];
  private readonly entries: ModuleEntry[] = [];
  /** Modules whose init built something for others and returned no service. */
  private readonly initialisedOnly = new Set<string>();
  private initialised = false;
  private startPromise: Promise<void> | undefined;
  private stopPromise: Promise<StopResult> | undefined;
  private readonly failureListeners: ((module: string, err: Error) => void)[] = [];

  constructor(
    definitions: readonly ModuleDefinition<Ctx>[],
    private readonly config: ModuleManagerConfig,
    private readonly deps: ModuleManagerDeps,
  ) {
    this.byName = indexDefinitions(definitions);
  }

  /** The resolved modules in initialisation (and start) order; empty before `init`. */
  get order(): readonly string[] {
    return this.moduleOrder;
  }

  /** Every module's service, in start order. */
  services(): readonly { readonly module: string; readonly service: Service }[] {
    return this.entries;
  }

  /** The service of `module`, if it was initialised and has one. */
  service(module: string): Service | undefined {
    return this.entries.find((s) => s.module === module)?.service;
  }

  /**
   * Resolves `targets` and initialises each module of the closure in order. On failure the
   * services created so far are stopped (they were never started, so nothing runs) and a
   * ModuleStartError names the module.
   */
  async init(targets: readonly string[], ctx: Ctx): Promise<void> {
    if (this.initialised) throw new Error('modules already initialised');
    this.initialised = true;
    this.moduleOrder = resolveModuleOrder([...this.byName.values()], targets);
    for (const name of this.moduleOrder) {
      const def = this.byName.get(name);
      if (def?.init === undefined) continue;
      let service: Service | undefined;
      try {
        service = await def.init(ctx);
      } catch (err) {
        this.deps.logger.error('module failed to initialise', {
          module: name,
          err: messageOf(err),
        });
        await this.stop();
        throw new ModuleStartError(name, 'initialise', err);
      }
      if (service === undefined) {
        this.initialisedOnly.add(name);
        continue;
      }
      const entry = { module: name, service };
      this.entries.push(entry);
      service.onFailure?.((err) => {
        // Failures during shutdown are the shutdown's business, not a reason to raise alarms.
        if (this.stopPromise !== undefined) return;
        this.deps.logger.error('module failed while running', { module: name, err: err.message });
        for (const listener of this.failureListeners) listener(name, err);
      });
    }
  }

  /**
   * Starts every service in order, each after the previous one is Running. If one fails to
   * start, or `signal` aborts, the services already started are stopped in reverse order and
   * the promise rejects (ModuleStartError naming the module, or StartAbortedError).
   */
  start(signal: AbortSignal): Promise<void> {
    if (!this.initialised)
      return Promise.reject(new Error('modules must be initialised before they start'));
    this.startPromise ??= this.doStart(signal);
    return this.startPromise;
  }

  private async doStart(signal: AbortSignal): Promise<void> {
    for (const { module, service } of this.entries) {
      if (signal.aborted || this.stopPromise !== undefined) {
        await this.stop();
        throw new StartAbortedError(`start abandoned before module ${module}: shutting down`);
      }
      this.deps.logger.debug('starting module', { module });
      try {
        await service.start(signal);
      } catch (err) {
        if (signal.aborted || this.stopPromise !== undefined) {
          await this.stop();
          throw new StartAbortedError(
            `start abandoned while module ${module} was starting: shutting down`,
          );
        }
        this.deps.logger.error('module failed to start', { module, err: messageOf(err) });
        await this.stop();
        throw new ModuleStartError(module, 'start', err);
      }
      this.deps.logger.debug('module started', { module });
    }
  }

  /** Calls `listener` when a started service fails while running (not during shutdown). */
  onModuleFailure(listener: (module: string, err: Error) => void): void {
    this.failureListeners.push(listener);
  }

  /**
   * Stops every service in reverse start order, one after the other, within the grace period.
   * When the grace period runs out, the modules still stopping and those not yet asked are
   * reported in `notStopped`; the latter are still asked to stop, without waiting, so they
   * release what they can while the process exits. Idempotent.
   */
  stop(): Promise<StopResult> {
    this.stopPromise ??= this.doStop();
    return this.stopPromise;
  }

  private async doStop(): Promise<StopResult> {
    const { clock, logger } = this.deps;
    let timer: Timer | undefined;
    const deadline = new Promise<'timeout'>((resolve) => {
      timer = clock.setTimer(this.config.shutdownGraceMs, () => resolve('timeout'));
    });
    const failed: { module: string; error: Error }[] = [];
    const reversed = [...this.entries].reverse();
    const notStopped: string[] = [];
    try {
      for (let i = 0; i < reversed.length; i++) {
        const { module, service } = reversed[i] as ModuleEntry;
        logger.debug('stopping module', { module });
        const outcome = await Promise.race([
          service.stop().then(
            () => undefined,
            (err: unknown) => (err instanceof Error ? err : new Error(String(err))),
          ),
          deadline,
        ]);
        if (outcome === 'timeout') {
          const rest = reversed.slice(i + 1);
          notStopped.push(module, ...rest.map((r) => r.module));
          for (const r of rest) {
            r.service.stop().catch((err: unknown) => {
              logger.error('module failed while stopping after the grace period', {
                module: r.module,
                err: messageOf(err),
              });
            });
          }
          break;
        }
        if (outcome instanceof Error) {
          logger.error('module failed while stopping', { module, err: outcome.message });
          failed.push({ module, error: outcome });
        } else {
          logger.debug('module stopped', { module });
        }
      }
    } finally {
      timer?.cancel();
    }
    return { notStopped, failed };
  }

  /** A snapshot of every service for `/services` and `/ready`, in start order. */
  /** Every initialised module in start order, including those without a service. */
  statuses(): ModuleStatus[] {
    const services = new Map(this.entries.map((e) => [e.module, e.service]));
    const out: ModuleStatus[] = [];
    for (const name of this.moduleOrder) {
      const service = services.get(name);
      if (service !== undefined) {
        out.push({
          name,
          state: service.state,
          failureReason: service.failureReason,
          note: service.note,
          notReadyReason: service.state === 'Running' ? service.isReady?.() : undefined,
        });
      } else if (this.initialisedOnly.has(name)) {
        out.push({ name, state: INITIALISED_ONLY, note: 'initialised; no service to run' });
      }
    }
    return out;
  }
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
