// Parse errors as Prometheus reports them: each error has a byte position range in the query,
// and the printed message is `<line>:<col>: parse error: <text>` for the first error
// (ParseErrors.Error() prints only the first one; all are kept in `errors`).
import type { PositionRange } from './ast.js';
import { PromQLError } from '../errors.js';

/** One parse error (Prometheus ParseErr). */
export interface ParseErrorItem {
  readonly positionRange: PositionRange;
  /** The error text without position, e.g. `unexpected end of input`. */
  readonly message: string;
}

/**
 * Prometheus PositionRange.StartPosInput: 1-based line and byte column of the start position,
 * `unknown position` for an empty query.
 */
export function startPosInput(query: string, pos: number, lineOffset = 0): string {
  if (query === '') return 'unknown position';
  const bytes = new TextEncoder().encode(query);
  if (pos < 0 || pos > bytes.length) return 'invalid position';
  let line = 0;
  let lastLineBreak = -1;
  for (let i = 0; i < pos; i++) {
    if (bytes[i] === 0x0a) {
      line++;
      lastLineBreak = i;
    }
  }
  return `${line + lineOffset + 1}:${pos - lastLineBreak}`;
}

/** The text of one error as Prometheus's ParseErr.Error() prints it. */
export function formatParseError(query: string, err: ParseErrorItem): string {
  return `${startPosInput(query, err.positionRange.start)}: parse error: ${err.message}`;
}

/** A query that does not parse or type-check (HTTP 400 `bad_data`). */
export class ParseError extends PromQLError {
  /** Position of the first error. */
  readonly positionRange: PositionRange;

  constructor(
    readonly query: string,
    readonly errors: readonly ParseErrorItem[],
  ) {
    const first = errors[0];
    super(
      'bad_data',
      first === undefined ? 'error contains no error message' : formatParseError(query, first),
    );
    this.name = 'ParseError';
    this.positionRange = first?.positionRange ?? { start: 0, end: 0 };
  }
}
