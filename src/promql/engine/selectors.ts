// Selecting and reading series: the time range each selector needs (Prometheus
// getTimeRangesForSelector / FindMinMaxTime), the SelectHints passed to storage, loading a
// series' samples into flat arrays, and the per-step lookups of instant selectors
// (lookback window (t − lookback, t], stale markers end a series) and range selectors
// (window (t − range, t]).
import { expandingSeriesError } from '../errors.js';
import type { Expr, SubqueryExpr, VectorSelector } from '../parser/ast.js';
import { inspect } from '../parser/index.js';
import {
  readNewestSample,
  readSeriesSamples,
  type Querier,
  type SelectHints,
  type SampleArrays,
  type StorageSeries,
} from '../storage.js';
import type { LoadedSeries, QueryContext } from './context.js';
import type { ESeries } from './types.js';

export interface EvalStatement {
  readonly expr: Expr;
  readonly start: number;
  readonly end: number;
  /** Step of a range query in ms; 0 for an instant query. */
  readonly interval: number;
  readonly lookbackDelta: number;
}

/** Sum of offsets and ranges of the subqueries on the path, reset at a subquery with `@`. */
function subqueryTimes(path: readonly Expr[]): { offset: number; range: number; ts?: number } {
  let offset = 0;
  let range = 0;
  let ts: number | undefined;
  for (const n of path) {
    if (n.type !== 'SubqueryExpr') continue;
    offset += n.originalOffset;
    range += n.range;
    if (n.timestamp !== undefined) {
      offset = n.originalOffset;
      range = n.range;
      ts = n.timestamp;
    }
  }
  return ts === undefined ? { offset, range } : { offset, range, ts };
}

/** [start, end] (ms, inclusive) of the data one selector needs. */
export function selectorTimeRange(
  s: EvalStatement,
  n: VectorSelector,
  path: readonly Expr[],
  evalRange: number,
): [number, number] {
  let start = s.start;
  let end = s.end;
  const subq = subqueryTimes(path);
  if (subq.ts !== undefined) {
    start = subq.ts;
    end = subq.ts;
  }
  if (n.timestamp !== undefined) {
    start = n.timestamp;
    end = n.timestamp;
  } else {
    start = start - subq.offset - subq.range;
    end -= subq.offset;
  }
  // One ms less than the lookback/range: samples exactly that far back are excluded.
  start -= evalRange === 0 ? s.lookbackDelta - 1 : evalRange - 1;
  start -= n.originalOffset;
  end -= n.originalOffset;
  return [start, end];
}

function funcFromPath(path: readonly Expr[]): string {
  for (let i = path.length - 1; i >= 0; i--) {
    const n = path[i] as Expr;
    if (n.type === 'AggregateExpr') return n.op;
    if (n.type === 'Call') return n.func;
    if (n.type === 'BinaryExpr') return '';
  }
  return '';
}

function lastSubqueryInterval(path: readonly Expr[], fn: (rangeMs: number) => number): number {
  let interval = 0;
  for (const n of path) {
    if (n.type === 'SubqueryExpr') interval = n.step !== 0 ? n.step : fn(n.range);
  }
  return interval;
}

export interface SelectorPlan {
  readonly selector: VectorSelector;
  readonly hints: SelectHints;
}

/** Every selector of the statement with its hints (Prometheus populateSeries). */
export function planSelectors(
  s: EvalStatement,
  noStepSubqueryIntervalFn: (rangeMs: number) => number,
): SelectorPlan[] {
  const plans: SelectorPlan[] = [];
  inspect(s.expr, (node, path) => {
    let vs: VectorSelector;
    let evalRange = 0;
    let vsPath: readonly Expr[] = path;
    if (node.type === 'MatrixSelector') {
      vs = node.vectorSelector;
      evalRange = node.range;
      vsPath = [...path, node];
    } else if (node.type === 'VectorSelector') {
      if (path.length > 0 && path[path.length - 1]?.type === 'MatrixSelector') return;
      vs = node;
    } else return;
    const [start, end] = selectorTimeRange(s, vs, vsPath, evalRange);
    let step = lastSubqueryInterval(vsPath, noStepSubqueryIntervalFn);
    if (step === 0) step = s.interval;
    // Unsorted, as Prometheus's engine selects: nothing in evaluation depends on the order
    // (range results are sorted at the end), and a single source then skips a sort.
    const hints: SelectHints = {
      start,
      end,
      step,
      range: evalRange,
      func: funcFromPath(vsPath),
      sortSeries: false,
    };
    plans.push({ selector: vs, hints });
  });
  return plans;
}

/** Earliest and latest timestamp the statement reads (Prometheus FindMinMaxTime); (0, 0) without selectors. */
export function findMinMaxTime(plans: readonly SelectorPlan[]): [number, number] {
  let min = Infinity;
  let max = -Infinity;
  for (const p of plans) {
    if (p.hints.start < min) min = p.hints.start;
    if (p.hints.end > max) max = p.hints.end;
  }
  return max === -Infinity ? [0, 0] : [min, max];
}

/**
 * Whether a selector plan is an instant selector read at one time only (an instant query's,
 * outside subqueries): it needs no sample but the newest in its window.
 */
export function readsNewestOnly(plan: SelectorPlan, lookbackDelta: number): boolean {
  const { hints } = plan;
  return (hints.range ?? 0) === 0 && hints.end - hints.start === lookbackDelta - 1;
}

/**
 * Reads one series' samples in [start, end] into flat arrays, or only the newest of them
 * with `newestOnly` (storage may return more than the selector's hints ask for: the querier
 * spans every selector of the query).
 */
export function loadSeries(
  ctx: QueryContext,
  s: StorageSeries,
  start = -Infinity,
  end = Infinity,
  newestOnly = false,
): LoadedSeries {
  let samples: SampleArrays;
  try {
    samples = newestOnly ? readNewestSample(s, start, end) : readSeriesSamples(s, start, end);
  } catch (err) {
    throw expandingSeriesError(err);
  }
  const { ts, fs } = samples;
  let flags: Uint8Array | null = null;
  for (let i = 0; i < fs.length; i++) {
    const f = fs[i] as number;
    if (f !== f && ctx.stale.isStale(f)) (flags ??= new Uint8Array(fs.length))[i] = 1;
  }
  return { labels: s.labels, ts, fs, stale: flags };
}

/** The hints with the query's signal, so remote storage can stop when the query ends. */
export function withSignal(hints: SelectHints, signal: AbortSignal | undefined): SelectHints {
  return signal === undefined ? hints : { ...hints, signal };
}

/** Selects and loads every selector's series (one Select per selector, as Prometheus does). */
export async function populateSeries(
  ctx: QueryContext,
  querier: Querier,
  plans: readonly SelectorPlan[],
): Promise<void> {
  for (const p of plans) {
    ctx.checkDone('query preparation');
    let selected: StorageSeries[];
    try {
      selected = await querier.select(
        p.selector.labelMatchers,
        withSignal(p.hints, ctx.config.signal),
      );
    } catch (err) {
      throw expandingSeriesError(err);
    }
    const loaded: LoadedSeries[] = [];
    const newestOnly = readsNewestOnly(p, ctx.config.lookbackDelta);
    for (const s of selected) {
      ctx.checkDone('expression evaluation');
      const ls = loadSeries(ctx, s, p.hints.start, p.hints.end, newestOnly);
      if (ls.ts.length > 0) loaded.push(ls);
    }
    ctx.series.set(p.selector, loaded);
  }
}

/** The samples a range selector sees: stale markers removed. */
export function rangePoints(ls: LoadedSeries): SampleArrays {
  if (ls.points !== undefined) return ls.points;
  const stale = ls.stale;
  if (stale === null) {
    ls.points = { ts: ls.ts, fs: ls.fs };
    return ls.points;
  }
  let kept = 0;
  for (let i = 0; i < stale.length; i++) if (stale[i] !== 1) kept++;
  const ts = new Float64Array(kept);
  const fs = new Float64Array(kept);
  let n = 0;
  for (let i = 0; i < stale.length; i++) {
    if (stale[i] === 1) continue;
    ts[n] = ls.ts[i] as number;
    fs[n] = ls.fs[i] as number;
    n++;
  }
  ls.points = { ts, fs };
  return ls.points;
}

/**
 * The first index at or after `from` with ts[i] > t, else ts.length (ts sorted ascending).
 * Steps move forward by a few samples at a time (15 at a 15s step over 1s samples): the
 * bound is galloped to from `from` (1, 2, 4, … ahead), then bisected within the last gap,
 * fewer reads than a scan or a bisection of the whole rest.
 */
export function upperBoundFrom(ts: ArrayLike<number>, t: number, from: number): number {
  const n = ts.length;
  let lo = from;
  if (lo >= n || (ts[lo] as number) > t) return lo;
  // ts[lo] ≤ t: widen until ts[hi] > t or the end.
  let hi = lo + 1;
  let gap = 1;
  while (hi < n && (ts[hi] as number) <= t) {
    lo = hi;
    gap *= 2;
    hi = lo + gap;
  }
  if (hi > n) hi = n;
  // The answer is in (lo, hi]: ts[lo] ≤ t, and hi is n or ts[hi] > t.
  lo++;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((ts[mid] as number) <= t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Evaluates an instant selector over the evaluator's steps (Prometheus evalSeries): at each
 * step t, the newest sample in (t − offset − lookback, t − offset], unless it is a stale marker.
 *
 * The output stays live for the whole evaluation of its parent, so it is kept small for the
 * collector, whose scavenges copy every live array (they were a fifth of a range query over
 * 10,000 series): each value array is sized once to the step count and trimmed, and series
 * with a point at every step share one timestamp array. Nothing appends to a selector's
 * timestamps over more than one step (a step-invariant parent extends one-step outputs only).
 */
export function evalInstantSelector(
  ctx: QueryContext,
  series: readonly LoadedSeries[],
  offset: number,
  start: number,
  end: number,
  interval: number,
): ESeries[] {
  const lookback = ctx.config.lookbackDelta;
  const out: ESeries[] = [];
  const steps = end > start ? Math.floor((end - start) / interval) + 1 : 1;
  let everyStep: number[] | null = null;
  let spare: number[] | null = null; // a timestamp array left over by a series at every step
  for (const s of series) {
    ctx.checkDone();
    const ts: number[] = spare ?? new Array<number>(steps);
    spare = null;
    const fs: number[] = new Array<number>(steps);
    let n = 0;
    let idx = 0; // first index with time > refTime
    let prevRef = -Infinity;
    for (let t = start; t <= end; t += interval) {
      const ref = t - offset;
      idx = ref >= prevRef ? upperBoundFrom(s.ts, ref, idx) : upperBoundFrom(s.ts, ref, 0);
      prevRef = ref;
      const i = idx - 1;
      if (i < 0) continue;
      if ((s.ts[i] as number) <= ref - lookback) continue;
      if (s.stale !== null && s.stale[i] === 1) continue;
      ctx.currentSamples++;
      ctx.totalSamples++;
      ctx.checkSamples();
      ts[n] = t;
      fs[n] = s.fs[i] as number;
      n++;
    }
    if (n === 0) {
      spare = ts;
      continue;
    }
    if (n === steps && steps > 1) {
      if (everyStep === null) everyStep = ts;
      else spare = ts;
      out.push({ metric: s.labels, ts: everyStep, fs, dropName: false });
      continue;
    }
    ts.length = n;
    fs.length = n;
    out.push({ metric: s.labels, ts, fs, dropName: false });
  }
  ctx.updatePeak();
  return out;
}

/** The sample time an instant selector picks at `ref` (for timestamp()), or undefined. */
export function instantSampleTime(
  ctx: QueryContext,
  s: LoadedSeries,
  ref: number,
): number | undefined {
  const i = upperBoundFrom(s.ts, ref, 0) - 1;
  if (i < 0) return undefined;
  const t = s.ts[i] as number;
  if (t <= ref - ctx.config.lookbackDelta) return undefined;
  if (s.stale !== null && s.stale[i] === 1) return undefined;
  return t;
}

/** The subquery's time modifiers as the matrix selector a function argument becomes. */
export function subqueryAsMatrixOffset(subq: SubqueryExpr, evalStart: number): number {
  return subq.timestamp === undefined
    ? subq.originalOffset
    : subq.originalOffset + evalStart - subq.timestamp;
}
