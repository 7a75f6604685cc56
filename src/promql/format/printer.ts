// The canonical one-line text of an expression: Prometheus's `String()` methods of
// promql/parser/printer.go, reproduced exactly because error messages, `format_query`,
// rule files and query logs all show it, and users compare it with what Prometheus prints.
// Selectors sort their matchers and drop the `__name__` matcher implied by the metric name,
// so printing is a normal form: re-parsing the text gives the same tree.
import {
  compareGoStrings,
  formatFloatF,
  goQuote,
  isValidLegacyLabelName,
} from '../../model/index.js';
import {
  formatDuration,
  type AggregateExpr,
  type BinaryExpr,
  type Expr,
  type MatrixSelector,
  type SubqueryExpr,
  type TimeModifiers,
  type VectorSelector,
} from '../parser/index.js';
import { formatAtTimestamp } from './go_text.js';

/** Prometheus's `Expr.String()`. */
export function exprToString(expr: Expr): string {
  switch (expr.type) {
    case 'AggregateExpr': {
      const param = expr.param === undefined ? '' : `${exprToString(expr.param)}, `;
      return `${aggregateHead(expr)}(${param}${exprToString(expr.expr)})`;
    }
    case 'BinaryExpr':
      return `${exprToString(expr.lhs)} ${binaryOperator(expr)} ${exprToString(expr.rhs)}`;
    case 'Call':
      return `${expr.func}(${expr.args.map(exprToString).join(', ')})`;
    case 'MatrixSelector':
      return matrixSelectorString(expr);
    case 'SubqueryExpr':
      return exprToString(expr.expr) + subquerySuffix(expr);
    case 'NumberLiteral':
      return expr.duration === true ? durationLiteralString(expr.val) : formatFloatF(expr.val);
    case 'ParenExpr':
      return `(${exprToString(expr.expr)})`;
    case 'StringLiteral':
      return goQuote(expr.val);
    case 'UnaryExpr':
      return expr.op + exprToString(expr.expr);
    case 'StepInvariantExpr':
      return exprToString(expr.expr);
    case 'VectorSelector':
      return vectorSelectorString(expr, true);
  }
}

// Prometheus 3 marks a number written as a duration (`time() - 1h`) and prints it back as
// one (NumberLiteral.Duration).
/** Go: model.Duration(val * 1e9).String(), with the sign in front. */
function durationLiteralString(seconds: number): string {
  const ms = (s: number): number => Math.trunc(Math.trunc(s * 1e9) / 1e6);
  return seconds < 0 ? `-${formatDuration(ms(-seconds))}` : formatDuration(ms(seconds));
}

/**
 * `sum`, `sum by (a, b) `, `sum without () ` — the aggregation up to its opening paren
 * (Prometheus's writeAggOpStr / ShortString; the trailing space is part of it).
 */
export function aggregateHead(expr: AggregateExpr): string {
  if (expr.without) return `${expr.op} without (${labelList(expr.grouping)}) `;
  if (expr.grouping.length > 0) return `${expr.op} by (${labelList(expr.grouping)}) `;
  return expr.op;
}

/**
 * The operator with its modifiers: `+`, `> bool`, `- on (a) group_left (b)`. `ignoring ()`
 * without grouping is dropped because it is the default (Prometheus's getMatchingStr).
 */
export function binaryOperator(expr: BinaryExpr): string {
  let out = expr.op;
  if (expr.returnBool) out += ' bool';
  const vm = expr.vectorMatching;
  if (vm === undefined) return out;
  const grouped = vm.card === 'many-to-one' || vm.card === 'one-to-many';
  if (vm.matchingLabels.length > 0 || vm.on || grouped) {
    out += ` ${vm.on ? 'on' : 'ignoring'} (${labelList(vm.matchingLabels)})`;
  }
  if (grouped) {
    out += ` group_${vm.card === 'many-to-one' ? 'left' : 'right'} (${labelList(vm.include)})`;
  }
  return out;
}

/** Label names joined by `, `, quoted when they are not legacy names (`"foo.bar"`). */
function labelList(names: readonly string[]): string {
  return names.map((n) => (isValidLegacyLabelName(n) ? n : goQuote(n))).join(', ');
}

function vectorSelectorString(vs: VectorSelector, withModifiers: boolean): string {
  const matchers: string[] = [];
  for (const m of vs.labelMatchers) {
    // The name matcher is implied by the leading metric name, unless it is the explicit
    // empty-name matcher `{__name__=""}`.
    if (m.name === '__name__' && m.type === '=' && m.value === vs.name && m.value !== '') continue;
    matchers.push(m.toString());
  }
  let out = vs.name;
  if (matchers.length > 0) out += `{${matchers.sort(compareGoStrings).join(',')}}`;
  if (withModifiers) out += atSuffix(vs) + offsetSuffix(vs);
  return out;
}

function matrixSelectorString(ms: MatrixSelector): string {
  const vs = ms.vectorSelector;
  // `@` and `offset` belong to the inner selector but are written after the range.
  return `${vectorSelectorString(vs, false)}[${formatDuration(ms.range)}]${atSuffix(vs)}${offsetSuffix(vs)}`;
}

/** `[5m:1m] @ 10.000 offset 1m` — everything a subquery adds after its inner expression. */
export function subquerySuffix(sq: SubqueryExpr): string {
  const step = sq.step !== 0 ? formatDuration(sq.step) : '';
  return `[${formatDuration(sq.range)}:${step}]${atSuffix(sq)}${offsetSuffix(sq)}`;
}

function atSuffix(m: TimeModifiers): string {
  if (m.timestamp !== undefined) return ` @ ${formatAtTimestamp(m.timestamp)}`;
  if (m.startOrEnd === 'start') return ' @ start()';
  if (m.startOrEnd === 'end') return ' @ end()';
  return '';
}

function offsetSuffix(m: TimeModifiers): string {
  if (m.originalOffset > 0) return ` offset ${formatDuration(m.originalOffset)}`;
  if (m.originalOffset < 0) return ` offset -${formatDuration(-m.originalOffset)}`;
  return '';
}
