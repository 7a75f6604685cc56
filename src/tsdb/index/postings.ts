/**
 * Set operations over postings lists: ascending, duplicate-free series references. They work on
 * typed arrays with plain index loops (no iterators, no per-element allocation) because query
 * planning runs them over lists of millions of references.
 */

/** A sorted, duplicate-free list of series references. */
export type PostingsList = Uint32Array | readonly number[];

const EMPTY = new Uint32Array(0);

/** An empty postings list (a fresh array, so callers may keep it). */
export function emptyPostings(): Uint32Array {
  return new Uint32Array(0);
}

/** Copies a list into a Uint32Array, checking that it is ascending and duplicate-free. */
export function toPostings(list: PostingsList): Uint32Array {
  const out = Uint32Array.from(list);
  for (let i = 1; i < out.length; i++) {
    if ((out[i] as number) <= (out[i - 1] as number)) {
      throw new RangeError(
        `postings must be strictly ascending: ${out[i]} follows ${out[i - 1]} at position ${i}`,
      );
    }
  }
  return out;
}

/** Intersection of two lists (two-pointer walk, galloping past long runs of misses). */
function intersectTwo(a: PostingsList, b: PostingsList): Uint32Array {
  const out = new Uint32Array(Math.min(a.length, b.length));
  let n = 0;
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const x = a[i] as number;
    const y = b[j] as number;
    if (x === y) {
      out[n++] = x;
      i++;
      j++;
    } else if (x < y) {
      i = seek(a, i + 1, y);
    } else {
      j = seek(b, j + 1, x);
    }
  }
  return out.subarray(0, n);
}

/** First index >= from whose value is >= target (exponential then binary search). */
function seek(list: PostingsList, from: number, target: number): number {
  let step = 1;
  let lo = from;
  let hi = from;
  while (hi < list.length && (list[hi] as number) < target) {
    lo = hi + 1;
    hi += step;
    step *= 2;
  }
  if (hi > list.length) hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((list[mid] as number) < target) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Series present in every list; no lists gives the empty list (as Prometheus's Intersect()). */
export function intersectPostings(...lists: PostingsList[]): Uint32Array {
  if (lists.length === 0) return emptyPostings();
  // Smallest first keeps every intermediate result as small as possible.
  const ordered = [...lists].sort((x, y) => x.length - y.length);
  let acc: PostingsList = ordered[0] as PostingsList;
  for (let k = 1; k < ordered.length && acc.length > 0; k++) {
    acc = intersectTwo(acc, ordered[k] as PostingsList);
  }
  // A single list comes back as a copy, so the caller never aliases its input.
  return acc === ordered[0] ? Uint32Array.from(acc) : (acc as Uint32Array);
}

function mergeTwo(a: PostingsList, b: PostingsList): Uint32Array {
  const out = new Uint32Array(a.length + b.length);
  let n = 0;
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const x = a[i] as number;
    const y = b[j] as number;
    if (x === y) {
      out[n++] = x;
      i++;
      j++;
    } else if (x < y) {
      out[n++] = x;
      i++;
    } else {
      out[n++] = y;
      j++;
    }
  }
  while (i < a.length) out[n++] = a[i++] as number;
  while (j < b.length) out[n++] = b[j++] as number;
  return out.subarray(0, n);
}

/** Union of the lists, deduplicated (pairwise merges in a balanced tree: O(total · log k)). */
export function mergePostings(...lists: PostingsList[]): Uint32Array {
  if (lists.length === 0) return emptyPostings();
  let level: PostingsList[] = lists;
  while (level.length > 1) {
    const next: PostingsList[] = [];
    for (let k = 0; k < level.length; k += 2) {
      const a = level[k] as PostingsList;
      const b = level[k + 1];
      next.push(b === undefined ? a : mergeTwo(a, b));
    }
    level = next;
  }
  return Uint32Array.from(level[0] ?? EMPTY);
}

/** Series of `full` that are not in `drop`. */
export function withoutPostings(full: PostingsList, drop: PostingsList): Uint32Array {
  const out = new Uint32Array(full.length);
  let n = 0;
  let j = 0;
  for (let i = 0; i < full.length; i++) {
    const x = full[i] as number;
    if (j < drop.length && (drop[j] as number) < x) j = seek(drop, j + 1, x);
    if (j < drop.length && drop[j] === x) continue;
    out[n++] = x;
  }
  return out.slice(0, n);
}
