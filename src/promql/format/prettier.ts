// The `format_query` prettifier: Prometheus's promql/parser/prettier.go. A node whose
// one-line text (exprToString) fits in 100 bytes is printed on one line, indented by two
// spaces per level; a longer one is split: aggregations, calls and parens put their operands
// on their own lines one level deeper, binary operators put each side one level deeper with
// the operator (and its modifiers) between them at the node's own level.
//
// Prometheus's quirks are kept on purpose, because clients diff against its output:
// a subquery short enough for one line is printed without its indent, a split binary
// expression ignores its own indent (its sides carry the deeper one), and the limit counts
// UTF-8 bytes, not characters.
import type { Expr } from '../parser/index.js';
import { utf8Length, trimSpace } from './go_text.js';
import { aggregateHead, binaryOperator, exprToString, subquerySuffix } from './printer.js';

/** Prometheus's maxCharactersPerLine. */
export const MAX_CHARACTERS_PER_LINE = 100;

const INDENT = '  ';

export interface PrettifyOptions {
  /** Prometheus's maxCharactersPerLine (100); its own tests shrink it to 10. */
  readonly maxCharactersPerLine?: number;
}

/** Prometheus's `parser.Prettify(expr)`, i.e. `expr.Pretty(0)`. */
export function prettify(expr: Expr, options: PrettifyOptions = {}): string {
  return pretty(expr, 0, options.maxCharactersPerLine ?? MAX_CHARACTERS_PER_LINE);
}

function pretty(expr: Expr, level: number, limit: number): string {
  const indent = INDENT.repeat(level);
  const oneLine = exprToString(expr);
  const split = utf8Length(oneLine) > limit;
  switch (expr.type) {
    case 'AggregateExpr': {
      if (!split) return indent + oneLine;
      let out = `${indent}${aggregateHead(expr)}(\n`;
      if (expr.param !== undefined) out += `${pretty(expr.param, level + 1, limit)},\n`;
      return `${out}${pretty(expr.expr, level + 1, limit)}\n${indent})`;
    }
    case 'BinaryExpr':
      if (!split) return indent + oneLine;
      return `${pretty(expr.lhs, level + 1, limit)}\n${indent}${binaryOperator(expr)}\n${pretty(expr.rhs, level + 1, limit)}`;
    case 'Call': {
      if (!split) return indent + oneLine;
      const args = expr.args.map((a) => pretty(a, level + 1, limit)).join(',\n');
      return `${indent}${expr.func}(\n${args}\n${indent})`;
    }
    case 'ParenExpr':
      if (!split) return indent + oneLine;
      return `${indent}(\n${pretty(expr.expr, level + 1, limit)}\n${indent})`;
    case 'StepInvariantExpr':
      return pretty(expr.expr, level, limit);
    case 'SubqueryExpr':
      if (!split) return oneLine;
      return pretty(expr.expr, level, limit) + subquerySuffix(expr);
    case 'UnaryExpr':
      // The operator takes the child's indent.
      return indent + expr.op + trimSpace(pretty(expr.expr, level, limit));
    case 'MatrixSelector':
    case 'VectorSelector':
    case 'NumberLiteral':
    case 'StringLiteral':
      return indent + oneLine;
  }
}
