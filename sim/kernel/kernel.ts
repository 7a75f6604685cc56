import { AsyncLocalStorage } from 'node:async_hooks';
import type { RandomStream } from '../../src/runtime/index.js';
import { EventQueue, type QueuedEvent } from './event_queue.js';
import type { Incarnation } from './incarnation.js';
import { installGlobalsGuard } from './nondeterminism_guard.js';
import { TraceRecorder, type TraceEventSink } from './trace.js';

// Captured when the module loads, before any guard can replace them: the kernel alone may
// pause on the real event loop (to let promise continuations run) and read the wall clock
// (to report the virtual/wall time ratio).
const realSetImmediate = globalThis.setImmediate;
const wallClock = globalThis.performance;

/**
 * Events run per turn of the real event loop (see `runTurn`). Larger turns save little more;
 * the bound keeps the loop responsive to outside work (IPC, test runners) between turns.
 */
const EVENTS_PER_TURN = 64;

export interface SimKernelConfig {
  /** Virtual time at the start of the run, in milliseconds since the Unix epoch. */
  epochMs: number;
  /** The `scheduling` stream: tie-breaks between events due at the same virtual time. */
  scheduling: RandomStream;
  /** How many trace lines to keep for failure reports (default 200). */
  traceTail?: number;
  /** Receives every executed event as it runs (the full event log); omitted, nothing is collected. */
  onTraceEvent?: TraceEventSink;
}

export interface ScheduleOptions {
  /** The process incarnation the event belongs to; dropped if it has died by then. */
  owner?: Incarnation | undefined;
  /** Short event kind for the trace, e.g. `timer`, `rpc.deliver`, `fault.partition`. */
  kind: string;
  /** Deterministic detail for the trace (ids, method names, addresses). */
  detail?: string;
}

export interface ScheduledEvent {
  readonly time: number;
  /** Prevents the event from running; cancelling twice or after it ran is harmless. */
  cancel(): void;
}

export interface RunOptions {
  /** Stop before the first event later than this virtual time, then set the clock to it. */
  until?: number;
  /** Checked before every event; the run stops as soon as it returns true. */
  stopWhen?: () => boolean;
  /** Safety net against runaway loops (default: unlimited). */
  maxEvents?: number;
  /**
   * Instead of stopping when the queue is empty, wait for events scheduled from outside the
   * simulation until this signal aborts. Lets ordinary test code (contract suites) drive
   * simulated services: each call schedules events and the running kernel executes them.
   */
  idleUntil?: AbortSignal;
}

export type StopReason = 'until' | 'idle' | 'predicate' | 'max_events' | 'stopped';

export interface RunResult {
  reason: StopReason;
  /** Virtual time when the run stopped. */
  time: number;
  /** Events executed during this call. */
  eventsExecuted: number;
  /** Wall-clock milliseconds spent in this call. */
  wallMs: number;
}

/** An error raised by simulated code outside any caller's reach (a rejected floating promise, a failing periodic job). */
export interface SimulationErrorRecord {
  time: number;
  context: string;
  message: string;
}

interface KernelEvent extends QueuedEvent {
  readonly owner: Incarnation | undefined;
  readonly kind: string;
  readonly detail: string;
  readonly fn: () => void;
  cancelled: boolean;
}

/**
 * The discrete-event kernel: one event queue, virtual time, and the loop that runs it. Time
 * never waits on the wall clock; it jumps to the next event. Each event runs in its own
 * macrotask, and Node drains the whole microtask queue after every macrotask, so every promise
 * continuation an event caused (an `await` chain) finishes at the virtual instant it was
 * triggered, before the next event starts. While `run()` executes, the
 * nondeterministic globals throw.
 */
export class SimKernel {
  private readonly queue = new EventQueue<KernelEvent>();
  private readonly scheduling: RandomStream;
  private readonly trace: TraceRecorder;
  private readonly uncaught: SimulationErrorRecord[] = [];
  private time: number;
  private seq = 0;
  private executed = 0;
  private dropped = 0;
  private wallTotal = 0;
  private running = false;
  /** Set while an idle `run({ idleUntil })` waits; scheduling anything wakes it. */
  private wakeIdle: (() => void) | undefined;
  /** Marks simulated code: every event callback and the promise continuations it causes. */
  private readonly simulatedContext = new AsyncLocalStorage<SimKernel>();

  constructor(config: SimKernelConfig) {
    if (!Number.isSafeInteger(config.epochMs)) {
      throw new RangeError(
        `kernel epoch must be an integer number of milliseconds, got ${config.epochMs}`,
      );
    }
    this.time = config.epochMs;
    this.scheduling = config.scheduling;
    this.trace = new TraceRecorder(config.traceTail ?? 200, config.onTraceEvent);
  }

  /** Current virtual time (ms since the Unix epoch, always an integer). */
  now(): number {
    return this.time;
  }

  /** Schedules `fn` at absolute virtual time `time` (clamped to now: the past is not reachable). */
  at(time: number, opts: ScheduleOptions, fn: () => void): ScheduledEvent {
    if (!Number.isFinite(time))
      throw new RangeError(`cannot schedule ${opts.kind} at non-finite time ${time}`);
    const event: KernelEvent = {
      time: Math.max(this.time, Math.ceil(time)),
      tieBreak: this.scheduling.uint32(),
      seq: this.seq++,
      owner: opts.owner,
      kind: opts.kind,
      detail: opts.detail ?? '',
      fn,
      cancelled: false,
    };
    this.queue.push(event);
    if (this.wakeIdle !== undefined) {
      const wake = this.wakeIdle;
      this.wakeIdle = undefined;
      wake();
    }
    return {
      time: event.time,
      cancel: () => {
        event.cancelled = true;
      },
    };
  }

  /** Schedules `fn` after `delayMs` virtual milliseconds (negative delays count as 0). */
  after(delayMs: number, opts: ScheduleOptions, fn: () => void): ScheduledEvent {
    if (!Number.isFinite(delayMs))
      throw new RangeError(`cannot schedule ${opts.kind} after non-finite delay ${delayMs}`);
    return this.at(this.time + Math.max(0, delayMs), opts, fn);
  }

  /** Records an error that escaped simulated code; runs keep going, reports show it. */
  reportError(context: string, err: unknown): void {
    const message = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
    this.uncaught.push({ time: this.time, context, message });
  }

  get errors(): readonly SimulationErrorRecord[] {
    return this.uncaught;
  }

  get eventsExecuted(): number {
    return this.executed;
  }

  /** Events skipped because their owning incarnation had died. */
  get eventsDropped(): number {
    return this.dropped;
  }

  get pendingEvents(): number {
    return this.queue.size;
  }

  /** Wall-clock milliseconds spent inside `run()` so far, over all calls. */
  get wallMs(): number {
    return this.wallTotal;
  }

  traceHash(): string {
    return this.trace.currentHash();
  }

  traceTail(): string[] {
    return this.trace.lastLines();
  }

  /**
   * Runs events in order until `until`, the queue is empty, `stopWhen` holds or `maxEvents`
   * ran. Rejects if an event callback throws synchronously (a simulator or component bug),
   * naming the event. Nondeterministic globals throw for the whole call.
   */
  async run(opts: RunOptions = {}): Promise<RunResult> {
    if (this.running) throw new Error('SimKernel.run() is already running; await the first call');
    this.running = true;
    const guard = installGlobalsGuard(() => this.simulatedContext.getStore() === this);
    const onUnhandled = (reason: unknown): void =>
      this.reportError('unhandled promise rejection', reason);
    process.on('unhandledRejection', onUnhandled);
    const wallStart = wallClock.now();
    const executedBefore = this.executed;
    let reason: StopReason;
    try {
      for (;;) {
        const outcome = await this.runTurn(opts, executedBefore);
        if (outcome === 'turn_over') continue;
        if (outcome === 'wait') {
          // Outside code may have scheduled work since the turn found the queue empty.
          if (this.queue.size === 0) await this.waitForWork(opts.idleUntil as AbortSignal);
          continue;
        }
        reason = outcome;
        break;
      }
      if (
        opts.until !== undefined &&
        (reason === 'until' || reason === 'idle') &&
        this.time < opts.until
      ) {
        this.time = opts.until;
      }
      return {
        reason,
        time: this.time,
        eventsExecuted: this.executed - executedBefore,
        wallMs: wallClock.now() - wallStart,
      };
    } finally {
      this.wallTotal += wallClock.now() - wallStart;
      process.off('unhandledRejection', onUnhandled);
      guard.restore();
      this.wakeIdle = undefined;
      this.running = false;
    }
  }

  /**
   * One turn of the real event loop: up to EVENTS_PER_TURN events, each in its own
   * `setImmediate` callback, all queued at once. Node runs the immediates of one loop turn
   * back to back and drains the whole microtask queue between two of them (and after the
   * last), so every promise continuation an event causes still finishes before the next
   * event starts, exactly as with one loop turn per event; what is saved is the poll phase
   * (an `epoll_wait`) and the async-function resumption per event. The stop conditions are
   * checked inside the callbacks, at those same quiet points. Resolves with the reason to
   * stop, `wait` (idle, waiting for outside work) or `turn_over` (budget used, go on).
   */
  private runTurn(
    opts: RunOptions,
    executedBefore: number,
  ): Promise<StopReason | 'wait' | 'turn_over'> {
    return new Promise((resolve, reject) => {
      let left = EVENTS_PER_TURN;
      let settled = false;
      const tick = (): void => {
        if (settled) return;
        let outcome: StopReason | 'wait' | 'ran';
        try {
          outcome = this.step(opts, executedBefore);
        } catch (err) {
          settled = true;
          reject(err instanceof Error ? err : new Error(String(err)));
          return;
        }
        if (outcome !== 'ran') {
          settled = true;
          resolve(outcome);
        } else if (--left === 0) {
          // The continuation only queues the next turn's immediates, so it may run among
          // this event's continuations without running anything simulated itself.
          settled = true;
          resolve('turn_over');
        }
      };
      for (let i = 0; i < EVENTS_PER_TURN; i++) realSetImmediate(tick);
    });
  }

  /**
   * Checks the stop conditions and runs the next due event, if any. Called only at quiet
   * points, when no continuation of an earlier event is pending. Rethrows an event's
   * synchronous failure naming the event.
   */
  private step(opts: RunOptions, executedBefore: number): StopReason | 'wait' | 'ran' {
    for (;;) {
      if (opts.stopWhen?.() === true) return 'predicate';
      if (opts.maxEvents !== undefined && this.executed - executedBefore >= opts.maxEvents)
        return 'max_events';
      if (opts.idleUntil?.aborted === true) return 'stopped';
      const next = this.queue.peek();
      if (next === undefined) return opts.idleUntil !== undefined ? 'wait' : 'idle';
      if (opts.until !== undefined && next.time > opts.until) return 'until';
      this.queue.pop();
      if (next.cancelled) continue;
      if (next.owner !== undefined && !next.owner.alive) {
        this.dropped++;
        continue;
      }
      this.time = next.time;
      this.executed++;
      this.trace.record(
        next.time,
        next.owner?.node ?? '-',
        next.owner?.number ?? 0,
        next.kind,
        next.detail,
      );
      try {
        this.simulatedContext.run(this, next.fn);
      } catch (err) {
        const where = next.owner === undefined ? '' : ` on ${next.owner.toString()}`;
        const message = err instanceof Error ? err.message : String(err);
        throw new Error(
          `simulation event ${next.kind}${where} at t=${next.time} threw: ${message}`,
          { cause: err },
        );
      }
      return 'ran';
    }
  }

  /**
   * Runs the kernel in the background, waiting for work when idle, until `stop()` is called
   * (for test code outside the simulation that calls simulated services directly).
   */
  runInBackground(): { stop(): Promise<RunResult> } {
    const controller = new AbortController();
    const done = this.run({ idleUntil: controller.signal });
    return {
      stop: async () => {
        controller.abort();
        return done;
      },
    };
  }

  private waitForWork(stop: AbortSignal): Promise<void> {
    return new Promise<void>((resolve) => {
      const done = (): void => {
        stop.removeEventListener('abort', done);
        this.wakeIdle = undefined;
        resolve();
      };
      this.wakeIdle = done;
      stop.addEventListener('abort', done, { once: true });
    });
  }
}
