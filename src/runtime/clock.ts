/**
 * Time as components see it. Real time in production, virtual time in the simulator.
 * Components never read the wall clock or start timers any other way.
 */
export interface Clock {
  /** Milliseconds since the Unix epoch (integer in simulation, may be fractional for real). */
  now(): number;
  /**
   * Resolves after `ms` milliseconds. Rejects with an `AbortError` (see `abortError`) as soon
   * as `signal` aborts, and cancels the underlying timer so nothing leaks.
   */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /** Runs `fn` once after `ms` milliseconds unless cancelled first. */
  setTimer(ms: number, fn: () => void): Timer;
  /**
   * Runs `fn` every `ms` milliseconds (first run after `ms`) until cancelled. Calls never
   * overlap: if `fn` returns a promise, the next period starts after it settles.
   */
  every(ms: number, fn: () => void | Promise<void>): Timer;
  /**
   * Resolves once other ready work has had its turn: a real clock lets pending I/O
   * callbacks (pushes, heartbeats) run first. Long loops on the event loop await it between
   * slices (see `Slicer`). A virtual clock resolves it at once: simulated work takes no time.
   */
  yieldTurn(): Promise<void>;
}

export interface Timer {
  cancel(): void;
}

/** The error every abortable runtime call rejects with when its signal aborts. */
export class AbortError extends Error {
  override readonly name = 'AbortError';
  constructor(message = 'operation aborted') {
    super(message);
  }
}

export function isAbortError(err: unknown): boolean {
  return err instanceof Error && err.name === 'AbortError';
}

/** Throws an AbortError if the signal has already aborted. */
export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new AbortError();
}
