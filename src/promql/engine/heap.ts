// Go's container/heap (Push, Fix) over anything with a float value, with Prometheus's
// NaN-first orderings for topk/bottomk/limitk. Ties must resolve exactly as in Go, so the
// sift steps follow container/heap line by line rather than any other heap layout.

/** Go's heap.Interface Less: true when `a` belongs nearer the root than `b`. */
export type HeapLess<T> = (a: T, b: T) => boolean;

interface Valued {
  readonly f: number;
}

/** topk's heap order (vectorByValueHeap): the smallest value, NaN first, at the root. */
export const byValue: HeapLess<Valued> = (a, b) => Number.isNaN(a.f) || a.f < b.f;

/** bottomk's heap order (vectorByReverseValueHeap): the largest value, NaN first, at the root. */
export const byReverseValue: HeapLess<Valued> = (a, b) => Number.isNaN(a.f) || a.f > b.f;

function heapUp<T>(h: T[], j0: number, less: HeapLess<T>): void {
  let j = j0;
  for (;;) {
    const i = Math.floor((j - 1) / 2);
    if (i === j || i < 0 || !less(h[j] as T, h[i] as T)) break;
    const t = h[i] as T;
    h[i] = h[j] as T;
    h[j] = t;
    j = i;
  }
}

function heapDown<T>(h: T[], i0: number, n: number, less: HeapLess<T>): boolean {
  let i = i0;
  for (;;) {
    const j1 = 2 * i + 1;
    if (j1 >= n) break;
    let j = j1;
    const j2 = j1 + 1;
    if (j2 < n && less(h[j2] as T, h[j1] as T)) j = j2;
    if (!less(h[j] as T, h[i] as T)) break;
    const t = h[i] as T;
    h[i] = h[j] as T;
    h[j] = t;
    i = j;
  }
  return i > i0;
}

/** Go's heap.Push. */
export function heapPush<T>(h: T[], s: T, less: HeapLess<T>): void {
  h.push(s);
  heapUp(h, h.length - 1, less);
}

/** Go's heap.Fix: restores the order after the element at `i` changed. */
export function heapFix<T>(h: T[], i: number, less: HeapLess<T>): void {
  if (!heapDown(h, i, h.length, less)) heapUp(h, i, less);
}
