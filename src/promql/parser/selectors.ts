// Vector selectors and label lists: `metric{a="b", c!~"d"}`, `{"my.metric", "a.b"="c"}`, and
// the `by (…)` / `on (…)` label lists, with the error texts of Prometheus's grammar rules
// label_matchers, label_matcher and grouping_labels.
import {
  Matcher,
  Re2SyntaxError,
  goQuote,
  isValidLabelName,
  type MatchType,
} from '../../model/index.js';
import type { VectorSelector } from './ast.js';
import { tokenRange, type TokenStream } from './token_stream.js';
import type { Token, TokenType } from './tokens.js';
import { UnquoteError, unquoteString } from './unquote.js';

/** Tokens that may name a metric outside braces (grammar rule metric_identifier). */
export const METRIC_IDENTIFIER_TOKENS: ReadonlySet<TokenType> = new Set<TokenType>([
  'AVG',
  'BOTTOMK',
  'BY',
  'COUNT',
  'COUNT_VALUES',
  'GROUP',
  'IDENTIFIER',
  'LAND',
  'LOR',
  'LUNLESS',
  'MAX',
  'METRIC_IDENTIFIER',
  'MIN',
  'OFFSET',
  'QUANTILE',
  'STDDEV',
  'STDVAR',
  'SUM',
  'TOPK',
  'WITHOUT',
  'START',
  'END',
  'LIMITK',
  'LIMIT_RATIO',
  'STEP',
  'RANGE',
  'ANCHORED',
  'SMOOTHED',
]);

/** Tokens that may be a label name in a grouping list (grammar rule maybe_label). */
const MAYBE_LABEL_TOKENS: ReadonlySet<TokenType> = new Set<TokenType>([
  'AVG',
  'BOOL',
  'BOTTOMK',
  'BY',
  'COUNT',
  'COUNT_VALUES',
  'GROUP',
  'GROUP_LEFT',
  'GROUP_RIGHT',
  'IDENTIFIER',
  'IGNORING',
  'LAND',
  'LOR',
  'LUNLESS',
  'MAX',
  'METRIC_IDENTIFIER',
  'MIN',
  'OFFSET',
  'ON',
  'QUANTILE',
  'STDDEV',
  'STDVAR',
  'SUM',
  'TOPK',
  'START',
  'END',
  'ATAN2',
  'LIMITK',
  'LIMIT_RATIO',
  'STEP',
  'RANGE',
  'ANCHORED',
  'SMOOTHED',
]);

const MATCH_OPS: Readonly<Partial<Record<TokenType, MatchType>>> = {
  EQL: '=',
  NEQ: '!=',
  EQL_REGEX: '=~',
  NEQ_REGEX: '!~',
};

/** Unquotes a STRING token, recording Prometheus's error if it is malformed. */
export function unquoteToken(ts: TokenStream, t: Token): string {
  try {
    return unquoteString(t.val);
  } catch (e) {
    if (!(e instanceof UnquoteError)) throw e;
    ts.addError(tokenRange(t), `error unquoting string ${goQuote(t.val)}: ${e.message}`);
    return '';
  }
}

function newMatcher(
  ts: TokenStream,
  type: MatchType,
  name: string,
  value: string,
  start: number,
  end: number,
): Matcher | undefined {
  try {
    return new Matcher(type, name, value);
  } catch (e) {
    let message = e instanceof Error ? e.message : String(e);
    // Prometheus compiles `^(?s:<value>)$`; Go names the whole expression in these two errors.
    if (
      e instanceof Re2SyntaxError &&
      (e.code === 'missing closing )' || e.code === 'unexpected )')
    ) {
      message = `error parsing regexp: ${e.code}: \`^(?s:${value})$\``;
    }
    ts.addError({ start, end }, message);
    return undefined;
  }
}

function parseLabelMatcher(ts: TokenStream, out: Matcher[]): void {
  const t = ts.peek();
  if (t.type !== 'IDENTIFIER' && t.type !== 'STRING') {
    ts.unexpected('label matching', 'identifier or "}"');
  }
  ts.next();
  const name = t.type === 'STRING' ? unquoteToken(ts, t) : t.val;
  const opType = MATCH_OPS[ts.peek().type];
  if (opType === undefined) {
    if (t.type === 'IDENTIFIER') ts.unexpected('label matching', 'label matching operator');
    // A lone quoted string inside braces is the metric name.
    const m = newMatcher(ts, '=', '__name__', name, t.pos, t.pos + t.len);
    if (m !== undefined) out.push(m);
    return;
  }
  ts.next();
  const v = ts.peek();
  if (v.type !== 'STRING') ts.unexpected('label matching', 'string');
  ts.next();
  const value = unquoteToken(ts, v);
  const m = newMatcher(ts, opType, name, value, t.pos, v.pos + v.len);
  if (m !== undefined) out.push(m);
}

/** Parses `{…}` (the lookahead is LEFT_BRACE); returns the matchers and the end position. */
export function parseLabelMatchers(ts: TokenStream): {
  matchers: Matcher[];
  start: number;
  end: number;
} {
  const lb = ts.next();
  const matchers: Matcher[] = [];
  for (;;) {
    const rb = ts.accept('RIGHT_BRACE');
    if (rb !== undefined) return { matchers, start: lb.pos, end: rb.pos + rb.len };
    parseLabelMatcher(ts, matchers);
    const t = ts.peek();
    if (t.type === 'COMMA') {
      ts.next();
      continue;
    }
    if (t.type !== 'RIGHT_BRACE') ts.unexpected('label matching', '"," or "}"');
  }
}

/** A vector selector starting at the lookahead: a metric name, `{…}`, or both. */
export function parseVectorSelector(ts: TokenStream, nameToken: Token | undefined): VectorSelector {
  let matchers: Matcher[] = [];
  let start = nameToken?.pos ?? ts.peek().pos;
  let end = nameToken === undefined ? start : nameToken.pos + nameToken.len;
  if (ts.peek().type === 'LEFT_BRACE') {
    const lm = parseLabelMatchers(ts);
    matchers = lm.matchers;
    if (nameToken === undefined) start = lm.start;
    end = lm.end;
  }
  const name = nameToken?.val ?? '';
  if (name !== '') matchers.push(new Matcher('=', '__name__', name));
  return {
    type: 'VectorSelector',
    name,
    labelMatchers: matchers,
    offset: 0,
    originalOffset: 0,
    timestamp: undefined,
    startOrEnd: undefined,
    posRange: { start, end },
  };
}

/** `(a, b, "c.d")` of by/without/on/ignoring/group_left (the grouping_labels rule). */
export function parseGroupingLabels(ts: TokenStream): string[] {
  if (ts.peek().type !== 'LEFT_PAREN') ts.unexpected('grouping opts', '"("');
  ts.next();
  const labels: string[] = [];
  if (ts.accept('RIGHT_PAREN') !== undefined) return labels;
  for (;;) {
    const t = ts.peek();
    if (MAYBE_LABEL_TOKENS.has(t.type)) {
      ts.next();
      labels.push(t.val);
    } else if (t.type === 'STRING') {
      ts.next();
      const name = unquoteToken(ts, t);
      if (!isValidLabelName(name)) {
        ts.addError(tokenRange(t), `invalid label name for grouping: ${goQuote(name)}`);
      }
      labels.push(name);
    } else {
      ts.unexpected('grouping opts', 'label');
    }
    const sep = ts.peek();
    if (sep.type === 'COMMA') {
      ts.next();
      if (ts.accept('RIGHT_PAREN') !== undefined) return labels;
      continue;
    }
    if (sep.type === 'RIGHT_PAREN') {
      ts.next();
      return labels;
    }
    ts.unexpected('grouping opts', '"," or ")"');
  }
}
