// The postfix modifiers of Prometheus's grammar: `[range]`, `[range:step]`, `offset`, `@` and
// the feature-gated `anchored`/`smoothed`, with the checks and messages of parse.go
// (addOffset, setTimestamp, getAtModifierVars) and of the matrix_selector/subquery_expr rules.
// Duration arithmetic (`[5m+1m]`, `offset step()`) is Prometheus's `promql-duration-expr`
// feature and is rejected here.
import { formatFloatFixed6 } from '../../model/index.js';
import type { Expr, MatrixSelector, SubqueryExpr, VectorSelector } from './ast.js';
import { DurationParseError, parseDuration } from './duration.js';
import { parseNumberLiteral } from './number.js';
import { SyntaxAbort, tokenRange, type TokenStream } from './token_stream.js';
import type { Token, TokenType } from './tokens.js';
import { posRangeOf } from './walk.js';

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** time.Duration's bound in seconds (1<<63 / 1e9). */
const MAX_DURATION_SECONDS = 2 ** 63 / 1e9;
const DURATION_EXPR_MESSAGE = 'experimental duration expression is not enabled';
const DURATION_EXPR_STARTS: ReadonlySet<TokenType> = new Set<TokenType>([
  'STEP',
  'RANGE',
  'MIN',
  'MAX',
  'MIN_OF',
  'MAX_OF',
]);
const DURATION_ARITHMETIC: ReadonlySet<TokenType> = new Set<TokenType>([
  'ADD',
  'SUB',
  'MUL',
  'DIV',
  'MOD',
  'POW',
]);

/** Go's math.Round (half away from zero). */
export function goRound(x: number): number {
  return x < 0 ? -Math.round(-x) : Math.round(x);
}

/** A seconds value as Prometheus turns it into a time.Duration, in ms (truncated). */
function secondsToMs(secs: number): number {
  return Math.trunc(goRound(secs * 1e9) / 1e6);
}

interface Literal {
  /** Value in seconds, sign applied. */
  readonly seconds: number;
  /** Exact milliseconds when the literal was a duration such as `5m`. */
  readonly ms: number | undefined;
  readonly start: number;
  readonly end: number;
  /** The sign token, if any (Prometheus reports some errors at it). */
  readonly sign: Token | undefined;
}

/** The value of a NUMBER or DURATION token in seconds, recording Prometheus's errors. */
export function literalSeconds(
  ts: TokenStream,
  t: Token,
): { seconds: number; ms: number | undefined } {
  if (t.type === 'DURATION') {
    try {
      const ms = parseDuration(t.val);
      return { seconds: ms / 1000, ms };
    } catch (e) {
      if (!(e instanceof DurationParseError)) throw e;
      ts.addError(tokenRange(t), e.message);
      return { seconds: 0, ms: 0 };
    }
  }
  const n = parseNumberLiteral(t.val);
  if ('error' in n) {
    ts.addError(tokenRange(t), n.error);
    return { seconds: 0, ms: undefined };
  }
  return { seconds: n.value, ms: undefined };
}

function rejectDurationExpr(ts: TokenStream, at: { pos: number; len: number }): never {
  ts.addError({ start: at.pos, end: at.pos + at.len }, DURATION_EXPR_MESSAGE);
  throw new SyntaxAbort();
}

/**
 * An optionally signed number or duration literal; `onBad` reports anything else. Duration
 * expressions are rejected as the feature is disabled.
 */
function parseSignedLiteral(ts: TokenStream, onBad: () => never): Literal {
  // Several signs are a (non-experimental) unary duration_expr chain: `offset - -5m` is 5m.
  let sign: Token | undefined;
  let neg = false;
  for (let s = ts.peek(); s.type === 'ADD' || s.type === 'SUB'; s = ts.peek()) {
    sign ??= s;
    if (s.type === 'SUB') neg = !neg;
    ts.next();
  }
  const t = ts.peek();
  if (t.type === 'LEFT_PAREN') {
    // A parenthesised literal, `offset (5)` or `[(5s)]`, needs no feature flag in Prometheus.
    ts.next();
    const inner = parseSignedLiteral(ts, onBad);
    if (DURATION_ARITHMETIC.has(ts.peek().type)) {
      rejectDurationExpr(ts, { pos: inner.start, len: inner.end - inner.start });
    }
    const rp = ts.peek();
    if (rp.type !== 'RIGHT_PAREN') onBad();
    ts.next();
    return {
      seconds: neg ? -inner.seconds : inner.seconds,
      ms: inner.ms === undefined ? undefined : neg ? -inner.ms : inner.ms,
      start: sign?.pos ?? t.pos,
      end: rp.pos + rp.len,
      sign,
    };
  }
  if (t.type !== 'NUMBER' && t.type !== 'DURATION') {
    if (DURATION_EXPR_STARTS.has(t.type)) {
      ts.next();
      // Without `(` it is a plain syntax error, reported at the token after the keyword.
      if (ts.peek().type !== 'LEFT_PAREN') onBad();
      // step()/range()/min_of()/max_of() depend on the query; the tree has no place for them.
      ts.addError(
        tokenRange(t),
        `duration expression ${t.val}() is not supported (promql-duration-expr)`,
      );
      throw new SyntaxAbort();
    }
    onBad();
  }
  ts.next();
  const v = literalSeconds(ts, t);
  return {
    seconds: neg ? -v.seconds : v.seconds,
    ms: v.ms === undefined ? undefined : neg ? -v.ms : v.ms,
    start: sign?.pos ?? t.pos,
    end: t.pos + t.len,
    sign,
  };
}

function literalMs(l: Literal): number {
  return l.ms ?? secondsToMs(l.seconds);
}

function outOfRange(secs: number): boolean {
  return secs > MAX_DURATION_SECONDS || secs < -MAX_DURATION_SECONDS;
}

/** A range or step inside brackets (positive_duration_expr). */
function parseBracketDuration(ts: TokenStream, onBad: () => never): number {
  const lit = parseSignedLiteral(ts, onBad);
  // Prometheus reports duration arithmetic at its left operand.
  if (DURATION_ARITHMETIC.has(ts.peek().type))
    rejectDurationExpr(ts, { pos: lit.start, len: lit.end - lit.start });
  if (outOfRange(lit.seconds)) {
    ts.addError(
      lit.sign === undefined ? { start: lit.start, end: lit.end } : tokenRange(lit.sign),
      'duration out of range',
    );
    return 0;
  }
  if (lit.seconds <= 0) {
    ts.addError({ start: lit.start, end: lit.end }, 'duration must be greater than 0');
    return 0;
  }
  return literalMs(lit);
}

/** `expr[…]` with the lookahead on LEFT_BRACKET: a range selector or a subquery. */
export function parseRangeOrSubquery(ts: TokenStream, expr: Expr): Expr {
  const lb = ts.next();
  const range = parseBracketDuration(ts, () =>
    ts.unexpected('subquery or range selector', 'number, duration, step(), or range()'),
  );
  const t = ts.peek();
  if (t.type === 'RIGHT_BRACKET') {
    ts.next();
    let msg = '';
    if (expr.type !== 'VectorSelector') msg = 'ranges only allowed for vector selectors';
    else if (expr.originalOffset !== 0) msg = 'no offset modifiers allowed before range';
    else if (expr.timestamp !== undefined || expr.startOrEnd !== undefined) {
      msg = 'no @ modifiers allowed before range';
    }
    if (msg !== '') {
      ts.addError({ start: lb.pos, end: t.pos + t.len }, msg);
      return expr;
    }
    const ms: MatrixSelector = {
      type: 'MatrixSelector',
      vectorSelector: expr as VectorSelector,
      range,
      endPos: ts.lastClosing,
    };
    return ms;
  }
  if (t.type !== 'COLON') ts.unexpected('subquery or range', '":" or "]"');
  ts.next();
  let step = 0;
  if (ts.peek().type !== 'RIGHT_BRACKET') {
    step = parseBracketDuration(ts, () =>
      ts.unexpected('subquery selector', 'number, duration, step(), range(), or "]"'),
    );
    if (ts.peek().type !== 'RIGHT_BRACKET') ts.unexpected('subquery selector', '"]"');
  }
  const rb = ts.next();
  const sq: SubqueryExpr = {
    type: 'SubqueryExpr',
    expr,
    range,
    step,
    offset: 0,
    originalOffset: 0,
    timestamp: undefined,
    startOrEnd: undefined,
    endPos: rb.pos + 1,
  };
  return sq;
}

/** The node that carries offset/@ for `e`, or undefined when `e` cannot have them. */
function modifierTarget(e: Expr): Mutable<VectorSelector> | Mutable<SubqueryExpr> | undefined {
  if (e.type === 'VectorSelector' || e.type === 'SubqueryExpr') return e;
  if (e.type === 'MatrixSelector') return e.vectorSelector;
  return undefined;
}

function setEnd(e: Expr, end: number): void {
  if (e.type === 'VectorSelector') (e.posRange as { end: number }).end = end;
  else if (e.type === 'MatrixSelector' || e.type === 'SubqueryExpr')
    (e as { endPos: number }).endPos = end;
}

/** `expr offset <duration>` with OFFSET already consumed (offset_expr + addOffset). */
export function parseOffset(ts: TokenStream, expr: Expr): Expr {
  const lit = parseSignedLiteral(ts, () =>
    ts.unexpected('offset', 'number, duration, step(), or range()'),
  );
  let ms = literalMs(lit);
  if (outOfRange(lit.seconds)) {
    ts.addError(
      lit.sign === undefined ? { start: lit.start, end: lit.end } : tokenRange(lit.sign),
      'duration out of range',
    );
    ms = 0;
  }
  const target = modifierTarget(expr);
  if (target === undefined) {
    ts.addError(
      posRangeOf(expr),
      'offset modifier must be preceded by an instant vector selector or range vector selector or a subquery',
    );
    return expr;
  }
  if (target.originalOffset !== 0) {
    ts.addError(posRangeOf(expr), 'offset may not be set multiple times');
  } else {
    target.originalOffset = ms;
    target.offset = ms;
  }
  setEnd(expr, ts.lastClosing);
  return expr;
}

function atTarget(
  ts: TokenStream,
  expr: Expr,
): Mutable<VectorSelector> | Mutable<SubqueryExpr> | undefined {
  const target = modifierTarget(expr);
  if (target === undefined) {
    ts.addError(
      posRangeOf(expr),
      '@ modifier must be preceded by an instant vector selector or range vector selector or a subquery',
    );
    return undefined;
  }
  if (target.timestamp !== undefined || target.startOrEnd !== undefined) {
    ts.addError(posRangeOf(expr), '@ <timestamp> may not be set multiple times');
    return undefined;
  }
  return target;
}

/** `expr @ <timestamp>` / `@ start()` / `@ end()` with AT already consumed. */
export function parseAt(ts: TokenStream, expr: Expr): Expr {
  const bad = (): never => ts.unexpected('@', 'timestamp');
  const t = ts.peek();
  if (t.type === 'START' || t.type === 'END') {
    ts.next();
    if (ts.peek().type !== 'LEFT_PAREN') bad();
    ts.next();
    if (ts.peek().type !== 'RIGHT_PAREN') bad();
    ts.next();
    const target = atTarget(ts, expr);
    if (target !== undefined) {
      target.startOrEnd = t.type === 'START' ? 'start' : 'end';
      setEnd(expr, ts.lastClosing);
    }
    return expr;
  }
  if (t.type !== 'NUMBER' && t.type !== 'DURATION' && t.type !== 'ADD' && t.type !== 'SUB') bad();
  const first = ts.next();
  let seconds: number;
  if (first.type === 'ADD' || first.type === 'SUB') {
    const n = ts.peek();
    if (n.type !== 'NUMBER' && n.type !== 'DURATION') bad();
    ts.next();
    const v = literalSeconds(ts, n).seconds;
    seconds = first.type === 'SUB' ? -v : v;
  } else {
    seconds = literalSeconds(ts, first).seconds;
  }
  if (!Number.isFinite(seconds) || seconds >= 2 ** 63 || seconds <= -(2 ** 63)) {
    ts.addError(
      posRangeOf(expr),
      `timestamp out of bounds for @ modifier: ${formatFloatFixed6(seconds)}`,
    );
  }
  const target = atTarget(ts, expr);
  if (target !== undefined) {
    target.timestamp = goRound(seconds * 1000);
    setEnd(expr, ts.lastClosing);
  }
  return expr;
}
