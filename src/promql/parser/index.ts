/**
 * The PromQL parser: turns a query string into the typed syntax tree of `ast.ts`, exactly as
 * Prometheus 3's parser would (grammar, precedence, sign folding, positions), type-checks it,
 * and reports errors with Prometheus's texts and `line:col` positions. It also owns the
 * function signature table and Prometheus's duration syntax. It must stay a pure function of
 * its input: no evaluation, no storage, no clock.
 */
export type * from './ast.js';
export { DurationParseError, MAX_DURATION_MS, formatDuration, parseDuration } from './duration.js';
export { ParseError, formatParseError, startPosInput, type ParseErrorItem } from './errors.js';
export { FUNCTIONS, getFunction, type FunctionSignature } from './functions.js';
export { parseExpr, parseMetricSelector, type ParseOptions } from './parser.js';
export { UnquoteError, unquoteString } from './unquote.js';
export { children, documentedType, exprType, inspect, posRangeOf, unwrapParens } from './walk.js';
