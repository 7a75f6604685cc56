// Function calls (the Call branch of Prometheus's evaluator.eval): functions over instant
// vectors run per step through rangeEval; functions over a range vector run per series and
// per step over the window (t − offset − range, t − offset] of a selector or of a subquery
// rewritten into a matrix selector; timestamp() over a selector reads sample times;
// label_replace/label_join work per series so the name can be kept or dropped as
// Prometheus 3 does; absent_over_time and the rate/increase counter hint are handled here.
// Names are dropped at once, or only marked for the end with delayed name removal.
import { goQuote, Labels, Matcher } from '../../model/index.js';
import { PromQLError, QueryExecutionError } from '../errors.js';
import type { FunctionCall } from '../function_call.js';
import { COLUMN_KERNELS, createLabelsForAbsentFunction, PointWindow } from '../functions/index.js';
import type { Call, Expr, MatrixSelector, PositionRange, VectorSelector } from '../parser/ast.js';
import { exprType, posRangeOf, unwrapParens } from '../parser/index.js';
import type { FPoint, Sample, Series } from '../value.js';
import type { Evaluator } from './evaluator.js';
import { NodeHelper } from './evaluator.js';
import { mergeSeriesWithSameLabelset } from './merge.js';
import { instantSampleTime, rangePoints, upperBoundFrom } from './selectors.js';
import type { EMatrix, ESeries, MSample } from './types.js';
import {
  containsSameLabelset,
  dropMetadataLabels,
  NameDropper,
  SAME_LABELSET,
  unwrapStepInvariant,
} from './util.js';

/** A mutable point handed to range functions (reused across steps of one series). */
interface MPoint {
  t: number;
  f: number;
}

const SORT_FUNCTIONS = new Set(['sort', 'sort_desc', 'sort_by_label', 'sort_by_label_desc']);

function lookup(ev: Evaluator, name: string): FunctionCall {
  const fn = ev.ctx.config.functions.get(name);
  if (fn === undefined) throw new QueryExecutionError(`function "${name}" is not supported`);
  return fn;
}

export function evalCall(ev: Evaluator, e: Call): EMatrix {
  if (e.func === 'timestamp') {
    const arg = e.args[0] === undefined ? undefined : unwrapParens(unwrapStepInvariant(e.args[0]));
    if (arg?.type === 'VectorSelector') return timestampOverSelector(ev, e, arg);
  }
  if (e.func === 'label_replace' || e.func === 'label_join') return evalLabelFunction(ev, e);
  if (e.func === 'min_of' || e.func === 'max_of') {
    const pick = e.func === 'min_of' ? Math.min : Math.max;
    return ev.rangeEval(e.args, (v, _s, enh) => {
      const a = v[0]?.[0];
      const b = v[1]?.[0];
      if (a !== undefined && b !== undefined) {
        enh.out.push({ metric: Labels.EMPTY, t: enh.ts, f: pick(a.f, b.f) });
      }
      return enh.out;
    });
  }
  if (SORT_FUNCTIONS.has(e.func) && ev.ctx.config.rangeQuery) {
    ev.ctx.warn(
      'sort is ineffective for range queries since results are always ordered by labels',
      posRangeOf(e),
    );
  }

  let matrixIndex = -1;
  for (let i = 0; i < e.args.length; i++) {
    const a = unwrapStepInvariant(e.args[i] as Expr);
    if (a.type === 'MatrixSelector' || a.type === 'SubqueryExpr') {
      matrixIndex = i;
      break;
    }
  }
  const fn = lookup(ev, e.func);
  if (matrixIndex < 0) {
    if (ev.ctx.config.delayedNameRemoval) {
      return ev.rangeEval(e.args, (v, _s, enh) => fn(v, [], e.args, enh));
    }
    const dropper = new NameDropper();
    return ev.rangeEval(e.args, (v, _s, enh) => dropper.dropMarked(fn(v, [], e.args, enh)));
  }
  return evalRangeFunction(ev, e, fn, matrixIndex);
}

/** Per series and step over a range argument (Prometheus's matrixArg branch). */
function evalRangeFunction(ev: Evaluator, e: Call, fn: FunctionCall, matrixIndex: number): EMatrix {
  const ctx = ev.ctx;
  const arg = unwrapStepInvariant(e.args[matrixIndex] as Expr);

  // Where the points come from: the selector's series, or the subquery's result.
  let sources: {
    labels: Labels;
    ts: ArrayLike<number>;
    fs: ArrayLike<number>;
    dropName: boolean;
  }[];
  let offset: number;
  let range: number;
  let hasAt: boolean;
  let rewritten: MatrixSelector;
  let argPos: PositionRange;
  let subquerySamples = 0;
  if (arg.type === 'MatrixSelector') {
    const vs = arg.vectorSelector;
    offset = ev.offsetOf(vs);
    range = arg.range;
    hasAt = vs.timestamp !== undefined;
    sources = ev
      .seriesOf(vs)
      .map((ls) => ({ labels: ls.labels, ...rangePoints(ls), dropName: false }));
    rewritten = { ...arg, vectorSelector: { ...vs, offset } };
    argPos = posRangeOf(arg);
  } else if (arg.type === 'SubqueryExpr') {
    // Like Prometheus, samples the subquery reads are not counted: its points are, per window.
    const totalBefore = ctx.totalSamples;
    const mat = ev.evalSubquery(arg);
    ctx.totalSamples = totalBefore;
    for (const s of mat) subquerySamples += s.ts.length;
    offset = ev.offsetOf(arg);
    range = arg.range;
    hasAt = arg.timestamp !== undefined;
    sources = mat.map((s) => ({ labels: s.metric, ts: s.ts, fs: s.fs, dropName: s.dropName }));
    // Prometheus hands functions the subquery as a nameless matrix selector at position 0.
    const vs: VectorSelector = {
      type: 'VectorSelector',
      name: '',
      labelMatchers: [],
      posRange: { start: 0, end: 0 },
      offset,
      originalOffset: arg.originalOffset,
      timestamp: arg.timestamp,
    };
    rewritten = { type: 'MatrixSelector', vectorSelector: vs, range, endPos: 0 };
    argPos = { start: 0, end: 0 };
  } else {
    throw new PromQLError('internal', 'range argument is neither a selector nor a subquery');
  }

  // The other (scalar) arguments, one value per step.
  const others: { index: number; values: readonly number[] }[] = [];
  for (let i = 0; i < e.args.length; i++) {
    if (i === matrixIndex) continue;
    const a = e.args[i] as Expr;
    if (exprType(a) === 'string') {
      others.push({ index: i, values: [] });
      continue;
    }
    others.push({ index: i, values: ev.eval(a)[0]?.fs ?? [] });
  }
  const args = e.args.map((a, i) => (i === matrixIndex ? rewritten : a));
  // One vector per argument (the function-call contract); the range argument's stays empty.
  const vectorVals: Sample[][] = e.args.map(() => []);
  const scalarObjs: MSample[] = others.map(() => ({
    metric: Labels.EMPTY,
    t: 0,
    f: 0,
    dropName: false,
  }));

  const dropName = e.func !== 'last_over_time' && e.func !== 'first_over_time';
  const delayed = ctx.config.delayedNameRemoval;
  const enh = new NodeHelper(ctx);
  const window: MPoint[] = [];
  const inSeries: { metric: Labels; floats: FPoint[]; dropName: boolean } = {
    metric: Labels.EMPTY,
    floats: window,
    dropName: false,
  };
  const inMatrix: Series[] = [inSeries];
  const out: EMatrix = [];
  let windowCount = 0;
  // Functions with a column kernel read the window in place (same arithmetic, no points).
  const column = others.length === 0 ? COLUMN_KERNELS.get(e.func) : undefined;
  const columnWindow = new PointWindow();
  // Point objects handed to the function, recycled across steps and series.
  const pool: MPoint[] = [];

  for (const src of sources) {
    ctx.checkDone();
    ctx.currentSamples -= windowCount;
    windowCount = 0;
    inSeries.metric = src.labels;
    for (const p of window) pool.push(p);
    window.length = 0;
    // A subquery's series may already be marked (e.g. last_over_time(abs(x)[5m:])).
    const res: ESeries = {
      metric: dropName && !delayed ? dropMetadataLabels(src.labels) : src.labels,
      ts: [],
      fs: [],
      dropName: dropName || src.dropName,
    };
    let lo = 0;
    let hi = 0;
    let step = -1;
    for (let ts = ev.start; ts <= ev.end; ts += ev.interval) {
      step++;
      for (let k = 0; k < others.length; k++) {
        const other = others[k] as { index: number; values: readonly number[] };
        const vec = vectorVals[other.index] as Sample[];
        vec.length = 0;
        const f = other.values[step];
        if (f === undefined) continue;
        const o = scalarObjs[k] as MSample;
        o.t = ts;
        o.f = f;
        vec.push(o);
      }
      if (ts === ev.start || !hasAt) {
        const maxt = ts - offset;
        const mint = maxt - range;
        const newLo = upperBoundFrom(src.ts, mint, lo);
        const newHi = upperBoundFrom(src.ts, maxt, Math.max(hi, newLo));
        if (column !== undefined) {
          lo = newLo;
          hi = newHi;
          ctx.currentSamples += hi - lo - windowCount;
          windowCount = hi - lo;
          ctx.checkSamples();
        } else {
          // Slide the window: recycle the points that fell out, append the new ones.
          const keepFrom = newLo >= hi ? window.length : newLo - lo;
          for (let k = 0; k < keepFrom; k++) pool.push(window[k] as MPoint);
          if (keepFrom > 0) {
            // A plain loop: Array.prototype.copyWithin is far slower on object arrays.
            const kept = window.length - keepFrom;
            for (let k = 0; k < kept; k++) window[k] = window[k + keepFrom] as MPoint;
            window.length = kept;
          }
          for (let i = Math.max(hi, newLo); i < newHi; i++) {
            const p = pool.pop() ?? { t: 0, f: 0 };
            p.t = src.ts[i] as number;
            p.f = src.fs[i] as number;
            window.push(p);
          }
          lo = newLo;
          hi = newHi;
          ctx.currentSamples += window.length - windowCount;
          windowCount = window.length;
          ctx.checkSamples();
        }
      }
      if (column !== undefined) {
        if (hi === lo) continue;
        columnWindow.set(src.ts, src.fs, lo, hi);
        const v = column(columnWindow, ts, range, offset);
        ctx.totalSamples += hi - lo;
        if (v !== undefined) {
          res.ts.push(ts);
          res.fs.push(v);
        }
        continue;
      }
      if (window.length === 0) continue;
      enh.ts = ts;
      enh.out.length = 0;
      const outVec = fn(vectorVals, inMatrix, args, enh);
      ctx.totalSamples += window.length;
      const first = outVec[0];
      if (first !== undefined) {
        res.ts.push(ts);
        res.fs.push(first.f);
      }
    }
    if (res.ts.length > 0) {
      ctx.currentSamples += res.ts.length;
      out.push(res);
      ctx.checkSamples();
    }
    ctx.updatePeak();
    if (e.func === 'rate' || e.func === 'increase') {
      const name = src.labels.get('__name__');
      if (
        name !== '' &&
        res.ts.length > 0 &&
        !name.endsWith('_total') &&
        !name.endsWith('_sum') &&
        !name.endsWith('_count') &&
        !name.endsWith('_bucket')
      ) {
        ctx.info(
          `metric might not be a counter, name does not end in _total/_sum/_count/_bucket: ${goQuote(name)}`,
          argPos,
        );
      }
    }
  }
  ctx.currentSamples -= windowCount;
  ctx.currentSamples -= subquerySamples;

  if (e.func === 'absent_over_time') return absentOverTime(ev, out, arg, dropName);
  // Without delayed name removal, series whose names were just dropped must stay distinct.
  if (!delayed && containsSameLabelset(out)) throw new QueryExecutionError(SAME_LABELSET);
  return out;
}

/** absent_over_time: 1 at every step where no input series has a value. */
function absentOverTime(ev: Evaluator, mat: EMatrix, arg: Expr, dropName: boolean): EMatrix {
  const steps = ev.numSteps;
  for (const s of mat) if (s.ts.length === steps) return [];
  const found = new Set<number>();
  for (let i = 0; i < mat.length; i++) {
    for (const t of (mat[i] as ESeries).ts) found.add(t);
    if (i > 0 && found.size === steps) return [];
  }
  const ts: number[] = [];
  const fs: number[] = [];
  for (let t = ev.start; t <= ev.end; t += ev.interval) {
    if (!found.has(t)) {
      ts.push(t);
      fs.push(1);
    }
  }
  return [{ metric: createLabelsForAbsentFunction(arg), ts, fs, dropName }];
}

/** timestamp(selector): the time of the sample each series would yield, not the step time. */
function timestampOverSelector(ev: Evaluator, e: Call, vs: VectorSelector): EMatrix {
  const fn = lookup(ev, 'timestamp');
  const ctx = ev.ctx;
  const series = ev.seriesOf(vs);
  const objs: MSample[] = series.map((s) => ({ metric: s.labels, t: 0, f: 0, dropName: false }));
  const dropper = ctx.config.delayedNameRemoval ? null : new NameDropper();
  return ev.rangeEval([], (_v, _s, enh) => {
    // With `@`, Prometheus sets the offset to (step − @), which ignores any `offset` modifier.
    const ref = vs.timestamp !== undefined ? vs.timestamp : enh.ts - ev.offsetOf(vs);
    const vec: Sample[] = [];
    for (let i = 0; i < series.length; i++) {
      const t = instantSampleTime(ctx, series[i] as (typeof series)[number], ref);
      if (t === undefined) continue;
      const o = objs[i] as MSample;
      o.t = t;
      vec.push(o);
      ctx.currentSamples++;
      ctx.totalSamples++;
      ctx.checkSamples();
    }
    ctx.updatePeak();
    const res = fn([vec], [], e.args, enh);
    return dropper === null ? res : dropper.dropMarked(res);
  });
}

function stringArg(e: Call, i: number): string {
  const a = e.args[i] === undefined ? undefined : unwrapParens(e.args[i]);
  return a?.type === 'StringLiteral' ? a.val : '';
}

/**
 * label_replace / label_join operate on series, not samples: the function (from the function
 * library) relabels each series once; a relabelled `__name__` survives name dropping.
 */
function evalLabelFunction(ev: Evaluator, e: Call): EMatrix {
  const fn = lookup(ev, e.func);
  const enh = new NodeHelper(ev.ctx);
  enh.ts = ev.start;
  // Validates the regular expression and label names before the argument is evaluated.
  // One vector per argument (the function-call contract); only the first carries samples.
  const vals: Sample[][] = e.args.map(() => []);
  fn(vals, [], e.args, enh);
  const dst = stringArg(e, 1);
  // label_replace relabels only where its (fully anchored, RE2) regex matches the source.
  const matcher =
    e.func === 'label_replace' ? new Matcher('=~', stringArg(e, 3), stringArg(e, 4)) : undefined;
  const mat = ev.eval(e.args[0] as Expr);
  for (const s of mat) {
    if (matcher === undefined || matcher.matches(s.metric.get(matcher.name))) {
      enh.out = [];
      const sample: Sample = { metric: s.metric, t: ev.start, f: 0, dropName: s.dropName };
      vals[0] = [sample];
      const r = fn(vals, [], e.args, enh)[0];
      if (r !== undefined) s.metric = r.metric;
      if (dst === '__name__') s.dropName = false;
    }
  }
  return mergeSeriesWithSameLabelset(mat);
}
