/**
 * The lifecycle every long-running part of Strata has (dskit's services.Service, which
 * Cortex's modules return): New → Starting → Running → Stopping → Terminated, or Failed from
 * Starting, Running or Stopping. `BasicService` implements the state machine around three
 * optional hooks so components only write what they do.
 */
import { AbortError, isAbortError } from '../runtime/index.js';

export type ServiceState = 'New' | 'Starting' | 'Running' | 'Stopping' | 'Terminated' | 'Failed';

export interface Service {
  readonly name: string;
  readonly state: ServiceState;
  /** Why the service failed (set when `state` is Failed). */
  readonly failureReason?: string | undefined;
  /** An operator-facing remark shown on `/services` (e.g. that the module is a placeholder). */
  readonly note?: string | undefined;
  /**
   * Resolves once the service is Running; rejects if it fails to start. `signal` aborts a
   * start in progress (the process is shutting down).
   */
  start(signal: AbortSignal): Promise<void>;
  /** Resolves once the service is Terminated (or Failed while stopping). Safe to call in any state, any number of times. */
  stop(): Promise<void>;
  /** Undefined when ready to serve; otherwise why not (shown by `/ready`). */
  isReady?(): string | undefined;
  /** Calls `listener` if the service leaves Running other than through `stop()`. */
  onFailure?(listener: (err: Error) => void): void;
}

export interface ServiceHooks {
  /** Acquires what the service needs; the service is Running when this resolves. */
  starting?(signal: AbortSignal): Promise<void>;
  /**
   * The service's main loop, run in the background once Running. `signal` aborts when
   * `stop()` is called; returning or throwing before that means the service stopped on its
   * own, which is reported to `onFailure` listeners.
   */
  running?(signal: AbortSignal): Promise<void>;
  /** Releases what `starting` acquired; runs after `running` has returned. */
  stopping?(): Promise<void>;
  /** Readiness beyond being Running: undefined when ready, else the reason. */
  isReady?(): string | undefined;
}

export class ServiceStateError extends Error {
  override name = 'ServiceStateError';
}

export class BasicService implements Service {
  private currentState: ServiceState = 'New';
  private reason: string | undefined;
  private startPromise: Promise<void> | undefined;
  private stopPromise: Promise<void> | undefined;
  private runPromise: Promise<void> | undefined;
  /** Aborted by stop(): cancels `starting` and ends `running`. */
  private readonly lifetime = new AbortController();
  private stopRequested = false;
  private readonly failureListeners: ((err: Error) => void)[] = [];

  constructor(
    readonly name: string,
    private readonly hooks: ServiceHooks = {},
    readonly note?: string,
  ) {}

  get state(): ServiceState {
    return this.currentState;
  }

  get failureReason(): string | undefined {
    return this.reason;
  }

  isReady(): string | undefined {
    if (this.currentState !== 'Running') return `${this.name} is ${this.currentState}`;
    return this.hooks.isReady?.();
  }

  onFailure(listener: (err: Error) => void): void {
    this.failureListeners.push(listener);
  }

  start(signal: AbortSignal): Promise<void> {
    if (this.startPromise !== undefined || this.currentState !== 'New') {
      return Promise.reject(
        new ServiceStateError(`service ${this.name} cannot start: it is ${this.currentState}`),
      );
    }
    this.startPromise = this.doStart(signal);
    return this.startPromise;
  }

  private async doStart(signal: AbortSignal): Promise<void> {
    this.currentState = 'Starting';
    const { signal: combined, detach } = followSignals(this.lifetime.signal, signal);
    try {
      if (combined.aborted) throw new AbortError(`service ${this.name}: start aborted`);
      await this.hooks.starting?.(combined);
    } catch (err) {
      // Being told to stop while starting is not a failure of the service.
      if (combined.aborted && isAbortError(err)) this.currentState = 'Terminated';
      else this.fail(err);
      throw err;
    } finally {
      // The caller's signal only aborts a start in progress (see Service.start).
      detach();
    }
    if (this.stopRequested) {
      // stop() arrived while starting; it runs the stopping hook once we return.
      this.currentState = 'Running';
      return;
    }
    this.currentState = 'Running';
    if (this.hooks.running !== undefined) {
      this.runPromise = this.hooks.running(this.lifetime.signal).then(
        () => {
          if (!this.stopRequested)
            void this.stoppedOnItsOwn(
              new Error(`service ${this.name} stopped unexpectedly`),
              false,
            );
        },
        (err: unknown) => {
          if (!this.stopRequested) void this.stoppedOnItsOwn(asError(err), true);
        },
      );
    }
  }

  stop(): Promise<void> {
    this.stopPromise ??= this.doStop();
    return this.stopPromise;
  }

  private async doStop(): Promise<void> {
    this.stopRequested = true;
    this.lifetime.abort();
    if (this.currentState === 'New') {
      this.currentState = 'Terminated';
      return;
    }
    if (this.currentState === 'Starting') {
      // A start failure was already reported to whoever called start().
      await this.startPromise?.catch(() => undefined);
    }
    if (this.currentState !== 'Running') return; // Failed or aborted while starting.
    this.currentState = 'Stopping';
    await this.runPromise;
    try {
      await this.hooks.stopping?.();
      this.currentState = 'Terminated';
    } catch (err) {
      this.fail(err);
      throw err;
    }
  }

  /** `running` returned or threw without being asked to stop. */
  private async stoppedOnItsOwn(err: Error, failed: boolean): Promise<void> {
    this.stopRequested = true;
    this.stopPromise ??= (async () => {
      this.currentState = 'Stopping';
      try {
        await this.hooks.stopping?.();
        if (failed) this.fail(err);
        else this.currentState = 'Terminated';
      } catch (stopErr) {
        this.fail(stopErr);
      }
    })();
    await this.stopPromise;
    for (const listener of this.failureListeners) listener(err);
  }

  private fail(err: unknown): void {
    this.currentState = 'Failed';
    this.reason = asError(err).message;
  }
}

function asError(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err));
}

/**
 * A signal that aborts (with the source's reason) when `owned` does, or `transient` does
 * before `detach()` is called. Not `AbortSignal.any`: Node keeps a composite signal that has
 * an abort listener in a process-wide set until it aborts, and a service that is never
 * stopped (a process that crashes or is still up when a simulation ends) never aborts it, so
 * the listener's owner and everything it reaches stayed alive for the life of the process:
 * every finished simulation run leaked its whole cluster. Plain listeners let the signal be
 * collected with the service; detaching from `transient` (shared by every module the
 * module manager starts) keeps its listener count at one per start in progress.
 */
function followSignals(
  owned: AbortSignal,
  transient: AbortSignal,
): { signal: AbortSignal; detach: () => void } {
  const controller = new AbortController();
  const onTransient = (): void => controller.abort(transient.reason);
  if (owned.aborted) controller.abort(owned.reason);
  else owned.addEventListener('abort', () => controller.abort(owned.reason), { once: true });
  if (transient.aborted) controller.abort(transient.reason);
  else transient.addEventListener('abort', onTransient, { once: true });
  return {
    signal: controller.signal,
    detach: () => transient.removeEventListener('abort', onTransient),
  };
}
