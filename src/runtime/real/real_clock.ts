import { AbortError, type Clock, type Timer } from '../clock.js';
import type { Logger } from '../logger.js';

export interface RealClockConfig {
  /**
   * Unref every timer so pending timers alone do not keep the process alive. Off by default:
   * a server's periodic loops are exactly what should keep it running.
   */
  unrefTimers?: boolean;
}

/** Wall-clock time and Node timers behind the Clock interface. */
export class RealClock implements Clock {
  private readonly unrefTimers: boolean;

  constructor(
    config: RealClockConfig = {},
    private readonly deps: { logger?: Logger } = {},
  ) {
    this.unrefTimers = config.unrefTimers ?? false;
  }

  now(): number {
    return Date.now();
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) {
        reject(new AbortError());
        return;
      }
      const onAbort = (): void => {
        clearTimeout(handle);
        reject(new AbortError());
      };
      const handle = this.schedule(ms, () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      });
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  yieldTurn(): Promise<void> {
    // setImmediate runs after the poll phase: I/O that arrived meanwhile is served first,
    // without the millisecond floor of a zero-delay timer.
    return new Promise((resolve) => setImmediate(resolve));
  }

  setTimer(ms: number, fn: () => void): Timer {
    const handle = this.schedule(ms, () => void this.runGuarded('timer', fn));
    return { cancel: () => clearTimeout(handle) };
  }

  every(ms: number, fn: () => void | Promise<void>): Timer {
    let cancelled = false;
    let handle: NodeJS.Timeout | undefined;
    const tick = (): void => {
      handle = undefined;
      // The next period starts only once this run settles, so runs never overlap.
      void this.runGuarded('periodic task', fn).then(() => {
        if (!cancelled) handle = this.schedule(ms, tick);
      });
    };
    handle = this.schedule(ms, tick);
    return {
      cancel: () => {
        cancelled = true;
        if (handle !== undefined) clearTimeout(handle);
      },
    };
  }

  private schedule(ms: number, fn: () => void): NodeJS.Timeout {
    const handle = setTimeout(fn, Math.max(0, ms));
    if (this.unrefTimers) handle.unref();
    return handle;
  }

  /**
   * A throwing timer callback would otherwise crash the process (or, for `every`, silently end
   * the loop); log it instead and keep the schedule going.
   */
  private async runGuarded(what: string, fn: () => void | Promise<void>): Promise<void> {
    try {
      await fn();
    } catch (err) {
      const fields = { err: err instanceof Error ? (err.stack ?? err.message) : String(err) };
      if (this.deps.logger !== undefined) this.deps.logger.error(`${what} failed`, fields);
      else console.error(`${what} failed`, fields.err);
    }
  }
}
