/**
 * The results cache's arithmetic on extents (Cortex resultsCache partition, handleHit's
 * extent merging, filterRecentExtents and shouldCacheResponse): which parts of a request the
 * cache answers, which must be fetched, how extents of successive requests grow together,
 * and which answers may not be kept at all.
 */
import type { Expr } from '../promql/index.js';
import { inspect, parseExpr } from '../promql/parser/index.js';
import { resolveAtStartEnd } from './at_modifier.js';
import { extractRange, mergeRangeResponses } from './merge.js';
import { CACHE_CONTROL, NO_STORE, type RangeRequest, withStartEnd } from './range_request.js';
import { EMPTY_HEADERS, type RangeResponse } from './range_response.js';
import type { Extent } from './results_cache_codec.js';

/** Cortex's minCacheExtent: smaller extents are not worth a cache round trip. */
export const MIN_CACHE_EXTENT_MS = 5 * 60 * 1000;

/** The warning of a querier that answered with partial data (Cortex partialdata). */
export const PARTIAL_DATA_WARNING = 'Query result may contain partial data.';

export interface Partition {
  /** Requests for the parts the cache does not hold. */
  readonly requests: RangeRequest[];
  /** The cached parts of the answer. */
  readonly cached: RangeResponse[];
}

/**
 * Splits `req` into cached answers and the requests still needed (Cortex partition).
 * `extents` must be ordered by start. Tiny extents are skipped for requests longer than
 * MIN_CACHE_EXTENT_MS (unless the request is a single point).
 */
export function partition(req: RangeRequest, extents: readonly Extent[]): Partition {
  const requests: RangeRequest[] = [];
  const cached: RangeResponse[] = [];
  let start = req.start;
  for (const extent of extents) {
    if (extent.end < start || extent.start > req.end) continue;
    const span = req.end - req.start;
    if (span !== 0 && span > MIN_CACHE_EXTENT_MS && extent.end - extent.start < MIN_CACHE_EXTENT_MS)
      continue;
    if (start < extent.start) requests.push(withStartEnd(req, start, extent.start));
    cached.push(extractRange(extent.response, start, req.end));
    start = extent.end;
  }
  if (start < req.end) requests.push(withStartEnd(req, start, req.end));
  if (req.start === req.end && cached.length === 0) requests.push(req);
  return { requests, cached };
}

function withoutHeaders(resp: RangeResponse): RangeResponse {
  return {
    series: resp.series,
    warnings: resp.warnings,
    infos: resp.infos,
    headers: EMPTY_HEADERS,
  };
}

export function toExtent(req: RangeRequest, resp: RangeResponse): Extent {
  return { start: req.start, end: req.end, response: withoutHeaders(resp) };
}

/**
 * Extents sorted by start (the longer first on a tie) and merged where they touch or overlap
 * within one step (Cortex handleHit's accumulator).
 */
export function mergeExtents(extents: readonly Extent[], step: number): Extent[] {
  const sorted = [...extents].sort((a, b) => a.start - b.start || b.end - a.end);
  const out: Extent[] = [];
  let acc: { start: number; end: number; parts: RangeResponse[] } | undefined;
  const flush = (): void => {
    if (acc === undefined) return;
    const response = withoutHeaders(mergeRangeResponses(acc.parts));
    out.push({ start: acc.start, end: acc.end, response });
  };
  for (const e of sorted) {
    if (acc === undefined || acc.end + step < e.start) {
      flush();
      acc = { start: e.start, end: e.end, parts: [e.response] };
      continue;
    }
    if (acc.end >= e.end) continue;
    acc.end = e.end;
    acc.parts.push(e.response);
  }
  flush();
  return out;
}

/**
 * Never keeps data of the last `maxCacheFreshness` (Cortex filterRecentExtents): extents are
 * cut at now − freshness rounded down to the step. An extent left ending before it starts is
 * dropped (Cortex would store it).
 */
export function filterRecentExtents(
  extents: readonly Extent[],
  step: number,
  now: number,
  maxCacheFreshness: number,
): Extent[] {
  const maxCacheTime = Math.trunc((now - maxCacheFreshness) / step) * step;
  const out: Extent[] = [];
  for (const e of extents) {
    if (e.end <= maxCacheTime) {
      out.push(e);
    } else if (maxCacheTime >= e.start) {
      out.push({
        start: e.start,
        end: maxCacheTime,
        response: extractRange(e.response, e.start, maxCacheTime),
      });
    }
  }
  return out;
}

function parseOrUndefined(query: string): Expr | undefined {
  try {
    return parseExpr(query);
  } catch {
    return undefined;
  }
}

/**
 * An `@` time after the query's end or inside the freshness window would cache an answer that
 * can still change (Cortex isAtModifierCachable); an unparsable query is not cached.
 */
function atModifierCachable(req: RangeRequest, maxCacheTime: number): boolean {
  if (!req.query.includes('@')) return true;
  const parsed = parseOrUndefined(req.query);
  if (parsed === undefined) return false;
  let ok = true;
  inspect(resolveAtStartEnd(parsed, req.start, req.end), (node) => {
    const ts =
      node.type === 'VectorSelector' || node.type === 'SubqueryExpr'
        ? node.timestamp
        : node.type === 'MatrixSelector'
          ? node.vectorSelector.timestamp
          : undefined;
    if (ts !== undefined && (ts > req.end || ts > maxCacheTime)) ok = false;
    return ok;
  });
  return ok;
}

/** A negative offset reads data after the step time, which may still arrive (Cortex). */
function offsetCachable(req: RangeRequest): boolean {
  if (!req.query.includes('offset')) return true;
  const parsed = parseOrUndefined(req.query);
  if (parsed === undefined) return false;
  let ok = true;
  inspect(parsed, (node) => {
    const offset =
      node.type === 'VectorSelector' || node.type === 'SubqueryExpr'
        ? node.originalOffset
        : node.type === 'MatrixSelector'
          ? node.vectorSelector.originalOffset
          : 0;
    if (offset < 0) ok = false;
    return ok;
  });
  return ok;
}

function hasNoStore(resp: RangeResponse): boolean {
  const values = resp.headers.get(CACHE_CONTROL) ?? [];
  return values.some((v) => v.split(',').some((d) => d.trim() === NO_STORE));
}

/** Cortex shouldCacheResponse. */
export function shouldCacheResponse(
  req: RangeRequest,
  resp: RangeResponse,
  maxCacheTime: number,
): boolean {
  if (hasNoStore(resp)) return false;
  if (!atModifierCachable(req, maxCacheTime)) return false;
  if (!offsetCachable(req)) return false;
  return !resp.warnings.includes(PARTIAL_DATA_WARNING);
}
