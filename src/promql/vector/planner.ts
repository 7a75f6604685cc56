// Builds the physical plan: one operator per AST node the vectorised engine handles
// (selectors, range functions over selectors, element-wise functions, aggregations, binary
// operators, unary minus, literals, parentheses, step-invariant subtrees); every other node
// becomes a FallbackOperator evaluated by the default engine, and is recorded so the query
// stats can say which nodes fell back.
import { exprType } from '../engine/index.js';
import { isRangeFunction } from '../functions/index.js';
import { exprToString } from '../format/index.js';
import type { FunctionCall } from '../function_call.js';
import type {
  AggregateExpr,
  BinaryExpr,
  Call,
  Expr,
  SubqueryExpr,
  VectorMatching,
} from '../parser/index.js';
import { AggregateOperator, COLUMN_AGGREGATIONS } from './aggregate.js';
import { makeGrid, type StepGrid, type VectorOperator } from './batch.js';
import {
  ScalarBinaryOperator,
  SetOperator,
  VectorBinaryOperator,
  VectorScalarOperator,
} from './binary.js';
import { FallbackOperator } from './fallback.js';
import { GROUPING_FUNCTIONS, GroupingFunctionOperator } from './grouping_function.js';
import { effectiveOffset, type PlanContext } from './plan_context.js';
import { RangeFunctionOperator, type RangeInput } from './range_function.js';
import { VectorSelectorOperator } from './selector.js';
import { SORT_BY_VALUE, SortOperator } from './sort.js';
import { TopKOperator } from './topk.js';
import {
  ConstantOperator,
  ElementwiseOperator,
  NegateOperator,
  SingleOutputFunctionOperator,
  StepInvariantOperator,
} from './simple.js';

/** Functions whose output series are their first argument's, value by value. */
const ELEMENTWISE_FUNCTIONS: ReadonlySet<string> = new Set([
  'abs',
  'acos',
  'acosh',
  'asin',
  'asinh',
  'atan',
  'atanh',
  'ceil',
  'clamp',
  'clamp_max',
  'clamp_min',
  'cos',
  'cosh',
  'day_of_month',
  'day_of_week',
  'day_of_year',
  'days_in_month',
  'deg',
  'exp',
  'floor',
  'hour',
  'ln',
  'log10',
  'log2',
  'minute',
  'month',
  'rad',
  'round',
  'sgn',
  'sin',
  'sinh',
  'sqrt',
  'tan',
  'tanh',
  'year',
]);

/** Functions with at most one label-less output sample per step. */
const SINGLE_OUTPUT_FUNCTIONS: ReadonlySet<string> = new Set(['time', 'scalar', 'vector', 'pi']);

function unwrapParens(e: Expr): Expr {
  let cur = e;
  while (cur.type === 'ParenExpr') cur = cur.expr;
  return cur;
}

/** The value of a constant numeric parameter (`0.9`, `-1`, `(0.5)`), or undefined. */
function constantParam(e: Expr): number | undefined {
  const p = unwrapParens(e.type === 'StepInvariantExpr' ? e.expr : e);
  if (p.type === 'NumberLiteral') return p.val;
  if (p.type === 'UnaryExpr') {
    const v = constantParam(p.expr);
    return v === undefined ? undefined : p.op === '-' ? -v : v;
  }
  return undefined;
}

export class Planner {
  /** Nodes evaluated by the default engine, in plan order. */
  readonly fallbacks: Expr[] = [];
  /** The node whose output order does not matter (the final result is sorted by labels). */
  private root: Expr | undefined;

  constructor(
    private readonly pc: PlanContext,
    private readonly functions: ReadonlyMap<string, FunctionCall>,
  ) {}

  /** Plans the whole query. */
  planRoot(e: Expr, grid: StepGrid): VectorOperator {
    let r = e;
    while (r.type === 'ParenExpr' || r.type === 'UnaryExpr') r = r.expr;
    this.root = r;
    return this.plan(e, grid);
  }

  plan(e: Expr, grid: StepGrid): VectorOperator {
    switch (e.type) {
      case 'ParenExpr':
        return this.plan(e.expr, grid);
      case 'NumberLiteral':
        return new ConstantOperator(e.val, grid, this.pc.batchSize);
      case 'VectorSelector':
        return new VectorSelectorOperator(e, grid, this.pc);
      case 'UnaryExpr': {
        const inner = this.plan(e.expr, grid);
        return e.op === '-' ? new NegateOperator(inner, this.pc) : inner;
      }
      case 'StepInvariantExpr': {
        const inner = unwrapParens(e.expr);
        if (inner.type === 'MatrixSelector' || inner.type === 'SubqueryExpr') {
          return this.fallback(e, grid);
        }
        if (grid.numSteps <= 1) return this.plan(e.expr, grid);
        const once = makeGrid(grid.start, grid.start, grid.interval);
        return new StepInvariantOperator(this.plan(e.expr, once), grid, this.pc);
      }
      case 'AggregateExpr':
        return this.aggregate(e, grid);
      case 'BinaryExpr':
        return this.binary(e, grid);
      case 'Call':
        return this.call(e, grid);
      default:
        return this.fallback(e, grid);
    }
  }

  private fallback(e: Expr, grid: StepGrid): VectorOperator {
    this.fallbacks.push(e);
    return new FallbackOperator(e, grid, this.pc);
  }

  private aggregate(e: AggregateExpr, grid: StepGrid): VectorOperator {
    const buffer = grid.numSteps > 1 && e !== this.root;
    if (e.op === 'topk' || e.op === 'bottomk') {
      const k = e.param === undefined ? undefined : constantParam(e.param);
      if (k === undefined) return this.fallback(e, grid);
      const input = this.plan(e.expr, grid);
      return new TopKOperator(e, input, k, buffer, grid.numSteps > 1);
    }
    if (!COLUMN_AGGREGATIONS.has(e.op)) return this.fallback(e, grid);
    let param = NaN;
    if (e.op === 'quantile') {
      const q = e.param === undefined ? undefined : constantParam(e.param);
      if (q === undefined) return this.fallback(e, grid);
      param = q;
    }
    return new AggregateOperator(e, this.plan(e.expr, grid), param, this.pc, buffer);
  }

  private binary(e: BinaryExpr, grid: StepGrid): VectorOperator {
    const lt = exprType(e.lhs);
    const rt = exprType(e.rhs);
    const op = e.op;
    if (lt === 'scalar' && rt === 'scalar') {
      return new ScalarBinaryOperator(op, this.plan(e.lhs, grid), this.plan(e.rhs, grid));
    }
    if (lt === 'vector' && rt === 'scalar') {
      const l = this.plan(e.lhs, grid);
      const r = this.plan(e.rhs, grid);
      return new VectorScalarOperator(op, l, r, false, e.returnBool, this.pc);
    }
    if (lt === 'scalar' && rt === 'vector') {
      const l = this.plan(e.lhs, grid);
      const r = this.plan(e.rhs, grid);
      return new VectorScalarOperator(op, r, l, true, e.returnBool, this.pc);
    }
    if (lt === 'vector' && rt === 'vector') {
      const setOp = op === 'and' || op === 'or' || op === 'unless';
      const matching: VectorMatching = e.vectorMatching ?? {
        card: setOp ? 'many-to-many' : 'one-to-one',
        matchingLabels: [],
        on: false,
        include: [],
      };
      const l = this.plan(e.lhs, grid);
      const r = this.plan(e.rhs, grid);
      if (setOp) return new SetOperator(op, matching, l, r, grid);
      return new VectorBinaryOperator(op, matching, e.returnBool, l, r, grid, this.pc);
    }
    return this.fallback(e, grid);
  }

  private call(e: Call, grid: StepGrid): VectorOperator {
    const fn = this.functions.get(e.func);
    if (fn === undefined) return this.fallback(e, grid);
    if (SINGLE_OUTPUT_FUNCTIONS.has(e.func)) {
      const ops = new Map<number, VectorOperator>();
      e.args.forEach((a, i) => {
        if (exprType(a) !== 'string') ops.set(i, this.plan(a, grid));
      });
      return new SingleOutputFunctionOperator(e, fn, ops, grid, this.pc);
    }
    if (isRangeFunction(e.func) && e.func !== 'absent_over_time') {
      const idx = e.args.findIndex((a) => exprType(a) === 'matrix');
      const raw = e.args[idx];
      const arg = raw === undefined ? undefined : raw.type === 'StepInvariantExpr' ? raw.expr : raw;
      if (arg?.type !== 'MatrixSelector' && arg?.type !== 'SubqueryExpr') {
        return this.fallback(e, grid);
      }
      if (e.args.some((a, i) => i !== idx && exprType(a) !== 'scalar'))
        return this.fallback(e, grid);
      // The default engine evaluates a subquery before the other arguments.
      const input: RangeInput =
        arg.type === 'MatrixSelector' ? { kind: 'selector', arg } : this.subquery(arg, grid);
      const scalars = this.scalarArgs(e, grid, idx) as Map<number, VectorOperator>;
      return new RangeFunctionOperator(e, fn, idx, input, scalars, grid, this.pc);
    }
    if (GROUPING_FUNCTIONS.has(e.func)) {
      const idx = e.args.findIndex((a) => exprType(a) === 'vector');
      const input = e.args[idx];
      if (input === undefined) return this.fallback(e, grid);
      const scalars = this.scalarArgs(e, grid, idx);
      if (scalars === undefined) return this.fallback(e, grid);
      const op = this.plan(input, grid);
      return new GroupingFunctionOperator(e, fn, idx, op, scalars, grid, this.pc);
    }
    if (SORT_BY_VALUE.has(e.func)) {
      const input = e.args[0];
      if (input === undefined || exprType(input) !== 'vector') return this.fallback(e, grid);
      return new SortOperator(e, this.plan(input, grid), this.pc);
    }
    if (ELEMENTWISE_FUNCTIONS.has(e.func)) {
      const first = e.args[0];
      if (first === undefined || exprType(first) !== 'vector') return this.fallback(e, grid);
      const scalars = this.scalarArgs(e, grid, 0);
      if (scalars === undefined) return this.fallback(e, grid);
      return new ElementwiseOperator(e, fn, this.plan(first, grid), scalars, grid, this.pc);
    }
    return this.fallback(e, grid);
  }

  /** A subquery's inside, planned over the subquery's own step-aligned steps. */
  private subquery(sq: SubqueryExpr, grid: StepGrid): RangeInput {
    const offset = effectiveOffset(sq, grid.start);
    const interval =
      sq.step !== 0 ? sq.step : this.pc.ctx.config.noStepSubqueryIntervalFn(sq.range);
    // The first multiple of the step after (start − offset − range), with Go's truncating
    // integer division, as the default engine aligns subquery steps.
    const from = grid.start - offset - sq.range;
    let start = interval * Math.trunc(from / interval);
    if (start <= from) start += interval;
    const innerGrid = makeGrid(start, grid.end - offset, interval);
    return { kind: 'subquery', arg: sq, inner: this.plan(sq.expr, innerGrid), innerGrid };
  }

  /** Operators for every argument but `skip`, all of which must be scalars. */
  private scalarArgs(
    e: Call,
    grid: StepGrid,
    skip: number,
  ): Map<number, VectorOperator> | undefined {
    // Check every argument before planning any, so a rejected call leaves no fallbacks behind.
    if (e.args.some((a, i) => i !== skip && exprType(a) !== 'scalar')) return undefined;
    const ops = new Map<number, VectorOperator>();
    e.args.forEach((a, i) => {
      if (i !== skip) ops.set(i, this.plan(a, grid));
    });
    return ops;
  }

  /** The printed form of every fallback node, for the query stats. */
  fallbackNames(): string[] {
    return this.fallbacks.map((e) => exprToString(e.type === 'StepInvariantExpr' ? e.expr : e));
  }
}
