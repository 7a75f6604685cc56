// The quantile arithmetic of Prometheus's promql/quantile.go for float data: the φ-quantile
// of a set of values (quantile aggregation, quantile_over_time, mad_over_time) and of
// classic `le` buckets (histogram_quantile, histogram_fraction), including the bucket
// coalescing, the tolerance for floating-point noise and the forced monotonicity.

/** One classic-histogram bucket: cumulative count of observations <= upperBound. */
export interface Bucket {
  upperBound: number;
  count: number;
}

/** Relative bucket differences below this are treated as floating-point noise. */
const SMALL_DELTA_TOLERANCE = 1e-12;
/** The smallest positive normal float64. */
const MIN_NORMAL = 2.2250738585072014e-308;

/** Prometheus util/almost.Equal. */
export function almostEqual(a: number, b: number, epsilon: number): boolean {
  if (Number.isNaN(a) && Number.isNaN(b)) return true;
  if (a === b) return true;
  const absSum = Math.abs(a) + Math.abs(b);
  const diff = Math.abs(a - b);
  if (a === 0 || b === 0 || absSum < MIN_NORMAL) return diff < epsilon * MIN_NORMAL;
  return diff / Math.min(absSum, Number.MAX_VALUE) < epsilon;
}

/**
 * The q-quantile of the values by linear interpolation between closest ranks, over the
 * values in Prometheus's order (ascending, NaN first: vectorByValueHeap). NaN for no values
 * or q NaN, -Inf for q < 0, +Inf for q > 1. `values` is left as it is: a copy is sorted
 * natively (a typed array's sort puts NaN last, so ranks below the NaN count are NaN), far
 * faster than a comparator over a number array, the cost quantile_over_time is made of.
 */
export function quantile(q: number, values: ArrayLike<number>): number {
  const n = values.length;
  if (n === 0 || Number.isNaN(q)) return NaN;
  if (q < 0) return -Infinity;
  if (q > 1) return Infinity;
  const sorted = new Float64Array(n);
  for (let i = 0; i < n; i++) sorted[i] = values[i] as number;
  sorted.sort();
  let nans = 0;
  while (nans < n && Number.isNaN(sorted[n - 1 - nans])) nans++;
  const at = (rank: number): number => (rank < nans ? NaN : (sorted[rank - nans] as number));
  const rank = q * (n - 1);
  const lowerIndex = Math.max(0, Math.floor(rank));
  const upperIndex = Math.min(n - 1, lowerIndex + 1);
  const weight = rank - Math.floor(rank);
  return at(lowerIndex) * (1 - weight) + at(upperIndex) * weight;
}

function sortBuckets(buckets: Bucket[]): void {
  // A stable sort: buckets with equal bounds are summed right after, so their order is moot.
  buckets.sort((a, b) => (a.upperBound < b.upperBound ? -1 : a.upperBound > b.upperBound ? 1 : 0));
}

/** Merges buckets with the same upper bound (e.g. `le="0.2"` and `le="2e-1"`); input sorted. */
function coalesceBuckets(buckets: Bucket[]): Bucket[] {
  const out: Bucket[] = [];
  let last = { ...buckets[0]! };
  for (let i = 1; i < buckets.length; i++) {
    const b = buckets[i]!;
    if (b.upperBound === last.upperBound) last.count += b.count;
    else {
      out.push(last);
      last = { ...b };
    }
  }
  out.push(last);
  return out;
}

/**
 * First silences numerically insignificant differences between neighbours (either
 * direction), then removes every decrease (the "envelope"). Returns whether a decrease had to
 * be removed (forcedMonotonic) and whether noise was silenced (fixedPrecision).
 */
function ensureMonotonicAndIgnoreSmallDeltas(
  buckets: Bucket[],
  tolerance: number,
): { forcedMonotonic: boolean; fixedPrecision: boolean } {
  let forcedMonotonic = false;
  let fixedPrecision = false;
  let prev = buckets[0]!.count;
  for (let i = 1; i < buckets.length; i++) {
    const b = buckets[i]!;
    const curr = b.count;
    if (curr === prev) continue;
    if (almostEqual(prev, curr, tolerance)) {
      b.count = prev;
      fixedPrecision = true;
      continue;
    }
    if (curr < prev) {
      b.count = prev;
      forcedMonotonic = true;
      continue;
    }
    prev = curr;
  }
  return { forcedMonotonic, fixedPrecision };
}

export interface BucketQuantileResult {
  readonly value: number;
  readonly forcedMonotonic: boolean;
  readonly fixedPrecision: boolean;
}

/**
 * Prometheus BucketQuantile: interpolates linearly inside the bucket where the rank falls,
 * assuming a lower bound of 0 for the first bucket when its upper bound is positive; a rank
 * in the +Inf bucket yields the second-highest bound. NaN without a +Inf bucket, with fewer
 * than two buckets or no observations.
 */
export function bucketQuantile(q: number, input: readonly Bucket[]): BucketQuantileResult {
  const none = (value: number): BucketQuantileResult => ({
    value,
    forcedMonotonic: false,
    fixedPrecision: false,
  });
  if (Number.isNaN(q)) return none(NaN);
  if (q < 0) return none(-Infinity);
  if (q > 1) return none(Infinity);
  if (input.length === 0) return none(NaN);
  const sorted = input.map((b) => ({ ...b }));
  sortBuckets(sorted);
  if (sorted[sorted.length - 1]!.upperBound !== Infinity) return none(NaN);
  const buckets = coalesceBuckets(sorted);
  const { forcedMonotonic, fixedPrecision } = ensureMonotonicAndIgnoreSmallDeltas(
    buckets,
    SMALL_DELTA_TOLERANCE,
  );
  if (buckets.length < 2) return none(NaN);
  const observations = buckets[buckets.length - 1]!.count;
  if (observations === 0) return none(NaN);
  let rank = q * observations;
  // sort.Search over all but the +Inf bucket: the first bucket whose count reaches the rank.
  let b = 0;
  while (b < buckets.length - 1 && !(buckets[b]!.count >= rank)) b++;
  const result = (value: number): BucketQuantileResult => ({
    value,
    forcedMonotonic,
    fixedPrecision,
  });
  if (b === buckets.length - 1) return result(buckets[buckets.length - 2]!.upperBound);
  if (b === 0 && buckets[0]!.upperBound <= 0) return result(buckets[0]!.upperBound);
  let bucketStart = 0;
  const bucketEnd = buckets[b]!.upperBound;
  let count = buckets[b]!.count;
  if (b > 0) {
    bucketStart = buckets[b - 1]!.upperBound;
    count -= buckets[b - 1]!.count;
    rank -= buckets[b - 1]!.count;
  }
  return result(bucketStart + (bucketEnd - bucketStart) * (rank / count));
}

/**
 * Prometheus BucketFraction: the share of observations in [lower, upper] by linear
 * interpolation inside buckets. The first bucket starts at 0 when its bound is positive and
 * at -Inf otherwise; the infinitely wide first and last buckets are not interpolated (their
 * observations sit at their finite edge). NaN without a +Inf bucket, without observations or
 * for a NaN bound; 0 when lower >= upper.
 */
export function bucketFraction(lower: number, upper: number, input: readonly Bucket[]): number {
  if (input.length === 0) return NaN;
  const sorted = input.map((b) => ({ ...b }));
  sortBuckets(sorted);
  if (sorted[sorted.length - 1]!.upperBound !== Infinity) return NaN;
  const buckets = coalesceBuckets(sorted);
  ensureMonotonicAndIgnoreSmallDeltas(buckets, SMALL_DELTA_TOLERANCE);
  const total = buckets[buckets.length - 1]!.count;
  if (total === 0 || Number.isNaN(lower) || Number.isNaN(upper)) return NaN;
  if (lower >= upper) return 0;

  let rank = 0;
  let lowerRank = 0;
  let upperRank = 0;
  let lowerSet = false;
  let upperSet = false;
  for (let i = 0; i < buckets.length; i++) {
    const b = buckets[i]!;
    const bucketLower = i > 0 ? buckets[i - 1]!.upperBound : b.upperBound > 0 ? 0 : -Infinity;
    const bucketUpper = b.upperBound;
    const interpolate = (v: number): number => {
      if (bucketLower === -Infinity) return b.count;
      if (bucketUpper === Infinity) return rank;
      return rank + ((b.count - rank) * (v - bucketLower)) / (bucketUpper - bucketLower);
    };
    if (!lowerSet && bucketLower >= lower) {
      lowerRank = rank;
      lowerSet = true;
    }
    if (!upperSet && bucketLower >= upper) {
      upperRank = rank;
      upperSet = true;
    }
    if (lowerSet && upperSet) break;
    if (!lowerSet && bucketLower < lower && bucketUpper > lower) {
      lowerRank = interpolate(lower);
      lowerSet = true;
    }
    if (!upperSet && bucketLower < upper && bucketUpper > upper) {
      upperRank = interpolate(upper);
      upperSet = true;
    }
    if (lowerSet && upperSet) break;
    rank = b.count;
  }
  if (!lowerSet || lowerRank > total) lowerRank = total;
  if (!upperSet || upperRank > total) upperRank = total;
  return (upperRank - lowerRank) / total;
}
