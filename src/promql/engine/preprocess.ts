// Query preparation as Prometheus's PreprocessExpr does it: wrap the highest step-invariant
// subtrees in StepInvariantExpr (so they are evaluated once per query), resolve `@ start()` /
// `@ end()` to timestamps, and drop superfluous parentheses around function and aggregation
// arguments. The parser's tree is never mutated: preprocessing returns a fresh copy, which
// also gives every selector its own node identity for the per-query series tables.
import { AT_MODIFIER_UNSAFE_FUNCTIONS } from '../functions/index.js';
import type { Expr, SubqueryExpr, VectorSelector } from '../parser/ast.js';
import { unwrapParens } from '../parser/index.js';

interface Pre {
  readonly expr: Expr;
  readonly isInvariant: boolean;
  readonly shouldWrap: boolean;
}

/**
 * Prometheus PreprocessExpr(expr, start, end, step): a copy of `expr` ready for evaluation.
 * The query-context functions step(), range(), start() and end() become number literals
 * (seconds), as Prometheus's duration visitor resolves them.
 */
export function preprocessExpr(expr: Expr, start: number, end: number, step = 0): Expr {
  const r = pre(resolveQueryContextFunctions(expr, start, end, step), start, end);
  return r.shouldWrap ? wrap(r.expr) : r.expr;
}

function resolveQueryContextFunctions(e: Expr, start: number, end: number, step: number): Expr {
  const rec = (x: Expr): Expr => resolveQueryContextFunctions(x, start, end, step);
  switch (e.type) {
    case 'Call': {
      if (e.args.length === 0) {
        const v =
          e.func === 'step'
            ? step / 1000
            : e.func === 'range'
              ? (end - start) / 1000
              : e.func === 'start'
                ? start / 1000
                : e.func === 'end'
                  ? end / 1000
                  : undefined;
        if (v !== undefined) return { type: 'NumberLiteral', val: v, posRange: e.posRange };
      }
      return { ...e, args: e.args.map(rec) };
    }
    case 'AggregateExpr':
      return { ...e, expr: rec(e.expr), param: e.param === undefined ? undefined : rec(e.param) };
    case 'BinaryExpr':
      return { ...e, lhs: rec(e.lhs), rhs: rec(e.rhs) };
    case 'SubqueryExpr':
    case 'ParenExpr':
    case 'UnaryExpr':
    case 'StepInvariantExpr':
      return { ...e, expr: rec(e.expr) };
    default:
      return e;
  }
}

function wrap(e: Expr): Expr {
  return { type: 'StepInvariantExpr', expr: e };
}

function resolveAt<T extends VectorSelector | SubqueryExpr>(n: T, start: number, end: number): T {
  if (n.startOrEnd === 'start') return { ...n, timestamp: start };
  if (n.startOrEnd === 'end') return { ...n, timestamp: end };
  return { ...n };
}

function pre(e: Expr, start: number, end: number): Pre {
  switch (e.type) {
    case 'VectorSelector': {
      const n = resolveAt(e, start, end);
      const at = n.timestamp !== undefined;
      return { expr: n, isInvariant: at, shouldWrap: at };
    }
    case 'AggregateExpr': {
      const inner = pre(unwrapParens(e.expr), start, end);
      // Prometheus does not look into the parameter for invariance; it is evaluated as is.
      const param = e.param === undefined ? undefined : pre(unwrapParens(e.param), start, end);
      return {
        expr: { ...e, expr: inner.expr, param: param?.expr },
        isInvariant: inner.isInvariant,
        shouldWrap: inner.shouldWrap,
      };
    }
    case 'BinaryExpr': {
      const l = pre(e.lhs, start, end);
      const r = pre(e.rhs, start, end);
      if (l.isInvariant && r.isInvariant) {
        return { expr: { ...e, lhs: l.expr, rhs: r.expr }, isInvariant: true, shouldWrap: true };
      }
      return {
        expr: {
          ...e,
          lhs: l.shouldWrap ? wrap(l.expr) : l.expr,
          rhs: r.shouldWrap ? wrap(r.expr) : r.expr,
        },
        isInvariant: false,
        shouldWrap: false,
      };
    }
    case 'Call': {
      let invariant = !AT_MODIFIER_UNSAFE_FUNCTIONS.has(e.func);
      const args = e.args.map((a) => pre(unwrapParens(a), start, end));
      for (const a of args) invariant = invariant && a.isInvariant;
      if (invariant) {
        return {
          expr: { ...e, args: args.map((a) => a.expr) },
          isInvariant: true,
          shouldWrap: true,
        };
      }
      return {
        expr: { ...e, args: args.map((a) => (a.shouldWrap ? wrap(a.expr) : a.expr)) },
        isInvariant: false,
        shouldWrap: false,
      };
    }
    case 'MatrixSelector': {
      // Range functions evaluate matrix selectors directly, so they are never wrapped.
      const vs = pre(e.vectorSelector, start, end);
      return {
        expr: { ...e, vectorSelector: vs.expr as VectorSelector },
        isInvariant: vs.isInvariant,
        shouldWrap: false,
      };
    }
    case 'SubqueryExpr': {
      // The inside of a subquery is wrapped whenever it is invariant, irrespective of an @ on
      // the subquery itself, so that it is evaluated once w.r.t. the subquery's start.
      const inner = pre(e.expr, start, end);
      const n = resolveAt(
        { ...e, expr: inner.isInvariant ? wrap(inner.expr) : inner.expr },
        start,
        end,
      );
      const at = n.timestamp !== undefined;
      return { expr: n, isInvariant: at, shouldWrap: at };
    }
    case 'ParenExpr': {
      const inner = pre(e.expr, start, end);
      return { ...inner, expr: { ...e, expr: inner.expr } };
    }
    case 'UnaryExpr': {
      const inner = pre(e.expr, start, end);
      return { ...inner, expr: { ...e, expr: inner.expr } };
    }
    case 'StringLiteral':
    case 'NumberLiteral':
      return { expr: { ...e }, isInvariant: true, shouldWrap: false };
    case 'StepInvariantExpr':
      return { expr: e, isInvariant: true, shouldWrap: false };
  }
}
