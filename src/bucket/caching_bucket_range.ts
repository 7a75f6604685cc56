/**
 * Range reads through sub-range caching (Thanos's cachedGetRange): the object is cut into
 * `subrangeSize`-aligned pieces (the last one shorter when the object's size is not a
 * multiple), each cached under `subrange:<name>:<start>:<end>`. Missing pieces are fetched
 * with as few bucket requests as allowed: adjacent ones merge, then gaps of growing size are
 * bridged until at most `maxSubRequests` requests remain. A cached piece of the wrong length
 * is treated as missing, so the bytes returned are always the object's.
 */
import type { Bucket, BucketCallOptions, ObjectAttributes } from '../runtime/index.js';
import type { GetRangeConfig } from './caching_bucket_config.js';
import { subrangeKey } from './caching_bucket_codec.js';
import type { CachingBucketMetrics } from './caching_bucket_metrics.js';

export interface Range {
  start: number;
  end: number;
}

/** Merges ranges whose gap is at most `limit` bytes (input sorted, not overlapping). */
export function mergeRanges(input: readonly Range[], limit: number): Range[] {
  const out: Range[] = [];
  for (const r of input) {
    const last = out[out.length - 1];
    if (last !== undefined && r.start - last.end <= limit) last.end = r.end;
    else out.push({ ...r });
  }
  return out;
}

/** The bucket requests that fetch `missing` sub-ranges within the request limit. */
export function planRequests(
  missing: readonly Range[],
  subrangeSize: number,
  maxSubRequests: number,
): Range[] {
  let plan = mergeRanges(missing, 0);
  for (let limit = subrangeSize; maxSubRequests > 0 && plan.length > maxSubRequests; limit *= 2) {
    plan = mergeRanges(plan, limit);
  }
  return plan;
}

export interface RangeDeps {
  bucket: Bucket;
  metrics: CachingBucketMetrics | undefined;
  /** The object's attributes, through the attributes cache unless `fresh` (then re-cached). */
  attributes: (name: string, opts: BucketCallOptions, fresh: boolean) => Promise<ObjectAttributes>;
  /** Reads the cache; failures are misses. */
  fetch: (
    cfg: GetRangeConfig,
    keys: readonly string[],
    signal?: AbortSignal,
  ) => Promise<Map<string, Uint8Array>>;
}

export async function cachedGetRange(
  deps: RangeDeps,
  cfg: GetRangeConfig,
  name: string,
  offset: number,
  length: number,
  opts: BucketCallOptions,
): Promise<Uint8Array> {
  const m = deps.metrics;
  m?.operationRequests.inc({ operation: 'get_range', config: cfg.name });
  m?.requestedGetRangeBytes.inc({ config: cfg.name }, length);
  let { size } = await deps.attributes(name, opts, false);
  // A size that cuts the read short is checked with the bucket: a wrong cached size must not
  // truncate an answer (objects are immutable, so this only happens near an object's end).
  if (offset + length > size) size = (await deps.attributes(name, opts, true)).size;
  if (offset >= size) return new Uint8Array(0);
  const end = Math.min(offset + length, size);
  const step = cfg.subrangeSize;
  const first = Math.floor(offset / step) * step;
  const last = Math.ceil(end / step) * step;

  const pieces: Range[] = [];
  for (let s = first; s < last; s += step) pieces.push({ start: s, end: Math.min(s + step, size) });
  const keys = pieces.map((p) => subrangeKey(name, p.start, p.end));
  const cached = await deps.fetch(cfg, keys, opts.signal);
  const data = new Map<number, Uint8Array>();
  let cachedBytes = 0;
  pieces.forEach((p, i) => {
    const v = cached.get(keys[i] as string);
    if (v !== undefined && v.length === p.end - p.start) {
      data.set(p.start, v);
      cachedBytes += v.length;
    }
  });
  m?.fetchedGetRangeBytes.inc({ origin: 'cache', config: cfg.name }, cachedBytes);
  m?.operationHits.inc({ operation: 'get_range', config: cfg.name }, data.size / pieces.length);

  const missing = pieces.filter((p) => !data.has(p.start));
  if (missing.length > 0) {
    const requests = planRequests(missing, step, cfg.maxSubRequests);
    const stored = new Map<string, Uint8Array>();
    try {
      await Promise.all(
        requests.map(async (r) => {
          const bytes = await deps.bucket.getRange(name, r.start, r.end - r.start, opts);
          if (bytes.length !== r.end - r.start) throw new SizeMismatch();
          for (let s = r.start; s < r.end; s += step) {
            const piece = bytes.slice(s - r.start, Math.min(s + step, r.end) - r.start);
            if (data.has(s)) {
              // Bridging a gap re-reads pieces the cache already gave us.
              m?.refetchedGetRangeBytes.inc({ origin: 'cache', config: cfg.name }, piece.length);
              continue;
            }
            data.set(s, piece);
            stored.set(subrangeKey(name, s, s + piece.length), piece);
            m?.fetchedGetRangeBytes.inc({ origin: 'bucket', config: cfg.name }, piece.length);
          }
        }),
      );
    } catch (err) {
      // The cached size was wrong (too big): answer from the bucket, cache nothing.
      if (!(err instanceof SizeMismatch)) throw err;
      await deps.attributes(name, opts, true);
      return deps.bucket.getRange(name, offset, length, opts);
    }
    if (stored.size > 0) {
      try {
        cfg.cache.setMulti(stored, cfg.subrangeTtlMs);
      } catch {
        // Storing is best effort.
      }
    }
  }

  const out = new Uint8Array(end - offset);
  for (let s = first; s < last; s += step) {
    const piece = data.get(s) as Uint8Array;
    const from = Math.max(offset, s);
    const to = Math.min(end, s + piece.length);
    out.set(piece.subarray(from - s, to - s), from - offset);
  }
  return out;
}

/** The bucket returned fewer bytes than the size the read was planned with. */
class SizeMismatch extends Error {}
