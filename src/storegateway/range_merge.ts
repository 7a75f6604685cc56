/**
 * Turning many small byte ranges of one object into few range requests, the way Thanos's
 * gap-based partitioner does (pkg/store/bucket.go): object stores bill and throttle per
 * request, so reading a few hundred KiB of unneeded bytes between two wanted ranges is
 * cheaper than a second request. Pure arithmetic, plus a small helper that runs the requests
 * with bounded concurrency and stops at an abort.
 */
import { throwIfAborted } from '../runtime/index.js';

/**
 * Thanos's and Cortex's default (`-blocks-storage.bucket-store.partitioner-max-gap-bytes`):
 * two ranges closer than this are fetched in one request.
 */
export const DEFAULT_PARTITIONER_MAX_GAP_BYTES = 512 * 1024;

/** One request: bytes [start, end) covering input ranges first..last-1. */
export interface MergedRange {
  readonly start: number;
  readonly end: number;
  readonly first: number;
  readonly last: number;
}

/**
 * Merges ranges [starts[i], ends[i]) (sorted by start; they may overlap) into requests:
 * a range joins the current request unless it starts more than `maxGap` bytes after the
 * request's end (exactly Thanos's `p.End+maxGapSize < s` rule). Every input range lies inside
 * the request that names it, and requests cover consecutive inputs in order.
 */
export function partitionRanges(
  starts: ArrayLike<number>,
  ends: ArrayLike<number>,
  maxGap: number,
): MergedRange[] {
  if (starts.length !== ends.length) {
    throw new RangeError(
      `partitionRanges: ${starts.length} starts but ${ends.length} ends (must be parallel)`,
    );
  }
  if (!(maxGap >= 0)) throw new RangeError(`partitionRanges: max gap must be >= 0, got ${maxGap}`);
  const out: MergedRange[] = [];
  const n = starts.length;
  let k = 0;
  while (k < n) {
    const first = k;
    const start = starts[k] as number;
    let end = ends[k] as number;
    for (k++; k < n; k++) {
      const s = starts[k] as number;
      if (s < (starts[k - 1] as number)) {
        throw new RangeError(`partitionRanges: range ${k} starts at ${s}, before range ${k - 1}`);
      }
      if (end + maxGap < s) break;
      const e = ends[k] as number;
      if (e > end) end = e;
    }
    out.push({ start, end, first, last: k });
  }
  return out;
}

/**
 * Runs `fn` over `items` with at most `limit` calls in flight, in item order, checking
 * `signal` before each call starts. The first failure stops new calls and is rethrown once
 * the calls in flight settle (so no request outlives the query that made it).
 */
export async function runLimited<T>(
  items: readonly T[],
  limit: number,
  fn: (item: T) => Promise<void>,
  signal?: AbortSignal,
): Promise<void> {
  let next = 0;
  let failed = false;
  let firstError: unknown;
  const worker = async (): Promise<void> => {
    while (!failed && next < items.length) {
      const item = items[next++] as T;
      try {
        throwIfAborted(signal);
        await fn(item);
      } catch (err) {
        if (!failed) {
          failed = true;
          firstError = err;
        }
      }
    }
  };
  const workers: Array<Promise<void>> = [];
  for (let i = 0; i < Math.min(Math.max(1, limit), items.length); i++) workers.push(worker());
  await Promise.all(workers);
  if (failed) throw firstError;
}
