// Deleted time ranges of a series (Prometheus tombstones.Interval/Intervals): closed intervals
// [mint, maxt] of millisecond timestamps, kept sorted, non-overlapping and non-adjacent, so a
// sample is deleted exactly when one interval contains it.
//
// Bounds are JavaScript safe integers. Prometheus uses math.MinInt64/MaxInt64 for "unbounded";
// here Number.MIN_SAFE_INTEGER/MAX_SAFE_INTEGER play that role (both lie ~285,000 years from
// the epoch, beyond any sample), and a tombstones file holding a bound outside the safe range
// is read with the bound clamped to it, which deletes exactly the same samples.

export const INTERVAL_MIN = Number.MIN_SAFE_INTEGER;
export const INTERVAL_MAX = Number.MAX_SAFE_INTEGER;

export interface Interval {
  readonly mint: number;
  readonly maxt: number;
}

/** True if `t` lies in the closed interval. */
export function inInterval(iv: Interval, t: number): boolean {
  return t >= iv.mint && t <= iv.maxt;
}

/** True if `iv` lies wholly inside one of `ivs` (Prometheus Interval.IsSubrange). */
export function isSubrange(iv: Interval, ivs: readonly Interval[]): boolean {
  for (const r of ivs) if (inInterval(r, iv.mint) && inInterval(r, iv.maxt)) return true;
  return false;
}

/** True if any interval contains `t` (intervals sorted as addInterval keeps them). */
export function isDeleted(ivs: readonly Interval[], t: number): boolean {
  let lo = 0;
  let hi = ivs.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((ivs[mid] as Interval).maxt < t) lo = mid + 1;
    else hi = mid;
  }
  const iv = ivs[lo];
  return iv !== undefined && iv.mint <= t;
}

/** First index in [from, to) where `pred` holds, or `to` (sort.Search). */
function search(from: number, to: number, pred: (i: number) => boolean): number {
  let lo = from;
  let hi = to;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (pred(mid)) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/**
 * Adds `n` to sorted intervals `ivs`, merging it with every interval it overlaps or touches
 * (closed integer intervals one apart, like [1,2] and [3,4], merge), as Prometheus's
 * Intervals.Add does. Returns a new array; `ivs` is not changed.
 */
export function addInterval(ivs: readonly Interval[], n: Interval): Interval[] {
  if (n.mint > n.maxt) {
    throw new RangeError(`interval mint ${n.mint} is after maxt ${n.maxt}`);
  }
  // First interval that ends at or after n.mint - 1 (may merge with n).
  const mini =
    n.mint === INTERVAL_MIN
      ? 0
      : search(0, ivs.length, (i) => (ivs[i] as Interval).maxt >= n.mint - 1);
  // First interval that starts after n.maxt + 1 (cannot merge with n).
  const maxi =
    n.maxt === INTERVAL_MAX
      ? ivs.length
      : search(mini, ivs.length, (i) => (ivs[i] as Interval).mint > n.maxt + 1);
  if (mini === maxi) {
    return [...ivs.slice(0, mini), { mint: n.mint, maxt: n.maxt }, ...ivs.slice(mini)];
  }
  const first = ivs[mini] as Interval;
  const last = ivs[maxi - 1] as Interval;
  const merged = { mint: Math.min(n.mint, first.mint), maxt: Math.max(n.maxt, last.maxt) };
  return [...ivs.slice(0, mini), merged, ...ivs.slice(maxi)];
}

/** Clamps a decoded int64 bound into the safe range (see the module comment). */
export function clampBound(t: bigint): number {
  if (t < BigInt(INTERVAL_MIN)) return INTERVAL_MIN;
  if (t > BigInt(INTERVAL_MAX)) return INTERVAL_MAX;
  return Number(t);
}
