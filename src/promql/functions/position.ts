// Where an annotation points: Prometheus prints the start of the offending argument as
// `line:col` of the query (posrange.PositionRange.StartPosInput). Functions never see the
// query text, so the engine may pass a formatter through the node cache under
// POSITION_FORMATTER_KEY; without one we print what Prometheus prints for a single-line
// query, `1:<start + 1>`.
import type { EvalNodeHelper } from '../function_call.js';
import type { Expr, PositionRange } from '../parser/ast.js';

/** `enh.cache` key of an optional `(expr: Expr) => string` returning `line:col` ('' = no suffix). */
export const POSITION_FORMATTER_KEY = 'positionFormatter';

export type PositionFormatter = (expr: Expr) => string;

/** Prometheus's Expr.PositionRange() for every node type of the AST. */
export function positionRange(expr: Expr): PositionRange {
  switch (expr.type) {
    case 'MatrixSelector':
      return { start: expr.vectorSelector.posRange.start, end: expr.endPos };
    case 'SubqueryExpr':
      return { start: positionRange(expr.expr).start, end: expr.endPos };
    case 'UnaryExpr':
      return { start: expr.startPos, end: positionRange(expr.expr).end };
    case 'StepInvariantExpr':
      return positionRange(expr.expr);
    default:
      return expr.posRange;
  }
}

/** The ` (line:col)` suffix of an annotation about `expr`, or '' when the formatter says so. */
export function positionSuffix(enh: EvalNodeHelper, expr: Expr | undefined): string {
  if (expr === undefined) return '';
  const formatter = enh.cache.get(POSITION_FORMATTER_KEY);
  const pos =
    typeof formatter === 'function'
      ? (formatter as PositionFormatter)(expr)
      : `1:${positionRange(expr).start + 1}`;
  return pos === '' ? '' : ` (${pos})`;
}
