/**
 * A block's index reads through the index cache (Thanos's bucketIndexReader with an
 * IndexCache): postings lists and series entries are looked up in the cache first, only the
 * misses are fetched from the bucket, and what was fetched is stored. A cached entry that does
 * not decode is fetched again, so a bad cache never changes an answer it can detect.
 */
import type { Matcher } from '../model/index.js';
import { crc32c, putUvarintAt, uvarintSize } from '../tsdb/encoding/index.js';
import {
  mergePostings,
  seriesEntryBody,
  type IndexReader,
  type IndexSeries,
  type PostingsRange,
} from '../tsdb/index/index.js';
import type { IndexCache } from './index_cache.js';

export interface BlockIndexCache {
  readonly cache: IndexCache;
  readonly block: string;
}

/**
 * The union of the postings lists of `name` = each of `values`: cached lists first, the
 * others read by `fetch` (given the ranges of the values the index has) and then cached.
 */
export async function cachedPostings(
  c: BlockIndexCache,
  name: string,
  values: readonly string[],
  signal: AbortSignal | undefined,
  ranges: (values: readonly string[]) => Promise<PostingsRange[]>,
  fetch: (ranges: readonly PostingsRange[]) => Promise<Uint32Array[]>,
): Promise<Uint32Array> {
  const hits = await c.cache.fetchPostings(c.block, name, values, signal);
  const lists = [...hits.values()];
  const missing = values.filter((v) => !hits.has(v));
  if (missing.length > 0) {
    const wanted = await ranges(missing);
    if (wanted.length > 0) {
      const fetched = await fetch(wanted);
      fetched.forEach((list, i) => {
        lists.push(list);
        c.cache.storePostings(c.block, name, (wanted[i] as PostingsRange).value, list);
      });
    }
  }
  if (lists.length === 0) return new Uint32Array(0);
  return lists.length === 1 ? (lists[0] as Uint32Array) : mergePostings(...lists);
}

/**
 * The series entries of `refs`, in order: decoded from cached bodies where possible, the rest
 * read by `fetch` (which reports each entry it read, so its body can be cached).
 */
export async function cachedSeries(
  c: BlockIndexCache,
  reader: IndexReader,
  refs: ArrayLike<number>,
  signal: AbortSignal | undefined,
  fetch: (
    refs: ArrayLike<number>,
    onEntry: (ref: number, entry: Uint8Array) => void,
  ) => Promise<IndexSeries[]>,
): Promise<IndexSeries[]> {
  const bodies = await c.cache.fetchSeries(c.block, refs, signal);
  const out = new Array<IndexSeries>(refs.length);
  const missing: number[] = [];
  let hits = 0;
  for (let i = 0; i < refs.length; i++) {
    const ref = refs[i] as number;
    const body = bodies.get(ref);
    const decoded = body === undefined ? undefined : decodeCachedSeries(reader, ref, body);
    if (decoded === undefined) missing.push(i);
    else {
      out[i] = decoded;
      hits++;
    }
  }
  c.cache.countSeriesHits(hits);
  if (missing.length > 0) {
    const missingRefs = missing.map((i) => refs[i] as number);
    const fetched = await fetch(missingRefs, (ref, entry) => {
      const { body } = seriesEntryBody(entry, reader.seriesOffset(ref));
      c.cache.storeSeries(c.block, ref, body);
    });
    missing.forEach((i, k) => {
      out[i] = fetched[k] as IndexSeries;
    });
  }
  return out;
}

/**
 * Whether every series satisfies every matcher, as the series a block selects must: one that
 * does not came from a wrong cached value (postings, expanded postings or series entry).
 */
export function allMatch(series: readonly IndexSeries[], matchers: readonly Matcher[]): boolean {
  return series.every((s) => matchers.every((m) => m.matches(s.labels.get(m.name))));
}

/** A series decoded from a cached body (framed again as the index stores it), or undefined. */
function decodeCachedSeries(
  reader: IndexReader,
  ref: number,
  body: Uint8Array,
): IndexSeries | undefined {
  const prefix = uvarintSize(body.length);
  const entry = new Uint8Array(prefix + body.length + 4);
  putUvarintAt(entry, 0, body.length);
  entry.set(body, prefix);
  new DataView(entry.buffer).setUint32(prefix + body.length, crc32c(body));
  try {
    return reader.decodeSeries(ref, entry);
  } catch {
    return undefined;
  }
}
