// Go string literals in the test scripts (series descriptions and `expect string` lines):
// finding where a literal ends in a line, and reading it with the PromQL parser's unquoting
// (Prometheus reads both with the same lexer rules), with the literal in the error message.
import { UnquoteError as LiteralError, unquoteString } from '../parser/index.js';

export class UnquoteError extends Error {}

/** Index just past the closing quote of the literal that starts at `start`; throws if unterminated. */
export function scanQuoted(s: string, start: number): number {
  const quote = s[start];
  let i = start + 1;
  while (i < s.length) {
    const c = s[i];
    if (c === quote) return i + 1;
    if (c === '\\' && quote !== '`') i++;
    else if (c === '\n' && quote !== '`') break;
    i++;
  }
  throw new UnquoteError(`unterminated quoted string ${s.slice(start)}`);
}

/** The value of a complete Go string literal (quotes included). */
export function unquoteGo(lit: string): string {
  try {
    return unquoteString(lit);
  } catch (e) {
    if (e instanceof LiteralError) throw new UnquoteError(`invalid syntax: ${lit}`);
    throw e;
  }
}
