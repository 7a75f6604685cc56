// Aggregation operators over all steps at once (Prometheus rangeEvalAgg, aggregation,
// aggregationK, aggregationCountValues): series are mapped to groups once, then each step
// folds the samples present at that step. sum and avg use Kahan–Neumaier summation, avg
// switches to an incremental mean when the running sum would overflow, topk/bottomk keep a
// binary heap ordered exactly like Go's container/heap so ties resolve the same way.
import { formatFloatG, Labels } from '../../model/index.js';
import { QueryExecutionError } from '../errors.js';
import { kahanInc, quantile } from '../functions/index.js';
import type { AggregateExpr } from '../parser/ast.js';
import { posRangeOf } from '../parser/index.js';
import type { Sample } from '../value.js';
import type { QueryContext } from './context.js';
import { byReverseValue, byValue, heapFix, heapPush } from './heap.js';
import type { EMatrix, ESeries } from './types.js';
import { keepLabels } from './util.js';

/** The largest float64 that converts to int64 without overflow, and the smallest. */
const MAX_INT64 = 9223372036854774784;
const MIN_INT64 = -9223372036854775808;

/** The parameter of topk/quantile/…: one value per step (Prometheus fParams). */
export class FParams {
  private i = 0;
  readonly min: number;
  readonly max: number;
  readonly hasNaN: boolean;

  constructor(
    private readonly values: readonly number[] | undefined,
    private readonly constant: boolean,
  ) {
    if (values === undefined || values.length === 0) {
      this.min = 0;
      this.max = 0;
      this.hasNaN = false;
      return;
    }
    let min = Number.MAX_VALUE;
    let max = -Number.MAX_VALUE;
    let nan = false;
    for (const v of values) {
      min = Math.min(min, v);
      max = Math.max(max, v);
      if (Number.isNaN(v)) nan = true;
    }
    this.min = min;
    this.max = max;
    this.hasNaN = nan;
  }

  private last = 0;

  next(): number {
    const v = this.values;
    if (v === undefined || v.length === 0) return this.last;
    if (this.constant) return v[0] as number;
    if (this.i < v.length) this.last = v[this.i++] as number;
    return this.last;
  }
}

/** Labels of a group: `by` keeps the grouping labels, `without` drops them and the name. */
export function groupingLabels(
  metric: Labels,
  without: boolean,
  grouping: readonly string[],
): Labels {
  if (without) return metric.without('__name__', ...grouping);
  if (grouping.length === 0) return Labels.EMPTY;
  return keepLabels(metric, grouping);
}

/** Grouping key: the labels a group is defined by (`without` also ignores the name). */
export function groupingKey(
  metric: Labels,
  without: boolean,
  grouping: ReadonlySet<string>,
): string {
  let k = '';
  if (without) {
    metric.forEach((n, v) => {
      if (n !== '__name__' && !grouping.has(n)) k += n + '\xff' + v + '\xff';
    });
  } else {
    // Looked up name by name: a set not split yet (a select's, on the evaluation thread) is
    // walked, not split; every series of one aggregation is keyed in the set's order.
    for (const n of grouping) {
      const v = metric.find(n);
      if (v !== undefined) k += n + '\xff' + v + '\xff';
    }
  }
  return k;
}

interface Group {
  seen: boolean;
  floatValue: number;
  floatMean: number;
  kahanC: number;
  groupCount: number;
  incrementalMean: boolean;
  dropName: boolean;
  values: number[];
  heap: Sample[];
  complete: boolean;
}

function newGroup(): Group {
  return {
    seen: false,
    floatValue: 0,
    floatMean: 0,
    kahanC: 0,
    groupCount: 0,
    incrementalMean: false,
    dropName: false,
    values: [],
    heap: [],
    complete: false,
  };
}

export interface AggregationStepper {
  readonly start: number;
  readonly end: number;
  readonly interval: number;
}

/**
 * Evaluates a non-count_values aggregation over `input` (already evaluated over all steps).
 * `limitRatioOffset` gives limit_ratio's deterministic per-series offset in [0, 1).
 */
export function rangeEvalAgg(
  ctx: QueryContext,
  ev: AggregationStepper,
  e: AggregateExpr,
  sortedGrouping: readonly string[],
  input: EMatrix,
  params: FParams,
  limitRatioOffset: (l: Labels) => number,
): EMatrix {
  const op = e.op;
  const isK = op === 'topk' || op === 'bottomk' || op === 'limitk' || op === 'limit_ratio';
  const groupingSet = new Set(sortedGrouping);
  const groupIndex = new Map<string, number>();
  const seriesToGroup = new Int32Array(input.length);
  const result: EMatrix = [];
  for (let si = 0; si < input.length; si++) {
    const s = input[si] as ESeries;
    const key = groupingKey(s.metric, e.without, groupingSet);
    let idx = groupIndex.get(key);
    if (idx === undefined) {
      idx = groupIndex.size;
      groupIndex.set(key, idx);
      if (!isK) {
        result.push({
          metric: groupingLabels(s.metric, e.without, sortedGrouping),
          ts: [],
          fs: [],
          dropName: false,
        });
      }
    }
    seriesToGroup[si] = idx;
  }
  const groups: Group[] = [];
  for (let i = 0; i < groupIndex.size; i++) groups.push(newGroup());

  const paramPos = e.param === undefined ? posRangeOf(e.expr) : posRangeOf(e.param);
  if (op === 'topk' || op === 'bottomk' || op === 'limitk') {
    if (params.max < 1) return [];
    if (params.hasNaN) throw new QueryExecutionError('Parameter value is NaN');
    if (params.min <= MIN_INT64) {
      throw new QueryExecutionError(`Scalar value ${formatFloatG(params.min)} underflows int64`);
    }
    if (params.max >= MAX_INT64) {
      throw new QueryExecutionError(`Scalar value ${formatFloatG(params.max)} overflows int64`);
    }
  } else if (op === 'limit_ratio') {
    if (params.max === 0 && params.min === 0) return [];
    if (params.hasNaN) throw new QueryExecutionError('Ratio value is NaN');
    if (params.max > 1) {
      ctx.warn(
        `ratio value should be between -1 and 1, got ${formatFloatG(params.max)}, capping to 1`,
        paramPos,
      );
    }
    if (params.min < -1) {
      ctx.warn(
        `ratio value should be between -1 and 1, got ${formatFloatG(params.min)}, capping to -1`,
        paramPos,
      );
    }
  } else if (op === 'quantile') {
    const w = (q: number): void =>
      ctx.warn(`quantile value should be between 0 and 1, got ${formatFloatG(q)}`, paramPos);
    if (params.hasNaN) w(NaN);
    if (params.max > 1) w(params.max);
    if (params.min < 0) w(params.min);
  }

  const cursors = new Int32Array(input.length);
  const kSeries = new Map<string, ESeries>();
  const tempNumSamples = ctx.currentSamples;
  for (let ts = ev.start; ts <= ev.end; ts += ev.interval) {
    const fParam = params.next();
    ctx.checkDone();
    ctx.currentSamples = tempNumSamples;
    if (isK) {
      const r = aggregationK(
        ctx,
        ev,
        op,
        fParam,
        input,
        cursors,
        seriesToGroup,
        groups,
        ts,
        limitRatioOffset,
        kSeries,
      );
      if (ev.start === ev.end) return r;
    } else {
      aggregation(op, fParam, input, cursors, result, seriesToGroup, groups, ts);
    }
    ctx.checkSamples();
  }
  if (isK) return [...kSeries.values()];
  return result.filter((s) => s.ts.length > 0);
}

/** Advances series `si` to `ts`; the value at `ts` or undefined. */
function nextValue(s: ESeries, cursors: Int32Array, si: number, ts: number): number | undefined {
  const c = cursors[si] as number;
  if (c < s.ts.length && s.ts[c] === ts) {
    cursors[si] = c + 1;
    return s.fs[c];
  }
  return undefined;
}

function aggregation(
  op: AggregateExpr['op'],
  q: number,
  input: EMatrix,
  cursors: Int32Array,
  output: EMatrix,
  seriesToGroup: Int32Array,
  groups: Group[],
  ts: number,
): void {
  for (const g of groups) g.seen = false;
  for (let si = 0; si < input.length; si++) {
    const s = input[si] as ESeries;
    const f = nextValue(s, cursors, si, ts);
    if (f === undefined) continue;
    const g = groups[seriesToGroup[si] as number] as Group;
    if (!g.seen) {
      g.seen = true;
      g.floatValue = f;
      g.floatMean = f;
      g.kahanC = 0;
      g.groupCount = 1;
      g.incrementalMean = false;
      g.dropName = s.dropName;
      if (op === 'stddev' || op === 'stdvar') g.floatValue = Number.isFinite(f) ? 0 : NaN;
      else if (op === 'quantile') g.values = [f];
      else if (op === 'group') g.floatValue = 1;
      continue;
    }
    if (s.dropName) g.dropName = true;
    switch (op) {
      case 'sum':
        [g.floatValue, g.kahanC] = kahanInc(f, g.floatValue, g.kahanC);
        break;
      case 'avg': {
        g.groupCount++;
        if (!g.incrementalMean) {
          const [nv, nc] = kahanInc(f, g.floatValue, g.kahanC);
          if (Number.isFinite(nv) || Number.isNaN(nv)) {
            g.floatValue = nv;
            g.kahanC = nc;
            break;
          }
          // The direct sum would overflow: continue with an incremental mean.
          g.incrementalMean = true;
          g.floatMean = g.floatValue / (g.groupCount - 1);
          g.kahanC /= g.groupCount - 1;
        }
        const r = (g.groupCount - 1) / g.groupCount;
        [g.floatMean, g.kahanC] = kahanInc(f / g.groupCount, r * g.floatMean, r * g.kahanC);
        break;
      }
      case 'group':
        break;
      case 'max':
        if (g.floatValue < f || Number.isNaN(g.floatValue)) g.floatValue = f;
        break;
      case 'min':
        if (g.floatValue > f || Number.isNaN(g.floatValue)) g.floatValue = f;
        break;
      case 'count':
        g.groupCount++;
        break;
      case 'stddev':
      case 'stdvar': {
        g.groupCount++;
        const delta = f - g.floatMean;
        g.floatMean += delta / g.groupCount;
        g.floatValue += delta * (f - g.floatMean);
        break;
      }
      case 'quantile':
        g.values.push(f);
        break;
      default:
        throw new QueryExecutionError(`expected aggregation operator but got "${op}"`);
    }
  }
  for (let ri = 0; ri < groups.length; ri++) {
    const g = groups[ri] as Group;
    if (!g.seen) continue;
    let v = g.floatValue;
    switch (op) {
      case 'avg':
        v = g.incrementalMean
          ? g.floatMean + g.kahanC
          : g.floatValue / g.groupCount + g.kahanC / g.groupCount;
        break;
      case 'count':
        v = g.groupCount;
        break;
      case 'stdvar':
        v = g.floatValue / g.groupCount;
        break;
      case 'stddev':
        v = Math.sqrt(g.floatValue / g.groupCount);
        break;
      case 'quantile':
        v = quantile(q, g.values);
        break;
      case 'sum':
        v = g.floatValue + g.kahanC;
        break;
      default:
        break;
    }
    const out = output[ri] as ESeries;
    out.ts.push(ts);
    out.fs.push(v);
    out.dropName = g.dropName;
  }
}

function aggregationK(
  ctx: QueryContext,
  ev: AggregationStepper,
  op: AggregateExpr['op'],
  fParam: number,
  input: EMatrix,
  cursors: Int32Array,
  seriesToGroup: Int32Array,
  groups: Group[],
  ts: number,
  limitRatioOffset: (l: Labels) => number,
  kSeries: Map<string, ESeries>,
): EMatrix {
  let groupsRemaining = groups.length;
  for (const g of groups) g.seen = false;
  const advanceRemaining = (from: number): void => {
    for (let i = from; i < input.length; i++) nextValue(input[i] as ESeries, cursors, i, ts);
  };
  let k = 0;
  let r = 0;
  for (let si = 0; si < input.length; si++) {
    const series = input[si] as ESeries;
    const f = nextValue(series, cursors, si, ts);
    if (f === undefined) continue;
    const s: Sample = { metric: series.metric, t: ts, f, dropName: series.dropName };
    if (op === 'limit_ratio') {
      if (fParam === 0) {
        if (ts !== ev.end) advanceRemaining(si + 1);
        return [];
      }
      r = fParam < -1 ? -1 : fParam > 1 ? 1 : fParam;
    } else {
      k = Math.min(Math.trunc(fParam), input.length);
      if (k < 1) {
        if (ts !== ev.end) advanceRemaining(si + 1);
        return [];
      }
    }
    const g = groups[seriesToGroup[si] as number] as Group;
    if (!g.seen) {
      g.seen = true;
      g.complete = false;
      g.heap = [];
      if (op === 'limit_ratio') {
        if (addRatioSample(r, limitRatioOffset(s.metric))) heapPush(g.heap, s, byValue);
      } else if (op === 'bottomk') {
        heapPush(g.heap, s, byReverseValue);
      } else {
        heapPush(g.heap, s, byValue);
      }
      // Like Prometheus, a group's first sample does not count towards limitk's completion.
      continue;
    }
    switch (op) {
      case 'topk':
        if (g.heap.length < k) heapPush(g.heap, s, byValue);
        else {
          const top = g.heap[0] as Sample;
          if (top.f < s.f || (Number.isNaN(top.f) && !Number.isNaN(s.f))) {
            g.heap[0] = s;
            if (k > 1) heapFix(g.heap, 0, byValue);
          }
        }
        break;
      case 'bottomk':
        if (g.heap.length < k) heapPush(g.heap, s, byReverseValue);
        else {
          const top = g.heap[0] as Sample;
          if (top.f > s.f || (Number.isNaN(top.f) && !Number.isNaN(s.f))) {
            g.heap[0] = s;
            if (k > 1) heapFix(g.heap, 0, byReverseValue);
          }
        }
        break;
      case 'limitk':
        if (g.heap.length < k) heapPush(g.heap, s, byValue);
        if (!g.complete && g.heap.length === k) {
          g.complete = true;
          groupsRemaining--;
          if (groupsRemaining === 0) {
            if (ts !== ev.end) advanceRemaining(si + 1);
            si = input.length;
          }
        }
        break;
      case 'limit_ratio':
        if (addRatioSample(r, limitRatioOffset(s.metric))) heapPush(g.heap, s, byValue);
        break;
      default:
        throw new QueryExecutionError(`expected aggregation operator but got "${op}"`);
    }
  }

  const instant = ev.start === ev.end;
  const mat: EMatrix = [];
  const add = (s: Sample): void => {
    if (instant) {
      mat.push({ metric: s.metric, ts: [ts], fs: [s.f], dropName: s.dropName === true });
      return;
    }
    const key = s.metric.key();
    let out = kSeries.get(key);
    if (out === undefined) {
      out = { metric: s.metric, ts: [], fs: [], dropName: s.dropName === true };
      kSeries.set(key, out);
    }
    out.ts.push(ts);
    out.fs.push(s.f);
  };
  for (const g of groups) {
    if (!g.seen) continue;
    if (op === 'topk') {
      // Sorted descending, NaN last: Go's sort.Reverse of the NaN-first ascending order.
      const h = [...g.heap].sort((a, b) => (byValue(b, a) ? -1 : byValue(a, b) ? 1 : 0));
      for (const s of h) add(s);
    } else if (op === 'bottomk') {
      const h = [...g.heap].sort((a, b) =>
        byReverseValue(b, a) ? -1 : byReverseValue(a, b) ? 1 : 0,
      );
      for (const s of h) add(s);
    } else {
      for (const s of g.heap) add(s);
    }
  }
  return mat;
}

/** Prometheus HashRatioSampler.AddRatioSampleWithOffset. */
function addRatioSample(ratioLimit: number, offset: number): boolean {
  return (ratioLimit >= 0 && offset < ratioLimit) || (ratioLimit < 0 && offset >= 1 + ratioLimit);
}

/** Prometheus HashRatioSampler.SampleOffset: the label set's hash as a fraction of 2^64 − 1. */
export function hashRatioOffset(l: Labels): number {
  // float64(math.MaxUint64) is 2^64.
  return Number(l.hash()) / 2 ** 64;
}
