import { AbortError, type Clock, type Timer } from '../clock.js';

interface PendingTimer {
  readonly due: number;
  /** Breaks ties between timers due at the same instant: first scheduled runs first. */
  readonly seq: number;
  readonly fn: () => void;
  cancelled: boolean;
}

/**
 * A Clock for unit tests: time stands still until the test calls `advance`. Timers due within
 * the advanced span fire in (due time, scheduling order), with `now()` set to each timer's due
 * time while it runs. Between timers, `advance` yields to pending promise continuations a
 * bounded number of times, enough for the short async chains unit tests create (the simulator
 * kernel, not this class, is the tool for whole-system virtual time).
 */
export class ManualClock implements Clock {
  private nowMs: number;
  private seq = 0;
  private readonly timers: PendingTimer[] = [];
  /** Errors thrown or rejected by `every` ticks (the schedule goes on; tests can assert on these). */
  readonly tickErrors: unknown[] = [];

  constructor(startMs = 0) {
    this.nowMs = startMs;
  }

  now(): number {
    return this.nowMs;
  }

  /** Number of timers scheduled and not yet fired or cancelled. */
  get pendingTimers(): number {
    return this.timers.filter((t) => !t.cancelled).length;
  }

  /** Moves time forward by `ms`, firing every timer that comes due on the way. */
  async advance(ms: number): Promise<void> {
    if (!(ms >= 0)) throw new RangeError(`advance(ms): ms must be >= 0, got ${ms}`);
    const target = this.nowMs + ms;
    await drainMicrotasks();
    for (;;) {
      const next = this.nextDue(target);
      if (next === undefined) break;
      this.timers.splice(this.timers.indexOf(next), 1);
      this.nowMs = next.due;
      next.fn();
      await drainMicrotasks();
    }
    this.nowMs = target;
    await drainMicrotasks();
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) {
        reject(new AbortError());
        return;
      }
      const onAbort = (): void => {
        timer.cancel();
        reject(new AbortError());
      };
      const timer = this.setTimer(ms, () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      });
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** Time stands still, so no slice ever runs out: resolves at once. */
  yieldTurn(): Promise<void> {
    return Promise.resolve();
  }

  setTimer(ms: number, fn: () => void): Timer {
    const timer: PendingTimer = {
      due: this.nowMs + Math.max(0, ms),
      seq: this.seq++,
      fn,
      cancelled: false,
    };
    this.timers.push(timer);
    return {
      cancel: () => {
        timer.cancelled = true;
        const i = this.timers.indexOf(timer);
        if (i !== -1) this.timers.splice(i, 1);
      },
    };
  }

  every(ms: number, fn: () => void | Promise<void>): Timer {
    let cancelled = false;
    let current: Timer | undefined;
    const schedule = (): void => {
      current = this.setTimer(ms, () => {
        let result: void | Promise<void>;
        try {
          result = fn();
        } catch (err) {
          this.tickErrors.push(err);
          result = undefined;
        }
        if (result instanceof Promise) {
          result.then(
            () => !cancelled && schedule(),
            (err: unknown) => {
              this.tickErrors.push(err);
              if (!cancelled) schedule();
            },
          );
        } else if (!cancelled) {
          schedule();
        }
      });
    };
    schedule();
    return {
      cancel: () => {
        cancelled = true;
        current?.cancel();
      },
    };
  }

  private nextDue(limit: number): PendingTimer | undefined {
    let best: PendingTimer | undefined;
    for (const t of this.timers) {
      if (t.cancelled || t.due > limit) continue;
      if (best === undefined || t.due < best.due || (t.due === best.due && t.seq < best.seq))
        best = t;
    }
    return best;
  }
}

/** Enough turns for a handful of chained awaits; deliberately bounded so it cannot spin. */
async function drainMicrotasks(): Promise<void> {
  for (let i = 0; i < 64; i++) await Promise.resolve();
}
