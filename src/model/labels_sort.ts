import { Labels } from './labels.js';

/**
 * Where a long computation may pause so other work runs (the runtime's `Slicer` has this
 * shape): `due()` answers whether the current slice has used its time.
 */
export interface Pause {
  due(): boolean;
  yield(): Promise<void>;
}

/** Items per run sorted in one go: a few milliseconds of `Labels.sortBy`. */
const RUN = 1024;

/**
 * `Labels.sortBy` in slices: runs of RUN items are sorted natively, then merged pairwise
 * (stable: on equal label sets the earlier item stays first), pausing whenever `pause` says
 * the slice is used up. Sorting 60k label sets at once holds a thread for ~0.2 s.
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
  let src: T[] = [];
  for (let lo = 0; lo < n; lo += RUN) {
    const run = items.slice(lo, Math.min(n, lo + RUN));
    Labels.sortBy(run, labelsOf);
    for (const x of run) src.push(x);
    if (pause.due()) await pause.yield();
  }
  let dst: T[] = new Array<T>(n);
  for (let width = RUN; width < n; width *= 2) {
    for (let lo = 0; lo < n; lo += 2 * width) {
      const mid = Math.min(n, lo + width);
      const hi = Math.min(n, lo + 2 * width);
      let i = lo;
      let j = mid;
      let k = lo;
      while (i < mid && j < hi) {
        const a = src[i] as T;
        const b = src[j] as T;
        if (Labels.compare(labelsOf(b), labelsOf(a)) < 0) {
          dst[k++] = b;
          j++;
        } else {
          dst[k++] = a;
          i++;
        }
        if (pause.due()) await pause.yield();
      }
      while (i < mid) dst[k++] = src[i++] as T;
      while (j < hi) dst[k++] = src[j++] as T;
    }
    [src, dst] = [dst, src];
  }
  for (let i = 0; i < n; i++) items[i] = src[i] as T;
}
