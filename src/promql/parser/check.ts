// Type checking after a successful parse, a port of Prometheus's parser.checkAST: argument and
// operand types, arity, set-operator and `bool` rules, vector-matching constraints and the
// "at least one non-empty matcher" rule, with Prometheus's messages and positions. It also
// finalises vector matching as Prometheus does: set operators become many-to-many and
// matching is dropped when a side is not an instant vector.
import { goQuote } from '../../model/index.js';
import type {
  BinaryOp,
  Expr,
  PositionRange,
  ValueType,
  VectorMatching,
  VectorSelector,
} from './ast.js';
import type { ParseErrorItem } from './errors.js';
import { getFunction } from './functions.js';
import { documentedType, exprType, posRangeOf } from './walk.js';

type BinaryNode = Expr & { type: 'BinaryExpr' };

const COMPARISONS: ReadonlySet<BinaryOp> = new Set<BinaryOp>(['==', '!=', '<=', '<', '>=', '>']);
const SET_OPS: ReadonlySet<BinaryOp> = new Set<BinaryOp>(['and', 'or', 'unless']);

function isSpaceByte(b: number | undefined): boolean {
  return b === 0x20 || b === 0x09 || b === 0x0a || b === 0x0d;
}

class Checker {
  readonly errors: ParseErrorItem[] = [];
  /** Selectors exempt from the non-empty matcher rule (the label selector of info()). */
  private readonly bypassEmptyMatcher = new Set<VectorSelector>();

  constructor(private readonly input: Uint8Array) {}

  private err(positionRange: PositionRange, message: string): void {
    this.errors.push({ positionRange, message });
  }

  private expectType(node: Expr, want: ValueType, context: string): void {
    const t = this.check(node);
    if (t !== want) {
      this.err(
        posRangeOf(node),
        `expected type ${documentedType(want)} in ${context}, got ${documentedType(t)}`,
      );
    }
  }

  /** The operator's range: between the operands with surrounding whitespace trimmed. */
  private opRange(lhs: Expr, rhs: Expr): PositionRange {
    let start = posRangeOf(lhs).end;
    while (isSpaceByte(this.input[start])) start++;
    let end = posRangeOf(rhs).start - 1;
    while (isSpaceByte(this.input[end])) end--;
    return { start, end };
  }

  check(node: Expr): ValueType {
    const typ = exprType(node);
    switch (node.type) {
      case 'AggregateExpr':
        this.expectType(node.expr, 'vector', 'aggregation expression');
        if (node.param !== undefined) {
          if (node.op === 'count_values')
            this.expectType(node.param, 'string', 'aggregation parameter');
          else this.expectType(node.param, 'scalar', 'aggregation parameter');
        }
        break;
      case 'BinaryExpr':
        this.checkBinaryChain(node);
        break;
      case 'Call':
        this.checkCall(node);
        break;
      case 'ParenExpr':
      case 'StepInvariantExpr':
        this.check(node.expr);
        break;
      case 'UnaryExpr': {
        const t = this.check(node.expr);
        if (t !== 'scalar' && t !== 'vector') {
          this.err(
            posRangeOf(node),
            `unary expression only allowed on expressions of type scalar or instant vector, got ${goQuote(documentedType(t))}`,
          );
        }
        break;
      }
      case 'SubqueryExpr': {
        const t = this.check(node.expr);
        if (t !== 'vector')
          this.err(
            posRangeOf(node),
            `subquery is only allowed on instant vector, got ${t} instead`,
          );
        break;
      }
      case 'MatrixSelector':
        this.check(node.vectorSelector);
        break;
      case 'VectorSelector':
        this.checkSelector(node);
        break;
      case 'NumberLiteral':
      case 'StringLiteral':
        break;
    }
    return typ;
  }

  /**
   * Checks a left-nested chain of binary expressions (`a + b + c + …`) bottom-up without
   * recursing down the left spine, which can be thousands of operators deep. The order of the
   * errors is the recursive one: left operand, right operand, then the operator itself.
   */
  private checkBinaryChain(top: BinaryNode): void {
    const spine: BinaryNode[] = [];
    let cur: Expr = top;
    while (cur.type === 'BinaryExpr') {
      spine.push(cur);
      cur = cur.lhs;
    }
    let lt = this.check(cur);
    for (let i = spine.length - 1; i >= 0; i--) {
      const n = spine[i] as BinaryNode;
      const rt = this.check(n.rhs);
      this.checkBinary(n, lt, rt);
      lt = lt === 'scalar' && rt === 'scalar' ? 'scalar' : 'vector';
    }
  }

  private checkBinary(n: BinaryNode, lt: ValueType, rt: ValueType): void {
    const isComparison = COMPARISONS.has(n.op);
    const isSetOp = SET_OPS.has(n.op);
    const m = n as { vectorMatching: VectorMatching | undefined };
    if (n.returnBool && !isComparison) {
      this.err(
        this.opRange(n.lhs, n.rhs),
        'bool modifier can only be used on comparison operators',
      );
    }
    if (
      isComparison &&
      !n.returnBool &&
      exprType(n.rhs) === 'scalar' &&
      exprType(n.lhs) === 'scalar'
    ) {
      this.err(this.opRange(n.lhs, n.rhs), 'comparisons between scalars must use BOOL modifier');
    }
    let vm = m.vectorMatching;
    if (vm !== undefined && isSetOp && vm.card === 'one-to-one') {
      vm = { ...vm, card: 'many-to-many' };
      m.vectorMatching = vm;
    }
    if (vm !== undefined && vm.on) {
      for (const l1 of vm.matchingLabels) {
        for (const l2 of vm.include) {
          if (l1 === l2) {
            this.err(
              this.opRange(n.lhs, n.rhs),
              `label ${goQuote(l1)} must not occur in ON and GROUP clause at once`,
            );
          }
        }
      }
    }
    if (lt !== 'scalar' && lt !== 'vector') {
      this.err(
        posRangeOf(n.lhs),
        'binary expression must contain only scalar and instant vector types',
      );
    }
    if (rt !== 'scalar' && rt !== 'vector') {
      this.err(
        posRangeOf(n.rhs),
        'binary expression must contain only scalar and instant vector types',
      );
    }
    if ((lt !== 'vector' || rt !== 'vector') && vm !== undefined) {
      if (vm.matchingLabels.length > 0) {
        this.err(posRangeOf(n), 'vector matching only allowed between instant vectors');
      }
      m.vectorMatching = undefined;
    } else if (isSetOp && vm !== undefined) {
      if (vm.card === 'one-to-many' || vm.card === 'many-to-one') {
        this.err(posRangeOf(n), `no grouping allowed for ${goQuote(n.op)} operation`);
      }
      if (vm.card !== 'many-to-many')
        this.err(posRangeOf(n), 'set operations must always be many-to-many');
    }
    if ((lt === 'scalar' || rt === 'scalar') && isSetOp) {
      this.err(
        posRangeOf(n),
        `set operator ${goQuote(n.op)} not allowed in binary scalar expression`,
      );
    }
  }

  private checkCall(n: Expr & { type: 'Call' }): void {
    const fn = getFunction(n.func);
    if (fn === undefined) {
      this.err(n.posRange, `unknown function with name ${goQuote(n.func)}`);
      return;
    }
    const nargs = fn.argTypes.length;
    if (fn.variadic === 0) {
      if (nargs !== n.args.length) {
        this.err(
          n.posRange,
          `expected ${nargs} argument(s) in call to ${goQuote(fn.name)}, got ${n.args.length}`,
        );
      }
    } else {
      const na = nargs - 1;
      if (na > n.args.length) {
        this.err(
          n.posRange,
          `expected at least ${na} argument(s) in call to ${goQuote(fn.name)}, got ${n.args.length}`,
        );
      } else if (fn.variadic > 0 && na + fn.variadic < n.args.length) {
        this.err(
          n.posRange,
          `expected at most ${na + fn.variadic} argument(s) in call to ${goQuote(fn.name)}, got ${n.args.length}`,
        );
      }
    }
    const second = n.args[1];
    if (fn.name === 'info' && second !== undefined) {
      const t = exprType(second);
      if (t !== 'vector') {
        this.err(
          n.posRange,
          `expected type ${documentedType('vector')} in call to function ${goQuote(fn.name)}, got ${documentedType(t)}`,
        );
      }
      if (second.type === 'VectorSelector' && second.name !== '') {
        this.err(posRangeOf(second), 'expected label selectors only, got vector selector instead');
      } else if (second.type === 'VectorSelector') {
        this.bypassEmptyMatcher.add(second);
      } else {
        this.err(posRangeOf(second), 'expected label selectors only');
      }
    }
    for (let i = 0; i < n.args.length; i++) {
      if (i >= nargs && fn.variadic === 0) break;
      const want = fn.argTypes[Math.min(i, nargs - 1)] as ValueType;
      const arg = n.args[i] as Expr;
      const t = this.check(arg);
      if (t !== want) {
        this.err(
          posRangeOf(arg),
          `expected type ${documentedType(want)} in call to function ${goQuote(fn.name)}, got ${documentedType(t)}`,
        );
      }
    }
  }

  private checkSelector(n: VectorSelector): void {
    if (n.name !== '') {
      // The last matcher is the one for the name outside the braces.
      for (const m of n.labelMatchers.slice(0, -1)) {
        if (m.name === '__name__') {
          this.err(
            n.posRange,
            `metric name must not be set twice: ${goQuote(n.name)} or ${goQuote(m.value)}`,
          );
        }
      }
      return;
    }
    if (this.bypassEmptyMatcher.has(n)) return;
    if (!n.labelMatchers.some((m) => !m.matches(''))) {
      this.err(n.posRange, 'vector selector must contain at least one non-empty matcher');
    }
  }
}

/** Type-checks a parsed expression; returns the errors (empty when valid). */
export function checkExpr(expr: Expr, input: Uint8Array): ParseErrorItem[] {
  const c = new Checker(input);
  c.check(expr);
  return c.errors;
}
