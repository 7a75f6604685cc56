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
 * `Labels.sortBy` in slices: runs of RUN items are sorted natively, then merged pairwise
 * (stable: on equal label sets the earlier item stays first), pausing whenever `pause` says
 * the slice is used up. Sorting 60k label sets at once holds a thread for ~0.1 s. Items are
 * compared by their sort keys (`Labels.sortKey`) when every set has one, else by
 * `Labels.compare`.
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
  const keys: string[] = new Array<string>(n);
  let byKey = true;
  for (let i = 0; i < n && byKey; i++) {
    const key = labelsOf(items[i] as T).sortKey();
    if (key === undefined) byKey = false;
    else keys[i] = key;
    if (pause.due()) await pause.yield();
  }
  const before = byKey
    ? (a: number, b: number): boolean => (keys[a] as string) < (keys[b] as string)
    : (a: number, b: number): boolean =>
        Labels.compare(labelsOf(items[a] as T), labelsOf(items[b] as T)) < 0;
  // Indexes are sorted, so an item's key is found by its index throughout.
  const digits = String(n).length;
  let src: number[] = [];
  for (let lo = 0; lo < n; lo += RUN) {
    const hi = Math.min(n, lo + RUN);
    if (byKey) {
      // The index after the key (and NUL NUL, below any label) keeps equal sets in order,
      // so the default sort compares whole strings natively.
      const run: string[] = [];
      for (let i = lo; i < hi; i++) run.push(keys[i] + '\0\0' + String(i).padStart(digits, '0'));
      run.sort();
      for (const k of run) src.push(Number(k.slice(k.length - digits)));
    } else {
      const run: number[] = [];
      for (let i = lo; i < hi; i++) run.push(i);
      run.sort((a, b) => Labels.compare(labelsOf(items[a] as T), labelsOf(items[b] as T)) || a - b);
      for (const i of run) src.push(i);
    }
    if (pause.due()) await pause.yield();
  }
  let dst: number[] = new Array<number>(n);
  for (let span = RUN; span < n; span *= 2) {
    for (let lo = 0; lo < n; lo += 2 * span) {
      const mid = Math.min(n, lo + span);
      const hi = Math.min(n, lo + 2 * span);
      let i = lo;
      let j = mid;
      let k = lo;
      while (i < mid && j < hi) {
        // Stable: the right run's item goes first only when strictly smaller.
        if (before(src[j] as number, src[i] as number)) dst[k++] = src[j++] as number;
        else dst[k++] = src[i++] as number;
        if (pause.due()) await pause.yield();
      }
      while (i < mid) dst[k++] = src[i++] as number;
      while (j < hi) dst[k++] = src[j++] as number;
    }
    [src, dst] = [dst, src];
  }
  const sorted = src.map((i) => items[i] as T);
  for (let i = 0; i < n; i++) items[i] = sorted[i] as T;
}
