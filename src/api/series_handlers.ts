/**
 * `/api/v1/series`, `/api/v1/labels` and `/api/v1/label/{name}/values` (Prometheus web/api/v1
 * series, labelNames, labelValues): every `match[]` set is asked separately and the answers
 * merged, `start`/`end` (default: all time) bound the querier, `limit` truncates with a
 * warning. Storage failures are `execution` errors unless they carry their own kind.
 */
import {
  compareGoStrings,
  goQuote,
  isValidLabelName,
  Labels,
  type Matcher,
} from '../model/index.js';
import type { Querier, StorageSeries } from '../promql/index.js';
import { encodeLabels, encodeStrings } from './encode.js';
import { badData, param } from './errors.js';
import {
  type ApiContext,
  type ApiResult,
  annotationStrings,
  TRUNCATED_WARNING,
} from './handler.js';
import {
  MAX_TIME_NS,
  MIN_TIME_NS,
  nsToMs,
  parseLimit,
  parseMatchersParam,
  parseTimeParam,
} from './params.js';
import type { PrometheusApiDeps } from './types.js';

/** Prometheus toHintLimit: ask storage for one more than the limit to detect truncation. */
function hintLimit(limit: number): number {
  return limit > 0 && limit < Number.MAX_SAFE_INTEGER ? limit + 1 : limit;
}

function timeRange(ctx: ApiContext): { start: number; end: number } {
  const start = param('start', () => parseTimeParam(ctx.form.get('start'), 'start', MIN_TIME_NS));
  const end = param('end', () => parseTimeParam(ctx.form.get('end'), 'end', MAX_TIME_NS));
  return { start: nsToMs(start), end: nsToMs(end) };
}

/** Runs `fn` on a querier for [start, end] and always closes it. */
async function withQuerier<T>(
  deps: PrometheusApiDeps,
  ctx: ApiContext,
  range: { start: number; end: number },
  fn: (q: Querier) => Promise<T>,
): Promise<T> {
  const q = await deps.queryable(ctx.tenant, ctx.signal).querier(range.start, range.end);
  try {
    return await fn(q);
  } finally {
    await q.close();
  }
}

function sortedUnion(lists: readonly (readonly string[])[]): string[] {
  const set = new Set<string>();
  for (const l of lists) for (const v of l) set.add(v);
  return [...set].sort(compareGoStrings);
}

/** Prometheus's `limit` on lists: keep the first `limit`, with a warning when cut. */
function limited<T>(list: readonly T[], limit: number): { list: readonly T[]; warnings: string[] } {
  if (limit > 0 && list.length > limit) {
    return { list: list.slice(0, limit), warnings: [TRUNCATED_WARNING] };
  }
  return { list, warnings: [] };
}

export async function series(ctx: ApiContext, deps: PrometheusApiDeps): Promise<ApiResult> {
  const { form } = ctx;
  if (form.error !== undefined) throw badData(`error parsing form values: ${form.error}`);
  const matchValues = form.getAll('match[]');
  if (matchValues.length === 0) throw badData('no match[] parameter provided');
  const limit = param('limit', () => parseLimit(form.get('limit')));
  const range = timeRange(ctx);
  const matcherSets = param('match[]', () => parseMatchersParam(matchValues));
  const hints = { start: range.start, end: range.end, func: 'series', limit: hintLimit(limit) };
  const labels = await withQuerier(deps, ctx, range, async (q) => {
    const sets: StorageSeries[][] = [];
    for (const ms of matcherSets) sets.push(await q.select(ms, hints));
    return mergeSeriesLabels(sets);
  });
  const { list, warnings } = limited(labels, limit);
  return {
    data: `[${list.map(encodeLabels).join(',')}]`,
    ...annotationStrings(undefined, warnings),
  };
}

/** The label sets of every series of every set, sorted and without duplicates. */
function mergeSeriesLabels(sets: readonly (readonly StorageSeries[])[]): Labels[] {
  if (sets.length === 1) return (sets[0] ?? []).map((s) => s.labels);
  const byKey = new Map<string, Labels>();
  for (const set of sets) {
    for (const s of set) {
      const key = s.labels.toString();
      if (!byKey.has(key)) byKey.set(key, s.labels);
    }
  }
  return [...byKey.values()].sort((a, b) => Labels.compare(a, b));
}

/** `match[]` of the label endpoints: parse errors are bare `bad_data` there. */
function labelMatcherSets(ctx: ApiContext): (readonly Matcher[])[] {
  try {
    return parseMatchersParam(ctx.form.getAll('match[]'));
  } catch (err) {
    throw badData((err as Error).message);
  }
}

export async function labelNames(ctx: ApiContext, deps: PrometheusApiDeps): Promise<ApiResult> {
  const limit = param('limit', () => parseLimit(ctx.form.get('limit')));
  const range = timeRange(ctx);
  const matcherSets = labelMatcherSets(ctx);
  const names = await withQuerier(deps, ctx, range, async (q) => {
    if (matcherSets.length <= 1) return q.labelNames(matcherSets[0] ?? []);
    const lists: string[][] = [];
    for (const ms of matcherSets) lists.push(await q.labelNames(ms));
    return sortedUnion(lists);
  });
  const { list, warnings } = limited(names, limit);
  return { data: encodeStrings(list), ...annotationStrings(undefined, warnings) };
}

/**
 * Prometheus model.UnescapeName for the `U__` value-encoding escape (so that UTF-8 label
 * names can travel in a URL path segment): `__` is `_`, `_<hex>_` is a code point; any
 * malformed escape leaves the name unchanged.
 */
export function unescapeLabelName(name: string): string {
  if (!name.startsWith('U__')) return name;
  const s = name.slice(3);
  let out = '';
  for (let i = 0; i < s.length; i++) {
    if (s[i] !== '_') {
      out += s[i];
      continue;
    }
    i++;
    if (i >= s.length) return name;
    if (s[i] === '_') {
      out += '_';
      continue;
    }
    let cp = 0;
    let closed = false;
    for (let j = 0; i < s.length; j++, i++) {
      if (j >= 6) return name;
      const c = s[i] as string;
      if (c === '_') {
        closed = true;
        break;
      }
      const d = parseInt(c, 16);
      if (!/^[0-9a-fA-F]$/.test(c) || Number.isNaN(d)) return name;
      cp = cp * 16 + d;
    }
    if (!closed || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return name;
    out += String.fromCodePoint(cp);
  }
  return out;
}

export async function labelValues(
  ctx: ApiContext,
  deps: PrometheusApiDeps,
  rawName: string,
): Promise<ApiResult> {
  const name = unescapeLabelName(rawName);
  if (!isValidLabelName(name)) throw badData(`invalid label name: ${goQuote(name)}`);
  const limit = param('limit', () => parseLimit(ctx.form.get('limit')));
  const range = timeRange(ctx);
  const matcherSets = labelMatcherSets(ctx);
  const values = await withQuerier(deps, ctx, range, async (q) => {
    if (matcherSets.length <= 1) {
      return [...(await q.labelValues(name, matcherSets[0] ?? []))].sort(compareGoStrings);
    }
    const lists: string[][] = [];
    for (const ms of matcherSets) lists.push(await q.labelValues(name, ms));
    return sortedUnion(lists);
  });
  const { list, warnings } = limited(values, limit);
  return { data: encodeStrings(list), ...annotationStrings(undefined, warnings) };
}
