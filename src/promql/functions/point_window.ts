// The points of one series inside a range window: a slice [lo, lo + length) of the series'
// time-sorted arrays (read in bulk, stale markers already left out), so sliding the window
// forward moves two indices and never copies a point.

/** A window over sorted sample arrays; the column kernels read it. */
export class PointWindow {
  private ts: ArrayLike<number> = NO_POINTS;
  private fs: ArrayLike<number> = NO_POINTS;
  private lo = 0;
  length = 0;

  /** Points [lo, hi) of `ts`/`fs`. */
  set(ts: ArrayLike<number>, fs: ArrayLike<number>, lo: number, hi: number): void {
    this.ts = ts;
    this.fs = fs;
    this.lo = lo;
    this.length = hi - lo;
  }

  t(i: number): number {
    return this.ts[this.lo + i] as number;
  }

  f(i: number): number {
    return this.fs[this.lo + i] as number;
  }
}

const NO_POINTS: ArrayLike<number> = new Float64Array(0);
