// A tenant's realtime ingestion rate for the user-stats pages: samples counted in one-second
// buckets over a sliding window, read from the injected Clock (never the wall clock).

export const DEFAULT_RATE_WINDOW_MS = 60_000;
const BUCKET_MS = 1_000;

export class IngestionRate {
  private readonly counts: Float64Array;
  /** The bucket index (time / BUCKET_MS) each slot currently holds. */
  private readonly slots: Float64Array;

  constructor(private readonly windowMs: number = DEFAULT_RATE_WINDOW_MS) {
    if (!Number.isSafeInteger(windowMs) || windowMs < BUCKET_MS)
      throw new RangeError(
        `rate window must be an integer of at least ${BUCKET_MS} ms, got ${windowMs}`,
      );
    const n = Math.ceil(windowMs / BUCKET_MS);
    this.counts = new Float64Array(n);
    this.slots = new Float64Array(n).fill(-1);
  }

  /** Counts `samples` ingested at time `now` (ms). */
  add(now: number, samples: number): void {
    const bucket = Math.floor(now / BUCKET_MS);
    const i = bucket % this.counts.length;
    if (this.slots[i] !== bucket) {
      this.slots[i] = bucket;
      this.counts[i] = 0;
    }
    this.counts[i] = (this.counts[i] as number) + samples;
  }

  /** Samples per second over the window ending at `now`. */
  perSecond(now: number): number {
    const newest = Math.floor(now / BUCKET_MS);
    const oldest = newest - this.counts.length + 1;
    let sum = 0;
    for (let i = 0; i < this.counts.length; i++) {
      const b = this.slots[i] as number;
      if (b >= oldest && b <= newest) sum += this.counts[i] as number;
    }
    return sum / (this.windowMs / 1000);
  }
}
