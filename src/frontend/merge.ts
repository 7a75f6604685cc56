/**
 * Merging and cutting range answers (Cortex tripperware.MergeResponse / matrixMerge and the
 * results cache's Extract). Sub-queries of one query meet at their boundaries, and cached
 * extents overlap the answers fetched around them, so the same timestamp can arrive twice:
 * it is kept once. Both copies come from the same evaluation step of the same query, so
 * which one is kept does not matter.
 */
import { Labels } from '../model/index.js';
import type { FPoint } from '../promql/index.js';
import { EMPTY_HEADERS, type RangeResponse, type RangeSeries } from './range_response.js';

/** Sorted, unique strings (Thanos strutil.MergeUnsortedSlices, which Cortex uses). */
function mergeStrings(lists: readonly (readonly string[])[]): string[] {
  const all = new Set<string>();
  for (const l of lists) for (const s of l) all.add(s);
  return [...all].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

function firstTime(resp: RangeResponse): number {
  let min = Infinity;
  for (const s of resp.series) {
    const p = s.floats[0];
    if (p !== undefined && p.t < min) min = p.t;
  }
  return min;
}

/** Appends `next` to `points`, dropping timestamps already present. */
function appendPoints(points: FPoint[], next: readonly FPoint[]): FPoint[] {
  if (next.length === 0) return points;
  const last = points[points.length - 1];
  const first = next[0] as FPoint;
  if (last === undefined || last.t < first.t) {
    for (const p of next) points.push(p);
    return points;
  }
  // Overlap beyond one boundary sample (cached extents against fresh answers): merge by time.
  const merged: FPoint[] = [];
  let i = 0;
  let j = 0;
  while (i < points.length || j < next.length) {
    const a = points[i];
    const b = next[j];
    if (b === undefined || (a !== undefined && a.t <= b.t)) {
      merged.push(a as FPoint);
      if (b !== undefined && (a as FPoint).t === b.t) j++;
      i++;
    } else {
      merged.push(b);
      j++;
    }
  }
  return merged;
}

/**
 * One answer from several: series matched by label set, samples in time order without
 * repeated timestamps, series ordered by labels, warnings and infos merged. One response is
 * returned as it is (Cortex does the same, which keeps its stats and headers). Merged answers
 * carry no stats and no headers.
 */
export function mergeRangeResponses(responses: readonly RangeResponse[]): RangeResponse {
  if (responses.length === 1) return responses[0] as RangeResponse;
  const ordered = [...responses].sort((a, b) => firstTime(a) - firstTime(b));
  const byLabels = new Map<string, { metric: Labels; floats: FPoint[] }>();
  for (const resp of ordered) {
    for (const s of resp.series) {
      const key = s.metric.toString();
      let acc = byLabels.get(key);
      if (acc === undefined) {
        acc = { metric: s.metric, floats: [] };
        byLabels.set(key, acc);
      }
      acc.floats = appendPoints(acc.floats, s.floats);
    }
  }
  const series: RangeSeries[] = [...byLabels.values()].sort((a, b) =>
    Labels.compare(a.metric, b.metric),
  );
  return {
    series,
    warnings: mergeStrings(responses.map((r) => r.warnings)),
    infos: mergeStrings(responses.map((r) => r.infos)),
    headers: EMPTY_HEADERS,
  };
}

function lowerBound(points: readonly FPoint[], t: number): number {
  let lo = 0;
  let hi = points.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((points[mid] as FPoint).t < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The part of `resp` inside [start, end] (both inclusive; Cortex Extract): series left
 * without samples are dropped, warnings and infos kept, stats dropped.
 */
export function extractRange(resp: RangeResponse, start: number, end: number): RangeResponse {
  const series: RangeSeries[] = [];
  for (const s of resp.series) {
    const from = lowerBound(s.floats, start);
    const to = lowerBound(s.floats, end + 1);
    if (to > from) series.push({ metric: s.metric, floats: s.floats.slice(from, to) });
  }
  return { series, warnings: resp.warnings, infos: resp.infos, headers: resp.headers };
}
