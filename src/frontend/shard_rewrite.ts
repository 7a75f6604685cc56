/**
 * Which range queries the query-frontend shards, and the text of their shard sub-queries.
 *
 * Conservative by design: a query is sharded only when its top-level expression is one
 * aggregation among sum/count/min/max/avg/topk/bottomk over an expression that is
 * "series-local" — each output series comes from exactly one selected series and keeps its
 * labels (at most `__name__` dropped): selectors, `rate`-like and `*_over_time` functions
 * of a matrix selector, element-wise math functions, and arithmetic or comparisons with
 * number literals. Anything else (binary operations between selectors, label_replace,
 * nested aggregations, subqueries, absent, count_values, quantile, stddev, …) runs whole.
 *
 * With a `by`/`without` grouping the series are sharded by the grouping labels, so each
 * group is computed wholly by one shard and the shard answers are simply put together.
 * Without a grouping every label but `__name__` is hashed and the frontend re-aggregates
 * the shards' partial answers (`shard_merge.ts`); `avg` then asks each shard for `sum` and
 * `count`, and `topk`/`bottomk` ask for k+1 series.
 */
import { isValidLegacyLabelName, Matcher } from '../model/index.js';
import { exprToString } from '../promql/format/index.js';
import type { AggregateExpr, Expr, VectorSelector } from '../promql/index.js';
import { parseExpr, posRangeOf } from '../promql/parser/index.js';
import {
  formatShardSelector,
  QUERY_SHARD_LABEL,
  type ShardHashLabels,
} from '../querier/query_shard.js';

export type ShardableOp = 'sum' | 'count' | 'min' | 'max' | 'avg' | 'topk' | 'bottomk';

const SHARDABLE_OPS: ReadonlySet<string> = new Set([
  'sum',
  'count',
  'min',
  'max',
  'avg',
  'topk',
  'bottomk',
]);

/** Functions whose output series is their one vector argument's series, name dropped at most. */
const SERIES_LOCAL_FUNCTIONS: ReadonlySet<string> = new Set([
  // Range-vector functions of one matrix selector.
  'rate',
  'irate',
  'increase',
  'delta',
  'idelta',
  'deriv',
  'changes',
  'resets',
  'avg_over_time',
  'min_over_time',
  'max_over_time',
  'sum_over_time',
  'count_over_time',
  'last_over_time',
  'present_over_time',
  'stddev_over_time',
  'stdvar_over_time',
  'quantile_over_time',
  'mad_over_time',
  'predict_linear',
  'holt_winters',
  'double_exponential_smoothing',
  // Element-wise functions of an instant vector.
  'abs',
  'ceil',
  'floor',
  'round',
  'exp',
  'ln',
  'log2',
  'log10',
  'sqrt',
  'sgn',
  'clamp',
  'clamp_min',
  'clamp_max',
  'timestamp',
  'acos',
  'acosh',
  'asin',
  'asinh',
  'atan',
  'atanh',
  'cos',
  'cosh',
  'sin',
  'sinh',
  'tan',
  'tanh',
  'deg',
  'rad',
]);

/** A query the frontend shards. */
export interface ShardPlan {
  readonly op: ShardableOp;
  /** The labels the shards are chosen by. */
  readonly hashLabels: ShardHashLabels;
  /** True when the shard answers are disjoint groups (a `by`/`without` grouping). */
  readonly grouped: boolean;
  /** topk/bottomk's k (ungrouped shards are asked for k+1). */
  readonly k?: number;
  /** The sub-query text for shard `index` (0-based) of `count`, per partial aggregation. */
  readonly shardQueries: (index: number, count: number) => string[];
  /** The partial aggregations (two for an ungrouped avg), positioned in the query text. */
  readonly partials: readonly AggregateExpr[];
}

export type ShardDecision =
  | { readonly shardable: true; readonly plan: ShardPlan }
  | { readonly shardable: false; readonly reason: string };

function unparen(e: Expr): Expr {
  let x = e;
  while (x.type === 'ParenExpr' || x.type === 'StepInvariantExpr') x = x.expr;
  return x;
}

/** A number literal (possibly negated or parenthesised); undefined otherwise. */
function literalValue(e: Expr): number | undefined {
  const x = unparen(e);
  if (x.type === 'NumberLiteral') return x.val;
  if (x.type === 'UnaryExpr') {
    const v = literalValue(x.expr);
    return v === undefined ? undefined : x.op === '-' ? -v : v;
  }
  return undefined;
}

function hasShardMatcher(vs: VectorSelector): boolean {
  return vs.labelMatchers.some((m) => m.name === QUERY_SHARD_LABEL);
}

/** Why `e` is not series-local, or undefined when it is (and has a selector). */
function notSeriesLocal(e: Expr): string | undefined {
  const x = unparen(e);
  switch (x.type) {
    case 'VectorSelector':
      return hasShardMatcher(x) ? 'the query already selects a shard' : undefined;
    case 'MatrixSelector':
      return notSeriesLocal(x.vectorSelector);
    case 'UnaryExpr':
      return notSeriesLocal(x.expr);
    case 'Call': {
      if (!SERIES_LOCAL_FUNCTIONS.has(x.func)) return `function ${x.func} is not shardable`;
      const vectors = x.args.filter((a) => literalValue(a) === undefined);
      if (vectors.length !== 1) return `function ${x.func} needs literal parameters to shard`;
      return notSeriesLocal(vectors[0] as Expr);
    }
    case 'BinaryExpr': {
      if (x.op === 'and' || x.op === 'or' || x.op === 'unless') return `${x.op} is not shardable`;
      const l = literalValue(x.lhs);
      const r = literalValue(x.rhs);
      if (l !== undefined && r === undefined) return notSeriesLocal(x.rhs);
      if (r !== undefined && l === undefined) return notSeriesLocal(x.lhs);
      return 'binary operations between selectors are not shardable';
    }
    case 'SubqueryExpr':
      return 'subqueries are not sharded';
    case 'AggregateExpr':
      return 'nested aggregations are not sharded';
    default:
      return `${x.type} is not shardable`;
  }
}

function withShardMatcher(e: Expr, value: string): Expr {
  switch (e.type) {
    case 'VectorSelector':
      return {
        ...e,
        labelMatchers: [...e.labelMatchers, Matcher.equal(QUERY_SHARD_LABEL, value)],
      };
    case 'MatrixSelector':
      return { ...e, vectorSelector: withShardMatcher(e.vectorSelector, value) as VectorSelector };
    case 'ParenExpr':
    case 'UnaryExpr':
    case 'StepInvariantExpr':
      return { ...e, expr: withShardMatcher(e.expr, value) };
    case 'Call':
      return { ...e, args: e.args.map((a) => withShardMatcher(a, value)) };
    case 'BinaryExpr':
      return { ...e, lhs: withShardMatcher(e.lhs, value), rhs: withShardMatcher(e.rhs, value) };
    case 'AggregateExpr':
      return { ...e, expr: withShardMatcher(e.expr, value) };
    default:
      return e;
  }
}

/** The query text with the shard selector in every selector. */
export function shardQuery(expr: Expr, selectorValue: string): string {
  return exprToString(withShardMatcher(expr, selectorValue));
}

function hashLabelsOf(agg: AggregateExpr): ShardHashLabels | string {
  if (agg.grouping.some((n) => !isValidLegacyLabelName(n))) {
    return 'grouping labels outside the legacy name charset are not sharded';
  }
  if (agg.without) return { kind: 'without', names: agg.grouping };
  if (agg.grouping.length > 0) return { kind: 'by', names: agg.grouping };
  return { kind: 'all' };
}

export interface PlanShardingOptions {
  /**
   * Run ungrouped `sum`/`avg` whole: their re-aggregation adds floats in another order than
   * the engine, so the last bits can differ (every other sharded answer is bit-identical).
   */
  readonly exactOnly?: boolean;
}

/** Whether (and how) `query` is sharded. */
export function planSharding(query: string, options: PlanShardingOptions = {}): ShardDecision {
  let expr: Expr;
  try {
    expr = parseExpr(query);
  } catch {
    return { shardable: false, reason: 'the query does not parse' };
  }
  const top = unparen(expr);
  if (top.type !== 'AggregateExpr') return { shardable: false, reason: 'not an aggregation' };
  if (!SHARDABLE_OPS.has(top.op)) {
    return { shardable: false, reason: `aggregation ${top.op} is not shardable` };
  }
  const op = top.op as ShardableOp;
  const inner = notSeriesLocal(top.expr);
  if (inner !== undefined) return { shardable: false, reason: inner };
  const hashLabels = hashLabelsOf(top);
  if (typeof hashLabels === 'string') return { shardable: false, reason: hashLabels };
  const grouped = hashLabels.kind !== 'all';
  if (options.exactOnly === true && !grouped && (op === 'sum' || op === 'avg')) {
    return { shardable: false, reason: `ungrouped ${op} is not re-aggregated bit-exactly` };
  }
  let k: number | undefined;
  if (op === 'topk' || op === 'bottomk') {
    const v = top.param === undefined ? undefined : literalValue(top.param);
    // k outside this range is an error or an empty answer: let the querier say so.
    if (v === undefined || !(v >= 1 && v <= 1e9)) {
      return { shardable: false, reason: `${op} needs a literal k ≥ 1 to shard` };
    }
    k = Math.trunc(v);
  }
  let partials: AggregateExpr[] = [top];
  if (op === 'avg' && !grouped) {
    partials = [
      { ...top, op: 'sum' },
      { ...top, op: 'count' },
    ];
  } else if (k !== undefined && !grouped) {
    // One candidate more than k per shard shows whether a shard dropped a tie (shard_merge).
    const param = top.param as Expr;
    partials = [
      { ...top, param: { type: 'NumberLiteral', val: k + 1, posRange: posRangeOf(param) } },
    ];
  }
  const shardQueries = (index: number, count: number): string[] => {
    const value = formatShardSelector({ index, count, labels: hashLabels });
    return partials.map((p) => shardQuery(p, value));
  };
  return {
    shardable: true,
    plan: { op, hashLabels, grouped, ...(k === undefined ? {} : { k }), shardQueries, partials },
  };
}
