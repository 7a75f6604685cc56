// The PromQL syntax tree, shaped like Prometheus's promql/parser/ast.go so that the engine,
// the printer (format_query), the JSON tree of parse_query and error positions line up with
// Prometheus. Nodes are plain readonly objects discriminated by `type`; positions are
// byte offsets into the query string (Prometheus posrange.PositionRange: start inclusive,
// end exclusive), so error messages can print `line:col` exactly as Prometheus does.
import type { Matcher } from '../../model/index.js';

/** The four value types of PromQL plus "none" for statements (Prometheus parser.ValueType). */
export type ValueType = 'none' | 'vector' | 'scalar' | 'matrix' | 'string';

/** Byte offsets into the query: [start, end). */
export interface PositionRange {
  readonly start: number;
  readonly end: number;
}

/** Binary and unary operator tokens as Prometheus spells them (ItemType.String()). */
export type BinaryOp =
  | '+'
  | '-'
  | '*'
  | '/'
  | '%'
  | '^'
  | 'atan2'
  | '=='
  | '!='
  | '>'
  | '<'
  | '>='
  | '<='
  | 'and'
  | 'or'
  | 'unless';

export type AggregateOp =
  | 'sum'
  | 'avg'
  | 'count'
  | 'min'
  | 'max'
  | 'group'
  | 'stddev'
  | 'stdvar'
  | 'topk'
  | 'bottomk'
  | 'count_values'
  | 'quantile'
  | 'limitk'
  | 'limit_ratio';

/** `@ start()` / `@ end()` (Prometheus ItemType START / END); undefined when absent. */
export type StartOrEnd = 'start' | 'end';

/** Vector matching cardinality (Prometheus VectorMatchCardinality). */
export type VectorMatchCardinality = 'one-to-one' | 'many-to-one' | 'one-to-many' | 'many-to-many';

/** `on(...)` / `ignoring(...)` plus `group_left(...)` / `group_right(...)` of a binary op. */
export interface VectorMatching {
  readonly card: VectorMatchCardinality;
  /** Label names of on()/ignoring(); order as written. */
  readonly matchingLabels: readonly string[];
  /** true for on(), false for ignoring() (or no modifier). */
  readonly on: boolean;
  /** Extra labels of group_left/group_right to copy from the "one" side. */
  readonly include: readonly string[];
}

/** A time modifier shared by selectors and subqueries: `offset` and `@`. */
export interface TimeModifiers {
  /**
   * Offset in ms used by the engine (negative allowed, 0 when absent). The parser sets it
   * to `originalOffset`; preprocessing may change it, the printer never reads it.
   */
  readonly offset: number;
  /** The offset as written, in ms (0 when absent). */
  readonly originalOffset: number;
  /** `@ <timestamp>` in ms, undefined when absent or when `@ start()/end()` is used. */
  readonly timestamp?: number | undefined;
  readonly startOrEnd?: StartOrEnd | undefined;
}

export interface AggregateExpr {
  readonly type: 'AggregateExpr';
  readonly op: AggregateOp;
  readonly expr: Expr;
  /** The parameter of topk/bottomk/quantile/count_values/limitk/limit_ratio. */
  readonly param: Expr | undefined;
  readonly grouping: readonly string[];
  readonly without: boolean;
  readonly posRange: PositionRange;
}

export interface BinaryExpr {
  readonly type: 'BinaryExpr';
  readonly op: BinaryOp;
  readonly lhs: Expr;
  readonly rhs: Expr;
  /** Present when both sides are vectors (Prometheus sets it for every vector/vector op). */
  readonly vectorMatching: VectorMatching | undefined;
  /** `bool` modifier of a comparison. */
  readonly returnBool: boolean;
  readonly posRange: PositionRange;
}

export interface Call {
  readonly type: 'Call';
  /** The function's name as written (looked up in the parser's function table). */
  readonly func: string;
  readonly args: readonly Expr[];
  readonly posRange: PositionRange;
}

export interface MatrixSelector {
  readonly type: 'MatrixSelector';
  /** Always a VectorSelector (Prometheus keeps it as an Expr for positions). */
  readonly vectorSelector: VectorSelector;
  /** Range in ms. */
  readonly range: number;
  /** Position of the closing `]` (Prometheus EndPos). */
  readonly endPos: number;
}

export interface SubqueryExpr extends TimeModifiers {
  readonly type: 'SubqueryExpr';
  readonly expr: Expr;
  /** Range in ms. */
  readonly range: number;
  /** Resolution step in ms; 0 means "use the default evaluation interval". */
  readonly step: number;
  readonly endPos: number;
}

export interface NumberLiteral {
  readonly type: 'NumberLiteral';
  readonly val: number;
  /** Written as a duration (`1h`), which the printer reproduces (Prometheus 3 `Duration`). */
  readonly duration?: boolean;
  readonly posRange: PositionRange;
}

export interface ParenExpr {
  readonly type: 'ParenExpr';
  readonly expr: Expr;
  readonly posRange: PositionRange;
}

export interface StringLiteral {
  readonly type: 'StringLiteral';
  readonly val: string;
  readonly posRange: PositionRange;
}

export interface UnaryExpr {
  readonly type: 'UnaryExpr';
  readonly op: '+' | '-';
  readonly expr: Expr;
  /** Start of the operator; the node ends where `expr` ends. */
  readonly startPos: number;
}

/**
 * Wraps a subtree whose value does not change between steps (no selector without `@`, …);
 * the engine evaluates it once per query (Prometheus StepInvariantExpr, inserted by
 * PreprocessExpr — never produced by the parser itself).
 */
export interface StepInvariantExpr {
  readonly type: 'StepInvariantExpr';
  readonly expr: Expr;
}

export interface VectorSelector extends TimeModifiers {
  readonly type: 'VectorSelector';
  /** Metric name if given before the braces (or via `{__name__="…"}` as Prometheus keeps it). */
  readonly name: string;
  /** All matchers, including the `__name__` equality matcher for a leading name. */
  readonly labelMatchers: readonly Matcher[];
  readonly posRange: PositionRange;
}

export type Expr =
  | AggregateExpr
  | BinaryExpr
  | Call
  | MatrixSelector
  | SubqueryExpr
  | NumberLiteral
  | ParenExpr
  | StringLiteral
  | UnaryExpr
  | StepInvariantExpr
  | VectorSelector;

export type ExprType = Expr['type'];
