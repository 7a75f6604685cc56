// Token kinds of the PromQL lexer, named after Prometheus's ItemType constants, and the way
// Prometheus describes a token in "unexpected …" errors (Item.desc()), so syntax errors read
// exactly like Prometheus's.
import { goQuote } from '../../model/index.js';

export type OperatorToken =
  | 'ADD'
  | 'DIV'
  | 'EQLC'
  | 'EQL_REGEX'
  | 'GTE'
  | 'GTR'
  | 'LAND'
  | 'LOR'
  | 'LSS'
  | 'LTE'
  | 'LUNLESS'
  | 'MOD'
  | 'MUL'
  | 'NEQ'
  | 'NEQ_REGEX'
  | 'POW'
  | 'SUB'
  | 'AT'
  | 'ATAN2'
  | 'TRIM_UPPER'
  | 'TRIM_LOWER';

export type AggregatorToken =
  | 'AVG'
  | 'BOTTOMK'
  | 'COUNT'
  | 'COUNT_VALUES'
  | 'GROUP'
  | 'MAX'
  | 'MIN'
  | 'QUANTILE'
  | 'STDDEV'
  | 'STDVAR'
  | 'SUM'
  | 'TOPK'
  | 'LIMITK'
  | 'LIMIT_RATIO';

export type KeywordToken =
  | 'BOOL'
  | 'BY'
  | 'GROUP_LEFT'
  | 'GROUP_RIGHT'
  | 'IGNORING'
  | 'OFFSET'
  | 'SMOOTHED'
  | 'ANCHORED'
  | 'ON'
  | 'WITHOUT'
  | 'FILL'
  | 'FILL_LEFT'
  | 'FILL_RIGHT';

export type PreprocessorToken = 'START' | 'END' | 'STEP' | 'RANGE' | 'MIN_OF' | 'MAX_OF';

export type TokenType =
  | 'EOF'
  | 'ERROR'
  | 'COMMENT'
  | 'IDENTIFIER'
  | 'METRIC_IDENTIFIER'
  | 'NUMBER'
  | 'DURATION'
  | 'STRING'
  | 'LEFT_PAREN'
  | 'RIGHT_PAREN'
  | 'LEFT_BRACE'
  | 'RIGHT_BRACE'
  | 'LEFT_BRACKET'
  | 'RIGHT_BRACKET'
  | 'COMMA'
  | 'EQL'
  | 'COLON'
  | 'DOUBLE_COLON'
  | OperatorToken
  | AggregatorToken
  | KeywordToken
  | PreprocessorToken;

export interface Token {
  readonly type: TokenType;
  /** Byte offset of the token's first byte. */
  readonly pos: number;
  /** The token's text (for ERROR the message). */
  readonly val: string;
  /** Byte length of the token's text in the input. */
  readonly len: number;
}

/** Words the lexer turns into keyword tokens (matched case-insensitively), as lex.go's `key`. */
export const KEYWORDS: ReadonlyMap<string, TokenType> = new Map<string, TokenType>([
  ['and', 'LAND'],
  ['or', 'LOR'],
  ['unless', 'LUNLESS'],
  ['atan2', 'ATAN2'],
  ['sum', 'SUM'],
  ['avg', 'AVG'],
  ['count', 'COUNT'],
  ['min', 'MIN'],
  ['max', 'MAX'],
  ['group', 'GROUP'],
  ['stddev', 'STDDEV'],
  ['stdvar', 'STDVAR'],
  ['topk', 'TOPK'],
  ['bottomk', 'BOTTOMK'],
  ['count_values', 'COUNT_VALUES'],
  ['quantile', 'QUANTILE'],
  ['limitk', 'LIMITK'],
  ['limit_ratio', 'LIMIT_RATIO'],
  ['offset', 'OFFSET'],
  ['smoothed', 'SMOOTHED'],
  ['anchored', 'ANCHORED'],
  ['by', 'BY'],
  ['without', 'WITHOUT'],
  ['on', 'ON'],
  ['ignoring', 'IGNORING'],
  ['group_left', 'GROUP_LEFT'],
  ['group_right', 'GROUP_RIGHT'],
  ['fill', 'FILL'],
  ['fill_left', 'FILL_LEFT'],
  ['fill_right', 'FILL_RIGHT'],
  ['bool', 'BOOL'],
  ['start', 'START'],
  ['end', 'END'],
  ['step', 'STEP'],
  ['range', 'RANGE'],
  // Special numbers.
  ['inf', 'NUMBER'],
  ['nan', 'NUMBER'],
]);

const OPERATORS: ReadonlySet<TokenType> = new Set<TokenType>([
  'ADD',
  'DIV',
  'EQLC',
  'EQL_REGEX',
  'GTE',
  'GTR',
  'LAND',
  'LOR',
  'LSS',
  'LTE',
  'LUNLESS',
  'MOD',
  'MUL',
  'NEQ',
  'NEQ_REGEX',
  'POW',
  'SUB',
  'AT',
  'ATAN2',
  'TRIM_UPPER',
  'TRIM_LOWER',
]);

const AGGREGATORS: ReadonlySet<TokenType> = new Set<TokenType>([
  'AVG',
  'BOTTOMK',
  'COUNT',
  'COUNT_VALUES',
  'GROUP',
  'MAX',
  'MIN',
  'QUANTILE',
  'STDDEV',
  'STDVAR',
  'SUM',
  'TOPK',
  'LIMITK',
  'LIMIT_RATIO',
]);

const KEYWORD_TOKENS: ReadonlySet<TokenType> = new Set<TokenType>([
  'BOOL',
  'BY',
  'GROUP_LEFT',
  'GROUP_RIGHT',
  'IGNORING',
  'OFFSET',
  'SMOOTHED',
  'ANCHORED',
  'ON',
  'WITHOUT',
  'FILL',
  'FILL_LEFT',
  'FILL_RIGHT',
]);

/** Token types that ItemTypeStr knows, i.e. whose description is the token itself. */
const HAS_TYPE_STR: ReadonlySet<TokenType> = new Set<TokenType>([
  'LEFT_PAREN',
  'RIGHT_PAREN',
  'LEFT_BRACE',
  'RIGHT_BRACE',
  'LEFT_BRACKET',
  'RIGHT_BRACKET',
  'COMMA',
  'EQL',
  'COLON',
  'DOUBLE_COLON',
  'START',
  'END',
  'STEP',
  'RANGE',
  'MIN_OF',
  'MAX_OF',
  ...OPERATORS,
  ...AGGREGATORS,
  ...KEYWORD_TOKENS,
]);

export function isOperatorToken(t: TokenType): t is OperatorToken {
  return OPERATORS.has(t);
}

export function isAggregatorToken(t: TokenType): t is AggregatorToken {
  return AGGREGATORS.has(t);
}

/** Go's `%.10q`: the first 10 runes quoted. */
function quotePrefix10(s: string): string {
  return goQuote(Array.from(s).slice(0, 10).join(''));
}

/** Prometheus Item.String(). */
function itemString(t: Token): string {
  if (t.type === 'EOF') return 'EOF';
  if (t.type === 'ERROR') return t.val;
  if (t.type === 'IDENTIFIER' || t.type === 'METRIC_IDENTIFIER') return goQuote(t.val);
  if (KEYWORD_TOKENS.has(t.type)) return `<${t.val}>`;
  if (OPERATORS.has(t.type)) return `<op:${t.val}>`;
  if (AGGREGATORS.has(t.type)) return `<aggr:${t.val}>`;
  if (Array.from(t.val).length > 10) return `${quotePrefix10(t.val)}...`;
  return goQuote(t.val);
}

const TYPE_DESC: Partial<Record<TokenType, string>> = {
  ERROR: 'error',
  EOF: 'end of input',
  COMMENT: 'comment',
  IDENTIFIER: 'identifier',
  METRIC_IDENTIFIER: 'metric identifier',
  STRING: 'string',
  NUMBER: 'number',
  DURATION: 'duration',
};

/** Prometheus Item.desc(): how "unexpected …" names a token. */
export function describeToken(t: Token): string {
  if (HAS_TYPE_STR.has(t.type)) return itemString(t);
  if (t.type === 'EOF') return 'end of input';
  return `${TYPE_DESC[t.type] ?? t.type} ${itemString(t)}`;
}
