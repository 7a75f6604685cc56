import type { Clock } from './clock.js';

/**
 * How long one slice of a long loop may hold the event loop (ms). A push waits about this
 * long behind a query's selection per event-loop turn it needs (several: body, decoding,
 * WAL write, answer), so slices are short; the yields cost about 10 µs each.
 */
export const DEFAULT_SLICE_MS = 1;

/** Items between clock reads: reading the clock per item would cost more than the items. */
const CHECK_EVERY = 32;

/**
 * Cuts a long synchronous loop on the event loop (a query's selection over thousands of
 * series) into slices of about `sliceMs`, yielding between them so pushes and ring
 * heartbeats are served while the loop runs:
 *
 *     for (const x of items) { work(x); if (slicer.due()) await slicer.yield(); }
 *
 * With a virtual clock no time passes during work, so `due()` never answers true and a
 * simulation runs the loop in one turn, as before.
 */
export class Slicer {
  private sliceStart: number;
  private calls = 0;

  constructor(
    private readonly clock: Clock,
    private readonly sliceMs = DEFAULT_SLICE_MS,
  ) {
    this.sliceStart = clock.now();
  }

  /** Whether this slice has used its time (the clock is read every few calls). */
  due(): boolean {
    if (++this.calls < CHECK_EVERY) return false;
    this.calls = 0;
    return this.clock.now() - this.sliceStart >= this.sliceMs;
  }

  /** Lets other work run, then starts a new slice. */
  async yield(): Promise<void> {
    await this.clock.yieldTurn();
    this.sliceStart = this.clock.now();
    this.calls = 0;
  }
}
