/**
 * RE2 regular expressions (Go's regexp/syntax dialect) for label matchers: a parser that
 * accepts and rejects exactly what RE2 does, with Go's error messages, and a linear-time
 * whole-string matcher. It must never hand patterns to JavaScript's RegExp engine, whose
 * syntax and semantics differ from RE2's; Unicode classes and case folding use Go's own tables.
 */
export type { AssertKind, Node } from './ast.js';
export { equalFold, foldKey, foldOrbit } from './case_fold.js';
export { classMatches, type CharClass } from './charclass.js';
export { Re2SyntaxError, type Re2ErrorCode } from './errors.js';
export { MAX_REPEAT, parseRe2, type ParseOptions } from './parser.js';
export { MAX_PROGRAM_SIZE, Program } from './program.js';
export { SubmatchRegex } from './submatch.js';
