// The evaluator (Prometheus promql/engine.go `evaluator`): evaluates an expression over the
// fixed steps start, start+interval, … ≤ end, every node producing a matrix with at most one
// point per step. Instant queries are one-step range evaluations (interval 1). Subqueries
// and step-invariant subtrees get a child evaluator over their own steps sharing the query's
// context (limits, counters, loaded series, annotations).
import {
  compareGoStrings,
  formatFloatF,
  goQuote,
  isValidLabelName,
  Labels,
} from '../../model/index.js';
import { PromQLError, QueryExecutionError } from '../errors.js';
import type { EvalNodeHelper } from '../function_call.js';
import type {
  AggregateExpr,
  BinaryExpr,
  Expr,
  SubqueryExpr,
  TimeModifiers,
  VectorMatching,
  VectorSelector,
} from '../parser/ast.js';
import { exprType, unwrapParens } from '../parser/index.js';
import type { Sample, Vector } from '../value.js';
import {
  FParams,
  groupingKey,
  groupingLabels,
  hashRatioOffset,
  rangeEvalAgg,
} from './aggregation.js';
import {
  scalarBinop,
  signatureFunction,
  vectorAnd,
  vectorBinop,
  vectorOr,
  vectorScalarBinop,
  vectorUnless,
  newBinopCache,
} from './binary.js';
import { evalCall } from './calls.js';
import type { LoadedSeries, QueryContext } from './context.js';
import { mergeSeriesWithSameLabelset } from './merge.js';
import { evalInstantSelector, rangePoints, upperBoundFrom } from './selectors.js';
import type { EMatrix, ESeries, MSample } from './types.js';
import { containsSameLabelset, dropMetadataLabels, NameDropper, SAME_LABELSET } from './util.js';

/** Key under which functions find the `line:col` formatter in `enh.cache`. */
const POSITION_FORMATTER_KEY = 'positionFormatter';

/** The per-node helper handed to functions (Prometheus EvalNodeHelper). */
export class NodeHelper implements EvalNodeHelper {
  ts = 0;
  out: Vector = [];
  readonly cache = new Map<string, unknown>();
  constructor(readonly ctx: QueryContext) {
    this.cache.set(POSITION_FORMATTER_KEY, ctx.formatPosition);
  }
  get annotations(): QueryContext['config']['annotations'] {
    return this.ctx.config.annotations;
  }
}

/** One step's function: input vectors (and their join-signature ordinals) → output vector. */
export type StepFunction = (
  vectors: readonly Sample[][],
  sigs: readonly number[][],
  enh: NodeHelper,
  numSigs: number,
) => Sample[];

export class Evaluator {
  constructor(
    readonly ctx: QueryContext,
    readonly start: number,
    readonly end: number,
    readonly interval: number,
  ) {}

  get numSteps(): number {
    return Math.floor((this.end - this.start) / this.interval) + 1;
  }

  /** The offset a selector or subquery is evaluated with (its `@` folded in w.r.t. our start). */
  offsetOf(n: TimeModifiers): number {
    return n.timestamp === undefined
      ? n.originalOffset
      : n.originalOffset + this.start - n.timestamp;
  }

  eval(e: Expr): EMatrix {
    this.ctx.checkDone();
    if (this.end < this.start) return [];
    switch (e.type) {
      case 'AggregateExpr':
        return this.evalAggregate(e);
      case 'Call':
        return evalCall(this, e);
      case 'ParenExpr':
        return this.eval(e.expr);
      case 'UnaryExpr': {
        const mat = this.eval(e.expr);
        if (e.op !== '-') return mat;
        const delayed = this.ctx.config.delayedNameRemoval;
        for (const s of mat) {
          if (!delayed) s.metric = dropMetadataLabels(s.metric);
          s.dropName = true;
          for (let i = 0; i < s.fs.length; i++) s.fs[i] = -(s.fs[i] as number);
        }
        return delayed ? mat : mergeSeriesWithSameLabelset(mat);
      }
      case 'BinaryExpr':
        return this.evalBinary(e);
      case 'NumberLiteral': {
        const ts: number[] = [];
        const fs: number[] = [];
        for (let t = this.start; t <= this.end; t += this.interval) {
          ts.push(t);
          fs.push(e.val);
        }
        this.ctx.currentSamples += ts.length;
        this.ctx.updatePeak();
        this.ctx.checkSamples();
        return [{ metric: Labels.EMPTY, ts, fs, dropName: false }];
      }
      case 'StringLiteral':
        throw new PromQLError('internal', 'unexpected string literal in a numeric context');
      case 'VectorSelector':
        return evalInstantSelector(
          this.ctx,
          this.seriesOf(e),
          this.offsetOf(e),
          this.start,
          this.end,
          this.interval,
        );
      case 'MatrixSelector':
        if (this.start !== this.end) {
          throw new PromQLError('internal', 'cannot do range evaluation of matrix selector');
        }
        return this.matrixSelector(e.vectorSelector, e.range);
      case 'SubqueryExpr':
        return this.evalSubquery(e);
      case 'StepInvariantExpr':
        return this.evalStepInvariant(e.expr);
    }
  }

  seriesOf(vs: VectorSelector): LoadedSeries[] {
    const s = this.ctx.series.get(vs);
    if (s === undefined) throw new PromQLError('internal', 'selector was not populated');
    return s;
  }

  /** A range selector at the (single) evaluation time: points in (t − offset − range, t − offset]. */
  matrixSelector(vs: VectorSelector, range: number): EMatrix {
    const maxt = this.start - this.offsetOf(vs);
    const mint = maxt - range;
    const out: EMatrix = [];
    for (const ls of this.seriesOf(vs)) {
      this.ctx.checkDone();
      const p = rangePoints(ls);
      const lo = upperBoundFrom(p.ts, mint, 0);
      const hi = upperBoundFrom(p.ts, maxt, lo);
      if (hi <= lo) continue;
      this.ctx.currentSamples += hi - lo;
      this.ctx.totalSamples += hi - lo;
      this.ctx.checkSamples();
      out.push({
        metric: ls.labels,
        ts: Array.from(p.ts.subarray(lo, hi)),
        fs: Array.from(p.fs.subarray(lo, hi)),
        dropName: false,
      });
    }
    this.ctx.updatePeak();
    return out;
  }

  /** Evaluates a subquery's inner expression over its own, step-aligned evaluator. */
  evalSubquery(e: SubqueryExpr): EMatrix {
    const offset = this.offsetOf(e);
    const interval = e.step !== 0 ? e.step : this.ctx.config.noStepSubqueryIntervalFn(e.range);
    if (!(interval > 0)) {
      throw new PromQLError('bad_data', `invalid subquery step ${interval}ms: must be positive`);
    }
    // The first timestamp after (start − offset − range) that is a multiple of the step, with
    // Go's integer division (truncation towards zero).
    const from = this.start - offset - e.range;
    let start = interval * Math.trunc(from / interval);
    if (start <= from) start += interval;
    const child = new Evaluator(this.ctx, start, this.end - offset, interval);
    return child.eval(e.expr);
  }

  private evalStepInvariant(inner: Expr): EMatrix {
    const child = new Evaluator(this.ctx, this.start, this.start, this.interval);
    const totalBefore = this.ctx.totalSamples;
    const mat = child.eval(inner);
    // Prometheus counts the subtree's samples once for every step it stands for.
    this.ctx.totalSamples = totalBefore + (this.ctx.totalSamples - totalBefore) * this.numSteps;
    const bare = unwrapParens(inner);
    if (bare.type === 'MatrixSelector' || bare.type === 'SubqueryExpr') return mat;
    if (this.start === this.end) return mat;
    for (const s of mat) {
      if (s.ts.length !== 1) throw new PromQLError('internal', 'unexpected number of samples');
      const f = s.fs[0] as number;
      for (let t = this.start + this.interval; t <= this.end; t += this.interval) {
        s.ts.push(t);
        s.fs.push(f);
        this.ctx.currentSamples++;
        this.ctx.checkSamples();
      }
    }
    this.ctx.updatePeak();
    return mat;
  }

  /**
   * Evaluates `exprs` (string arguments are skipped) and calls `fn` once per step with the
   * samples of each at that step, assembling the outputs into series (Prometheus rangeEval).
   */
  rangeEval(exprs: readonly Expr[], fn: StepFunction, matching?: VectorMatching): EMatrix {
    const ctx = this.ctx;
    const originalNumSamples = ctx.currentSamples;
    const matrixes: EMatrix[] = exprs.map((e) => (exprType(e) === 'string' ? [] : this.eval(e)));

    // Join signatures per input series, as ordinals shared by both sides.
    let seriesSigs: number[][] | null = null;
    let numSigs = 0;
    if (matching !== undefined) {
      const sigf = signatureFunction(matching);
      const ordinals = new Map<string, number>();
      seriesSigs = matrixes.map((m) =>
        m.map((s) => {
          const sig = sigf(s.metric);
          let o = ordinals.get(sig);
          if (o === undefined) {
            o = numSigs++;
            ordinals.set(sig, o);
          }
          return o;
        }),
      );
    }

    const cursors = matrixes.map((m) => new Int32Array(m.length));
    const reuse: (MSample | undefined)[][] = matrixes.map(
      (m) => new Array<MSample | undefined>(m.length),
    );
    const vectors: Sample[][] = matrixes.map(() => []);
    const sigs: number[][] = matrixes.map(() => []);
    const enh = new NodeHelper(ctx);
    const output = new Map<string, { s: ESeries; last: number }>();
    const byObject = new Map<Labels, { s: ESeries; last: number }>();
    const order: ESeries[] = [];
    let tempNumSamples = ctx.currentSamples;

    for (let ts = this.start; ts <= this.end; ts += this.interval) {
      ctx.checkDone();
      ctx.currentSamples = tempNumSamples;
      for (let i = 0; i < matrixes.length; i++) {
        const m = matrixes[i] as EMatrix;
        const cur = cursors[i] as Int32Array;
        const vec = vectors[i] as Sample[];
        const sig = sigs[i] as number[];
        const objs = reuse[i] as (MSample | undefined)[];
        vec.length = 0;
        sig.length = 0;
        for (let si = 0; si < m.length; si++) {
          const s = m[si] as ESeries;
          const c = cur[si] as number;
          if (c >= s.ts.length || s.ts[c] !== ts) continue;
          cur[si] = c + 1;
          let o = objs[si];
          if (o === undefined) {
            o = { metric: s.metric, t: ts, f: 0, dropName: s.dropName };
            objs[si] = o;
          }
          o.t = ts;
          o.f = s.fs[c] as number;
          o.metric = s.metric;
          o.dropName = s.dropName;
          vec.push(o);
          if (seriesSigs !== null) sig.push((seriesSigs[i] as number[])[si] as number);
          ctx.currentSamples++;
          ctx.checkSamples();
        }
      }
      ctx.updatePeak();

      enh.ts = ts;
      const result = fn(vectors, sigs, enh, numSigs);
      ctx.currentSamples += result.length;
      tempNumSamples += result.length;
      ctx.updatePeak();
      ctx.checkSamples();

      if (this.start === this.end) {
        if (!ctx.config.delayedNameRemoval && containsSameLabelset(result)) {
          throw new QueryExecutionError(SAME_LABELSET);
        }
        const mat: EMatrix = result.map((s) => ({
          metric: s.metric,
          ts: [ts],
          fs: [s.f],
          dropName: s.dropName === true,
        }));
        ctx.currentSamples = originalNumSamples + mat.length;
        ctx.updatePeak();
        return mat;
      }

      for (const sample of result) {
        // Most outputs reuse their series' Labels object step after step: look that up first.
        let entry = byObject.get(sample.metric);
        if (entry === undefined) {
          entry = output.get(sample.metric.key());
          if (entry !== undefined) byObject.set(sample.metric, entry);
        }
        if (entry !== undefined) {
          if (entry.last === ts) {
            throw new QueryExecutionError(SAME_LABELSET);
          }
          entry.last = ts;
        } else {
          entry = {
            s: { metric: sample.metric, ts: [], fs: [], dropName: sample.dropName === true },
            last: ts,
          };
          output.set(sample.metric.key(), entry);
          byObject.set(sample.metric, entry);
          order.push(entry.s);
        }
        entry.s.ts.push(ts);
        entry.s.fs.push(sample.f);
      }
      // Hand the output buffer back for reuse unless the function returned an input vector.
      enh.out = vectors.includes(result) ? [] : result;
      enh.out.length = 0;
    }
    let total = 0;
    for (const s of order) total += s.ts.length;
    ctx.currentSamples = originalNumSamples + total;
    ctx.updatePeak();
    return order;
  }

  private evalBinary(e: BinaryExpr): EMatrix {
    const lt = exprType(e.lhs);
    const rt = exprType(e.rhs);
    const op = e.op;
    const delayed = this.ctx.config.delayedNameRemoval;
    const dropper = delayed ? null : new NameDropper();
    if (lt === 'scalar' && rt === 'scalar') {
      return this.rangeEval([e.lhs, e.rhs], (v, _s, enh) => {
        const l = (v[0] as Sample[])[0];
        const r = (v[1] as Sample[])[0];
        if (l === undefined || r === undefined) return enh.out;
        enh.out.push({ metric: Labels.EMPTY, t: enh.ts, f: scalarBinop(op, l.f, r.f) });
        return enh.out;
      });
    }
    if (lt === 'vector' && rt === 'vector') {
      const matching: VectorMatching = e.vectorMatching ?? {
        card: op === 'and' || op === 'or' || op === 'unless' ? 'many-to-many' : 'one-to-one',
        matchingLabels: [],
        on: false,
        include: [],
      };
      const cache = newBinopCache();
      return this.rangeEval(
        [e.lhs, e.rhs],
        (v, sigs, enh, numSigs) => {
          const l = v[0] as Sample[];
          const r = v[1] as Sample[];
          const ls = sigs[0] as number[];
          const rs = sigs[1] as number[];
          switch (op) {
            case 'and':
              return vectorAnd(l, r, ls, rs, numSigs, enh.out);
            case 'or':
              return vectorOr(l, r, ls, rs, numSigs, enh.out);
            case 'unless':
              return vectorUnless(l, r, ls, rs, numSigs, enh.out);
            default:
              return vectorBinop(op, l, r, matching, e.returnBool, delayed, ls, rs, cache, enh.out);
          }
        },
        matching,
      );
    }
    if (lt === 'vector' && rt === 'scalar') {
      return this.rangeEval([e.lhs, e.rhs], (v, _s, enh) => {
        const s = (v[1] as Sample[])[0];
        if (s === undefined) return enh.out;
        return vectorScalarBinop(op, v[0] as Sample[], s.f, false, e.returnBool, dropper, enh.out);
      });
    }
    if (lt === 'scalar' && rt === 'vector') {
      return this.rangeEval([e.lhs, e.rhs], (v, _s, enh) => {
        const s = (v[0] as Sample[])[0];
        if (s === undefined) return enh.out;
        return vectorScalarBinop(op, v[1] as Sample[], s.f, true, e.returnBool, dropper, enh.out);
      });
    }
    throw new PromQLError('internal', `unexpected operand types ${lt} and ${rt} of ${op}`);
  }

  private evalAggregate(e: AggregateExpr): EMatrix {
    const ctx = this.ctx;
    const sortedGrouping = [...e.grouping].sort(compareGoStrings);
    if (e.op === 'count_values') {
      const param = e.param === undefined ? undefined : unwrapParens(e.param);
      if (param?.type !== 'StringLiteral') {
        throw new PromQLError('internal', 'count_values needs a string parameter');
      }
      const valueLabel = param.val;
      if (!isValidLabelName(valueLabel)) {
        throw new QueryExecutionError(`invalid label name ${goQuote(valueLabel)}`);
      }
      if (!e.without) {
        sortedGrouping.push(valueLabel);
        sortedGrouping.sort(compareGoStrings);
      }
      const set = new Set(sortedGrouping);
      return this.rangeEval([e.expr], (v, _s, enh) => {
        const groups = new Map<string, { labels: Labels; count: number }>();
        for (const s of v[0] as Sample[]) {
          const metric = setLabelValue(s.metric, valueLabel, formatFloatF(s.f));
          const key = groupingKey(metric, e.without, set);
          const g = groups.get(key);
          if (g === undefined) {
            groups.set(key, {
              labels: groupingLabels(metric, e.without, sortedGrouping),
              count: 1,
            });
          } else g.count++;
        }
        for (const g of groups.values()) enh.out.push({ metric: g.labels, t: enh.ts, f: g.count });
        return enh.out;
      });
    }

    const originalNumSamples = ctx.currentSamples;
    let params = new FParams(undefined, false);
    if (e.param !== undefined) {
      const p = unwrapParens(e.param);
      const mat = this.eval(p);
      params = new FParams(mat[0]?.fs, p.type === 'NumberLiteral');
    }
    const input = this.eval(e.expr);
    const result = rangeEvalAgg(ctx, this, e, sortedGrouping, input, params, hashRatioOffset);
    let total = 0;
    for (const s of result) total += s.ts.length;
    ctx.currentSamples = originalNumSamples + total;
    ctx.updatePeak();
    return result;
  }
}

/** Builder.Set for count_values (the value label is never empty). */
function setLabelValue(l: Labels, name: string, value: string): Labels {
  const pairs: [string, string][] = [];
  l.forEach((n, v) => {
    if (n !== name) pairs.push([n, v]);
  });
  pairs.push([name, value]);
  return Labels.fromPairs(pairs);
}
