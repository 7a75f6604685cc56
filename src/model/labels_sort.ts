import { Labels } from './labels.js';

/**
 * Where a long computation may pause so other work runs (the runtime's `Slicer` has this
 * shape): `due()` answers whether the current slice has used its time.
 */
export interface Pause {
  due(): boolean;
  yield(): Promise<void>;
}

/** Items per run sorted in one go: a few milliseconds at most. */
const RUN = 2048;

/**
 * `Labels.sortBy` in slices: runs of RUN items are sorted by `Labels.sortBy`, then merged
 * pairwise (stable: on equal label sets the earlier item stays first), pausing whenever
 * `pause` says the slice is used up. Sorting 60k label sets at once holds a thread for
 * ~0.1 s. The merge compares memoised sort keys (`Labels.sortKey`) when every set has one,
 * else `Labels.compare`.
 */
export async function sortByLabelsInSlices<T>(
  items: T[],
  labelsOf: (item: T) => Labels,
  pause: Pause,
): Promise<void> {
  const n = items.length;
  if (n <= RUN) {
    Labels.sortBy(items, labelsOf);
    return;
  }
  let byKey = true;
  for (let i = 0; i < n && byKey; i++) {
    byKey = labelsOf(items[i] as T).sortKey() !== undefined;
    if (pause.due()) await pause.yield();
  }
  const before = byKey
    ? (a: T, b: T): boolean => (labelsOf(a).sortKey() as string) < (labelsOf(b).sortKey() as string)
    : (a: T, b: T): boolean => Labels.compare(labelsOf(a), labelsOf(b)) < 0;
  let src: T[] = [];
  for (let lo = 0; lo < n; lo += RUN) {
    const run = items.slice(lo, Math.min(n, lo + RUN));
    Labels.sortBy(run, labelsOf);
    for (const x of run) src.push(x);
    if (pause.due()) await pause.yield();
  }
  let dst: T[] = new Array<T>(n);
  for (let span = RUN; span < n; span *= 2) {
    for (let lo = 0; lo < n; lo += 2 * span) {
      const mid = Math.min(n, lo + span);
      const hi = Math.min(n, lo + 2 * span);
      let i = lo;
      let j = mid;
      let k = lo;
      while (i < mid && j < hi) {
        // Stable: the right run's item goes first only when strictly smaller.
        if (before(src[j] as T, src[i] as T)) dst[k++] = src[j++] as T;
        else dst[k++] = src[i++] as T;
        if (pause.due()) await pause.yield();
      }
      while (i < mid) dst[k++] = src[i++] as T;
      while (j < hi) dst[k++] = src[j++] as T;
    }
    [src, dst] = [dst, src];
  }
  for (let i = 0; i < n; i++) items[i] = src[i] as T;
}
