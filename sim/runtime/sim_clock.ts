import { AbortError, type Clock, type Timer } from '../../src/runtime/index.js';
import type { Incarnation, SimKernel } from '../kernel/index.js';

export interface SimClockConfig {
  /** Clock skew of this node: added to the kernel's virtual time by `now()`. */
  skewMs: () => number;
}

export interface SimClockDeps {
  kernel: SimKernel;
  /** Every timer belongs to this process incarnation and dies with it. */
  owner: Incarnation;
}

/**
 * A node's clock in the simulator: virtual time, timers as kernel events owned by the node's
 * incarnation (a crash drops them all). Errors escaping timer callbacks are reported to the
 * kernel like an uncaught exception would crash a real process, and fail the run.
 */
export class SimClock implements Clock {
  constructor(
    private readonly config: SimClockConfig,
    private readonly deps: SimClockDeps,
  ) {}

  now(): number {
    return this.deps.kernel.now() + this.config.skewMs();
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    checkDelay('sleep', ms);
    if (signal?.aborted === true) return Promise.reject(new AbortError());
    return new Promise<void>((resolve, reject) => {
      const onAbort = (): void => {
        event.cancel();
        reject(new AbortError());
      };
      const event = this.deps.kernel.after(
        ms,
        { owner: this.deps.owner, kind: 'clock.sleep', detail: `${ms}ms` },
        () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
      );
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** Virtual time does not pass during work, so no slice ever runs out: resolves at once. */
  yieldTurn(): Promise<void> {
    return Promise.resolve();
  }

  setTimer(ms: number, fn: () => void): Timer {
    checkDelay('setTimer', ms);
    const event = this.deps.kernel.after(
      ms,
      { owner: this.deps.owner, kind: 'clock.timer', detail: `${ms}ms` },
      () => this.guarded('timer callback', fn),
    );
    return { cancel: () => event.cancel() };
  }

  every(ms: number, fn: () => void | Promise<void>): Timer {
    checkDelay('every', ms);
    if (ms <= 0) throw new RangeError(`every(ms): period must be positive, got ${ms}`);
    const { kernel, owner } = this.deps;
    const context = `periodic job on ${owner.toString()}`;
    let cancelled = false;
    let pending: { cancel(): void };
    // The next period starts only after the previous run settled, so runs never overlap.
    const scheduleNext = (): void => {
      if (cancelled) return;
      pending = kernel.after(ms, { owner, kind: 'clock.every', detail: `${ms}ms` }, tick);
    };
    const tick = (): void => {
      if (cancelled) return;
      let result: void | Promise<void>;
      try {
        result = fn();
      } catch (err) {
        kernel.reportError(context, err);
        scheduleNext();
        return;
      }
      if (result instanceof Promise) {
        result.then(scheduleNext, (err: unknown) => {
          kernel.reportError(context, err);
          scheduleNext();
        });
      } else scheduleNext();
    };
    pending = kernel.after(ms, { owner, kind: 'clock.every', detail: `${ms}ms` }, tick);
    return {
      cancel: () => {
        cancelled = true;
        pending.cancel();
      },
    };
  }

  private guarded(what: string, fn: () => void): void {
    try {
      fn();
    } catch (err) {
      this.deps.kernel.reportError(`${what} on ${this.deps.owner.toString()}`, err);
    }
  }
}

function checkDelay(op: string, ms: number): void {
  if (!Number.isFinite(ms) || ms < 0)
    throw new RangeError(`${op}(ms): need a non-negative finite delay, got ${ms}`);
}
