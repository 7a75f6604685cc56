// The PromQL parser: recursive descent with precedence climbing that builds the same tree
// Prometheus's yacc grammar (promql/parser/generated_parser.y) builds, with its precedence
// (`or` < `and`/`unless` < comparisons < `+ -` < `* / % atan2` < `^`, right-associative;
// unary minus binds like `*`, postfix `[…]`, `offset`, `@` bind tightest), its folding of a
// sign into a number literal, and its error texts. Type checking runs afterwards (check.ts),
// only when there is no syntax error, as in Prometheus.
import { goQuote, type Matcher } from '../../model/index.js';
import type {
  AggregateExpr,
  AggregateOp,
  BinaryExpr,
  BinaryOp,
  Call,
  Expr,
  NumberLiteral,
  UnaryExpr,
  VectorMatchCardinality,
} from './ast.js';
import { checkExpr } from './check.js';
import { ParseError } from './errors.js';
import { getFunction } from './functions.js';
import { literalSeconds, parseAt, parseOffset, parseRangeOrSubquery } from './modifiers.js';
import {
  METRIC_IDENTIFIER_TOKENS,
  parseGroupingLabels,
  parseVectorSelector,
  unquoteToken,
} from './selectors.js';
import { SyntaxAbort, tokenRange, TokenStream } from './token_stream.js';
import { isAggregatorToken, type Token, type TokenType } from './tokens.js';
import { posRangeOf } from './walk.js';

export interface ParseOptions {
  /**
   * Accept the functions and aggregations Prometheus gates behind
   * `--enable-feature=promql-experimental-functions` (limitk, limit_ratio, sort_by_label, …).
   * Default true: Strata serves them.
   */
  readonly enableExperimentalFunctions?: boolean;
}

const BINARY_PRECEDENCE: Readonly<Partial<Record<TokenType, number>>> = {
  LOR: 1,
  LAND: 2,
  LUNLESS: 2,
  EQLC: 3,
  NEQ: 3,
  GTR: 3,
  GTE: 3,
  LSS: 3,
  LTE: 3,
  TRIM_UPPER: 3,
  TRIM_LOWER: 3,
  ADD: 4,
  SUB: 4,
  MUL: 5,
  DIV: 5,
  MOD: 5,
  ATAN2: 5,
  POW: 6,
};
const POW_PRECEDENCE = 6;

const BINARY_OPS: Readonly<Partial<Record<TokenType, BinaryOp>>> = {
  ADD: '+',
  SUB: '-',
  MUL: '*',
  DIV: '/',
  MOD: '%',
  POW: '^',
  ATAN2: 'atan2',
  EQLC: '==',
  NEQ: '!=',
  GTR: '>',
  LSS: '<',
  GTE: '>=',
  LTE: '<=',
  LAND: 'and',
  LOR: 'or',
  LUNLESS: 'unless',
};

const PARAM_AGGREGATORS: ReadonlySet<AggregateOp> = new Set<AggregateOp>([
  'topk',
  'bottomk',
  'count_values',
  'quantile',
  'limitk',
  'limit_ratio',
]);

interface BinModifiers {
  readonly returnBool: boolean;
  readonly card: VectorMatchCardinality;
  readonly matchingLabels: readonly string[];
  readonly on: boolean;
  readonly include: readonly string[];
  readonly fill: boolean;
}

class ExprParser {
  readonly ts: TokenStream;

  constructor(
    input: string,
    private readonly experimental: boolean,
  ) {
    this.ts = new TokenStream(input);
  }

  parseExpr(minPrecedence: number): Expr {
    let lhs = this.parseUnary();
    for (;;) {
      const opTok = this.ts.peek();
      const prec = BINARY_PRECEDENCE[opTok.type];
      if (prec === undefined || prec < minPrecedence) return lhs;
      this.ts.next();
      const mods = this.parseBinModifiers();
      if (opTok.type === 'TRIM_UPPER' || opTok.type === 'TRIM_LOWER') {
        // The AST has no trim operators; they only apply to native histograms, which Strata lacks.
        this.ts.addError(
          tokenRange(opTok),
          `histogram trim operator ${opTok.val} is not supported (native histograms)`,
        );
        throw new SyntaxAbort();
      }
      const rhs = this.parseExpr(opTok.type === 'POW' ? prec : prec + 1);
      const bin: BinaryExpr = {
        type: 'BinaryExpr',
        op: BINARY_OPS[opTok.type] as BinaryOp,
        lhs,
        rhs,
        vectorMatching: {
          card: mods.card,
          matchingLabels: mods.matchingLabels,
          on: mods.on,
          include: mods.include,
        },
        returnBool: mods.returnBool,
        posRange: { start: posRangeOf(lhs).start, end: posRangeOf(rhs).end },
      };
      if (mods.fill)
        this.ts.addError(bin.posRange, 'binop fill modifiers are experimental and not enabled');
      lhs = bin;
    }
  }

  private parseUnary(): Expr {
    const t = this.ts.peek();
    if (t.type !== 'ADD' && t.type !== 'SUB') return this.parsePostfix(this.parsePrimary());
    this.ts.next();
    // The unary rule has the precedence of `*`: only `^` binds tighter.
    const operand = this.parseExpr(POW_PRECEDENCE);
    if (operand.type === 'NumberLiteral') {
      const folded: NumberLiteral = {
        type: 'NumberLiteral',
        val: t.type === 'SUB' ? -operand.val : operand.val,
        posRange: { start: t.pos, end: operand.posRange.end },
        ...(operand.duration === true ? { duration: true } : {}),
      };
      return folded;
    }
    const u: UnaryExpr = {
      type: 'UnaryExpr',
      op: t.type === 'SUB' ? '-' : '+',
      expr: operand,
      startPos: t.pos,
    };
    return u;
  }

  private parsePostfix(e: Expr): Expr {
    let expr = e;
    for (;;) {
      const t = this.ts.peek();
      switch (t.type) {
        case 'LEFT_BRACKET':
          expr = parseRangeOrSubquery(this.ts, expr);
          break;
        case 'OFFSET':
          this.ts.next();
          expr = parseOffset(this.ts, expr);
          break;
        case 'AT':
          this.ts.next();
          expr = parseAt(this.ts, expr);
          break;
        case 'ANCHORED':
        case 'SMOOTHED':
          this.ts.next();
          this.ts.addError(
            posRangeOf(expr),
            `${t.type.toLowerCase()} modifier is experimental and not enabled`,
          );
          break;
        default:
          return expr;
      }
    }
  }

  private parsePrimary(): Expr {
    const ts = this.ts;
    const t = ts.peek();
    switch (t.type) {
      case 'NUMBER':
      case 'DURATION': {
        ts.next();
        const n: NumberLiteral = {
          type: 'NumberLiteral',
          val: literalSeconds(ts, t).seconds,
          posRange: tokenRange(t),
          ...(t.type === 'DURATION' ? { duration: true } : {}),
        };
        return n;
      }
      case 'STRING':
        ts.next();
        return { type: 'StringLiteral', val: unquoteToken(ts, t), posRange: tokenRange(t) };
      case 'LEFT_PAREN': {
        ts.next();
        const inner = this.parseExpr(0);
        const rp = ts.peek();
        if (rp.type !== 'RIGHT_PAREN') ts.unexpectedHere(rp);
        ts.next();
        return { type: 'ParenExpr', expr: inner, posRange: { start: t.pos, end: rp.pos + rp.len } };
      }
      case 'LEFT_BRACE':
        return parseVectorSelector(ts, undefined);
    }
    if (!METRIC_IDENTIFIER_TOKENS.has(t.type)) ts.unexpectedHere(t);
    ts.next();
    const after = ts.peek().type;
    if (
      isAggregatorToken(t.type) &&
      (after === 'LEFT_PAREN' || after === 'BY' || after === 'WITHOUT')
    ) {
      return this.parseAggregate(t);
    }
    if (after === 'LEFT_PAREN' && isCallName(t.type)) return this.parseCall(t);
    return parseVectorSelector(ts, t);
  }

  /** `(args…)`; the lookahead is LEFT_PAREN. */
  private parseCallBody(): { args: Expr[]; end: number } {
    const ts = this.ts;
    ts.next();
    const args: Expr[] = [];
    const rp0 = ts.accept('RIGHT_PAREN');
    if (rp0 !== undefined) return { args, end: rp0.pos + rp0.len };
    for (;;) {
      args.push(this.parseExpr(0));
      const t = ts.peek();
      if (t.type === 'RIGHT_PAREN') {
        ts.next();
        return { args, end: t.pos + t.len };
      }
      if (t.type !== 'COMMA') ts.unexpectedHere(t);
      let comma = ts.next();
      // yacc reduces `args COMMA` (with this error) whenever another comma or `)` follows.
      for (;;) {
        const n = ts.peek();
        if (n.type !== 'COMMA' && n.type !== 'RIGHT_PAREN') break;
        ts.addError(tokenRange(comma), 'trailing commas not allowed in function call args');
        if (n.type === 'RIGHT_PAREN') {
          ts.next();
          return { args, end: n.pos + n.len };
        }
        comma = ts.next();
      }
    }
  }

  private parseCall(name: Token): Call {
    const body = this.parseCallBody();
    const fn = getFunction(name.val);
    if (fn === undefined) {
      this.ts.addError(tokenRange(name), `unknown function with name ${goQuote(name.val)}`);
    } else if (fn.experimental && !this.experimental) {
      this.ts.addError(tokenRange(name), `function ${goQuote(name.val)} is not enabled`);
    }
    return {
      type: 'Call',
      func: name.val,
      args: body.args,
      posRange: { start: name.pos, end: body.end },
    };
  }

  private parseAggregate(opTok: Token): Expr {
    const ts = this.ts;
    const op = opTok.type.toLowerCase() as AggregateOp;
    return ts.withContext('aggregation', () => {
      let grouping: readonly string[] = [];
      let without = false;
      let body: { args: Expr[]; end: number };
      let end: number;
      const first = ts.peek();
      if (first.type === 'BY' || first.type === 'WITHOUT') {
        ts.next();
        without = first.type === 'WITHOUT';
        grouping = parseGroupingLabels(ts);
        if (ts.peek().type !== 'LEFT_PAREN') ts.unexpectedHere();
        body = this.parseCallBody();
        end = body.end;
      } else {
        body = this.parseCallBody();
        end = body.end;
        const m = ts.peek();
        if (m.type === 'BY' || m.type === 'WITHOUT') {
          ts.next();
          without = m.type === 'WITHOUT';
          grouping = parseGroupingLabels(ts);
          end = ts.lastClosing;
        }
      }
      return this.newAggregate(op, opTok.pos, end, body.args, grouping, without);
    });
  }

  private newAggregate(
    op: AggregateOp,
    start: number,
    end: number,
    args: readonly Expr[],
    grouping: readonly string[],
    without: boolean,
  ): Expr {
    const posRange = { start, end };
    const placeholder: Expr = { type: 'NumberLiteral', val: 0, posRange };
    const agg = (expr: Expr, param: Expr | undefined): AggregateExpr => ({
      type: 'AggregateExpr',
      op,
      expr,
      param,
      grouping,
      without,
      posRange,
    });
    if (args.length === 0) {
      this.ts.addError(posRange, 'no arguments for aggregate expression provided');
      return agg(placeholder, undefined);
    }
    let desired = 1;
    let param: Expr | undefined;
    if (PARAM_AGGREGATORS.has(op)) {
      if (!this.experimental && (op === 'limitk' || op === 'limit_ratio')) {
        this.ts.addError(
          posRange,
          `${op}() is experimental and must be enabled with --enable-feature=promql-experimental-functions`,
        );
        return agg(placeholder, undefined);
      }
      desired = 2;
      param = args[0];
    }
    if (args.length !== desired) {
      this.ts.addError(
        posRange,
        `wrong number of arguments for aggregate expression provided, expected ${desired}, got ${args.length}`,
      );
      return agg(placeholder, param);
    }
    return agg(args[desired - 1] as Expr, param);
  }

  private parseBinModifiers(): BinModifiers {
    const ts = this.ts;
    const returnBool = ts.accept('BOOL') !== undefined;
    let card: VectorMatchCardinality = 'one-to-one';
    let matchingLabels: readonly string[] = [];
    let on = false;
    let include: readonly string[] = [];
    const m = ts.peek();
    if (m.type === 'ON' || m.type === 'IGNORING') {
      ts.next();
      on = m.type === 'ON';
      matchingLabels = parseGroupingLabels(ts);
      const g = ts.peek();
      if (g.type === 'GROUP_LEFT' || g.type === 'GROUP_RIGHT') {
        ts.next();
        card = g.type === 'GROUP_LEFT' ? 'many-to-one' : 'one-to-many';
        if (ts.peek().type === 'LEFT_PAREN') include = parseGroupingLabels(ts);
      }
    }
    const fill = this.parseFillModifiers();
    return { returnBool, card, matchingLabels, on, include, fill };
  }

  /** `fill(v)`, `fill_left(v)`, `fill_right(v)` (feature-gated in Prometheus); true if present. */
  private parseFillModifiers(): boolean {
    const ts = this.ts;
    let seen = false;
    for (;;) {
      const f = ts.peek();
      if (f.type !== 'FILL' && f.type !== 'FILL_LEFT' && f.type !== 'FILL_RIGHT') return seen;
      ts.next();
      seen = true;
      if (ts.peek().type !== 'LEFT_PAREN') ts.unexpectedHere();
      ts.next();
      const s = ts.peek();
      if (s.type === 'ADD' || s.type === 'SUB') ts.next();
      if (ts.peek().type !== 'NUMBER') ts.unexpectedHere();
      ts.next();
      if (ts.peek().type !== 'RIGHT_PAREN') ts.unexpectedHere();
      ts.next();
      if (f.type === 'FILL') return seen;
    }
  }

  parseTop(): Expr {
    const ts = this.ts;
    if (ts.peek().type === 'EOF') {
      ts.addError({ start: 0, end: 0 }, 'no expression found in input');
      throw new SyntaxAbort();
    }
    const e = this.parseExpr(0);
    const t = ts.peek();
    if (t.type !== 'EOF') ts.unexpectedHere(t);
    return e;
  }

  parseSelectorOnly(): readonly Matcher[] {
    const ts = this.ts;
    const t = ts.peek();
    let vs;
    if (t.type === 'LEFT_BRACE') {
      vs = parseVectorSelector(ts, undefined);
    } else if (METRIC_IDENTIFIER_TOKENS.has(t.type)) {
      ts.next();
      vs = parseVectorSelector(ts, t);
    } else {
      return ts.unexpectedHere(t);
    }
    const end = ts.peek();
    if (end.type !== 'EOF') ts.unexpectedHere(end);
    return vs.labelMatchers;
  }
}

function isCallName(t: TokenType): boolean {
  return t === 'IDENTIFIER' || t === 'START' || t === 'END' || t === 'STEP' || t === 'RANGE';
}

function run<T>(p: ExprParser, input: string, f: () => T): T {
  let result: T;
  try {
    result = f();
  } catch (e) {
    if (e instanceof SyntaxAbort) throw new ParseError(input, p.ts.errors);
    throw e;
  }
  if (p.ts.errors.length > 0) throw new ParseError(input, p.ts.errors);
  return result;
}

/**
 * Parses and type-checks a PromQL expression (Prometheus parser.ParseExpr). Throws ParseError
 * with Prometheus's message, e.g. `1:8: parse error: unexpected end of input`.
 */
export function parseExpr(input: string, opts: ParseOptions = {}): Expr {
  const p = new ExprParser(input, opts.enableExperimentalFunctions ?? true);
  const expr = run(p, input, () => p.parseTop());
  const errors = checkExpr(expr, p.ts.lexer.bytes);
  if (errors.length > 0) throw new ParseError(input, errors);
  return expr;
}

/**
 * Syntax only, without type checking: for tests that compare the grammar with other parsers.
 * Returns the ParseError instead of throwing it.
 */
export function parseSyntaxOnly(input: string): Expr | ParseError {
  const p = new ExprParser(input, true);
  try {
    return run(p, input, () => p.parseTop());
  } catch (e) {
    if (e instanceof ParseError) return e;
    throw e;
  }
}

/**
 * Parses a series selector such as `up{job="x"}` (Prometheus parser.ParseMetricSelector, used
 * for the API's `match[]`). No type checking: `{}` is accepted here.
 */
export function parseMetricSelector(input: string): readonly Matcher[] {
  const p = new ExprParser(input, true);
  return run(p, input, () => p.parseSelectorOnly());
}
