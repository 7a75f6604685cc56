/**
 * `@ start()` and `@ end()` mean the bounds of the whole query; once a query is split, each
 * sub-query has bounds of its own, so they are replaced by the original bounds as constants
 * first (Cortex evaluateAtModifierFunction). The tree is rebuilt (the parser's AST is
 * immutable) and printed back with the PromQL printer, which is Prometheus's `String()`, so
 * the sub-queries' text (and the results cache keys built from it) match Cortex's.
 */
import { exprToString } from '../promql/format/index.js';
import type { Expr, TimeModifiers } from '../promql/index.js';
import { parseExpr } from '../promql/parser/index.js';

function resolveModifiers<T extends TimeModifiers>(node: T, start: number, end: number): T {
  if (node.startOrEnd === undefined) return node;
  return {
    ...node,
    timestamp: node.startOrEnd === 'start' ? start : end,
    startOrEnd: undefined,
  };
}

/** The tree with every `@ start()`/`@ end()` replaced by `@ <start>`/`@ <end>` (ms). */
export function resolveAtStartEnd(expr: Expr, start: number, end: number): Expr {
  const r = (e: Expr): Expr => resolveAtStartEnd(e, start, end);
  switch (expr.type) {
    case 'AggregateExpr':
      return {
        ...expr,
        expr: r(expr.expr),
        param: expr.param === undefined ? undefined : r(expr.param),
      };
    case 'BinaryExpr':
      return { ...expr, lhs: r(expr.lhs), rhs: r(expr.rhs) };
    case 'Call':
      return { ...expr, args: expr.args.map(r) };
    case 'MatrixSelector':
      return { ...expr, vectorSelector: resolveModifiers(expr.vectorSelector, start, end) };
    case 'SubqueryExpr':
      return resolveModifiers({ ...expr, expr: r(expr.expr) }, start, end);
    case 'ParenExpr':
    case 'UnaryExpr':
    case 'StepInvariantExpr':
      return { ...expr, expr: r(expr.expr) };
    case 'VectorSelector':
      return resolveModifiers(expr, start, end);
    case 'NumberLiteral':
    case 'StringLiteral':
      return expr;
  }
}

/**
 * The query text with `@ start()`/`@ end()` resolved, printed in Prometheus's canonical form
 * (Cortex prints every split query back, with or without `@`). Throws the parser's error for
 * a query that does not parse (the request parser has already rejected those).
 */
export function evaluateAtModifierFunction(query: string, start: number, end: number): string {
  return exprToString(resolveAtStartEnd(parseExpr(query), start, end));
}
