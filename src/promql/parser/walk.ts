// Generic helpers over the syntax tree that Prometheus keeps next to its AST: a node's
// position range and value type, its children in evaluation order (parser.Children) and a
// depth-first walk with the path of ancestors (parser.Inspect).
import type { Expr, PositionRange, ValueType } from './ast.js';
import { getFunction } from './functions.js';

/** Prometheus Node.PositionRange(). */
export function posRangeOf(e: Expr): PositionRange {
  switch (e.type) {
    case 'AggregateExpr':
    case 'Call':
    case 'NumberLiteral':
    case 'ParenExpr':
    case 'StringLiteral':
    case 'VectorSelector':
      return e.posRange;
    case 'BinaryExpr':
      // Stored at construction: recomputing it would walk long operator chains every time.
      return e.posRange;
    case 'MatrixSelector':
      return { start: posRangeOf(e.vectorSelector).start, end: e.endPos };
    case 'SubqueryExpr':
      return { start: posRangeOf(e.expr).start, end: e.endPos };
    case 'UnaryExpr':
      return { start: e.startPos, end: posRangeOf(e.expr).end };
    case 'StepInvariantExpr':
      return posRangeOf(e.expr);
  }
}

/** The value type an expression evaluates to (Prometheus Expr.Type()). */
export function exprType(e: Expr): ValueType {
  switch (e.type) {
    case 'AggregateExpr':
    case 'VectorSelector':
      return 'vector';
    case 'Call':
      return getFunction(e.func)?.returnType ?? 'none';
    case 'MatrixSelector':
    case 'SubqueryExpr':
      return 'matrix';
    case 'NumberLiteral':
      return 'scalar';
    case 'StringLiteral':
      return 'string';
    case 'ParenExpr':
    case 'UnaryExpr':
    case 'StepInvariantExpr':
      return exprType(e.expr);
    case 'BinaryExpr': {
      // Scalar only if every operand is; walk the left spine iteratively (chains can be long).
      let cur: Expr = e;
      while (cur.type === 'BinaryExpr') {
        if (exprType(cur.rhs) !== 'scalar') return 'vector';
        cur = cur.lhs;
      }
      return exprType(cur) === 'scalar' ? 'scalar' : 'vector';
    }
  }
}

/** Prometheus DocumentedType: the names used in type errors. */
export function documentedType(t: ValueType): string {
  switch (t) {
    case 'vector':
      return 'instant vector';
    case 'matrix':
      return 'range vector';
    default:
      return t;
  }
}

/** Direct children in Prometheus's order (parser.Children). */
export function children(e: Expr): readonly Expr[] {
  switch (e.type) {
    case 'AggregateExpr':
      return e.param === undefined ? [e.expr] : [e.expr, e.param];
    case 'BinaryExpr':
      return [e.lhs, e.rhs];
    case 'Call':
      return e.args;
    case 'SubqueryExpr':
    case 'ParenExpr':
    case 'UnaryExpr':
    case 'StepInvariantExpr':
      return [e.expr];
    case 'MatrixSelector':
      return [e.vectorSelector];
    case 'NumberLiteral':
    case 'StringLiteral':
    case 'VectorSelector':
      return [];
  }
}

/**
 * Depth-first pre-order walk (parser.Inspect): `visit(node, path)` gets the ancestors from the
 * root; returning false skips the node's children.
 */
export function inspect(
  root: Expr,
  visit: (node: Expr, path: readonly Expr[]) => boolean | void,
): void {
  const path: Expr[] = [];
  const walk = (node: Expr): void => {
    if (visit(node, path) === false) return;
    path.push(node);
    for (const c of children(node)) walk(c);
    path.pop();
  };
  walk(root);
}

/** Strips any number of enclosing parentheses (Prometheus unwrapParenExpr). */
export function unwrapParens(e: Expr): Expr {
  let cur = e;
  while (cur.type === 'ParenExpr') cur = cur.expr;
  return cur;
}
