// The parser's view of the lexer: one token of lookahead, comments skipped, lexer errors
// recorded with Prometheus's position (from the token start to the end of the input), and the
// error list with Prometheus's "unexpected …" wording. A syntax error aborts the parse with
// SyntaxAbort; only the first error is printed, so recovery like yacc's is not needed.
import type { PositionRange } from './ast.js';
import type { ParseErrorItem } from './errors.js';
import { Lexer } from './lexer.js';
import { describeToken, type Token, type TokenType } from './tokens.js';

/** Thrown to stop parsing after a syntax error has been recorded. */
export class SyntaxAbort extends Error {
  constructor() {
    super('syntax error');
    this.name = 'SyntaxAbort';
  }
}

const CLOSING: ReadonlySet<TokenType> = new Set<TokenType>([
  'RIGHT_BRACE',
  'RIGHT_PAREN',
  'RIGHT_BRACKET',
  'DURATION',
  'NUMBER',
]);

export class TokenStream {
  readonly lexer: Lexer;
  readonly errors: ParseErrorItem[] = [];
  /** End of the last closing token read (Prometheus parser.lastClosing). */
  lastClosing = 0;
  /** Innermost grammar context that yacc's error recovery would name ("aggregation"). */
  private readonly contexts: string[] = [];
  private peeked: Token | undefined;

  constructor(readonly input: string) {
    this.lexer = new Lexer(input);
  }

  get byteLength(): number {
    return this.lexer.bytes.length;
  }

  peek(): Token {
    this.peeked ??= this.read();
    return this.peeked;
  }

  next(): Token {
    const t = this.peek();
    this.peeked = undefined;
    return t;
  }

  /** Consumes the lookahead if it has the given type. */
  accept(type: TokenType): Token | undefined {
    return this.peek().type === type ? this.next() : undefined;
  }

  private read(): Token {
    for (;;) {
      const t = this.lexer.nextToken();
      if (t.type === 'COMMENT') continue;
      if (t.type === 'ERROR') {
        this.addError({ start: t.pos, end: this.byteLength }, t.val);
        throw new SyntaxAbort();
      }
      if (CLOSING.has(t.type)) this.lastClosing = t.pos + t.len;
      return t;
    }
  }

  addError(positionRange: PositionRange, message: string): void {
    this.errors.push({ positionRange, message });
  }

  /** Records `unexpected <token>[ in <context>][, expected <expected>]` and aborts. */
  unexpected(context: string, expected: string, token: Token = this.peek()): never {
    let msg = `unexpected ${describeToken(token)}`;
    if (context !== '') msg += ` in ${context}`;
    if (expected !== '') msg += `, expected ${expected}`;
    this.addError(tokenRange(token), msg);
    throw new SyntaxAbort();
  }

  /** An unexpected token where yacc would fall back to the innermost generic error rule. */
  unexpectedHere(token: Token = this.peek()): never {
    return this.unexpected(this.contexts[this.contexts.length - 1] ?? '', '', token);
  }

  withContext<T>(context: string, f: () => T): T {
    this.contexts.push(context);
    try {
      return f();
    } finally {
      this.contexts.pop();
    }
  }
}

export function tokenRange(t: Token): PositionRange {
  return { start: t.pos, end: t.pos + t.len };
}
