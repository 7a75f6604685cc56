/**
 * Parse errors with exactly the text Go's regexp/syntax produces, because the PromQL layer
 * shows them to users verbatim (`error parsing regexp: <code>: \`<expr>\``).
 */
export type Re2ErrorCode =
  | 'invalid character class'
  | 'invalid character class range'
  | 'invalid escape sequence'
  | 'invalid named capture'
  | 'invalid or unsupported Perl syntax'
  | 'invalid nested repetition operator'
  | 'invalid repeat count'
  | 'invalid UTF-8'
  | 'missing closing ]'
  | 'missing closing )'
  | 'missing argument to repetition operator'
  | 'trailing backslash at end of expression'
  | 'unexpected )'
  | 'expression nests too deeply'
  | 'expression too large';

/** A regular expression that RE2 rejects; `code` and `expr` mirror Go's syntax.Error. */
export class Re2SyntaxError extends Error {
  readonly code: Re2ErrorCode;
  readonly expr: string;

  constructor(code: Re2ErrorCode, expr: string) {
    super(`error parsing regexp: ${code}: \`${expr}\``);
    this.name = 'Re2SyntaxError';
    this.code = code;
    this.expr = expr;
  }
}
