// The PromQL lexer, a port of the state machine in Prometheus's promql/parser/lex.go
// (expression mode only; the test-script series syntax is the conformance runner's). It scans
// UTF-8 bytes so that token positions are byte offsets, as Prometheus reports them, and it
// produces the same tokens and the same lexer error texts, including the context-dependent
// scanning inside `{…}` and `[…]`.
import { goQuote, goQuoteRune, goUnicodeVerb } from '../../model/index.js';
import {
  DOT,
  EOF_RUNE,
  RUNE_ERROR,
  Scanner,
  digitVal,
  isAlpha,
  isAlphaNumeric,
  isDigit,
  isEndOfLine,
  isSpace,
} from './scanner.js';
import { KEYWORDS, type Token } from './tokens.js';

type State =
  | 'statements'
  | 'insideBraces'
  | 'string'
  | 'rawString'
  | 'escape'
  | 'space'
  | 'lineComment'
  | 'numberOrDuration'
  | 'keywordOrIdentifier'
  | 'identifier'
  | 'durationExpr';

export class Lexer extends Scanner {
  private state: State | null = 'statements';

  private parenDepth = 0;
  private braceOpen = false;
  private bracketOpen = false;
  private gotColon = false;
  private gotDuration = false;
  private stringOpen = 0;

  /** The next token; after EOF or ERROR it keeps returning EOF. */
  nextToken(): Token {
    this.item = undefined;
    if (this.state === null) {
      this.emit('EOF');
    } else {
      while (this.item === undefined && this.state !== null) this.state = this.step(this.state);
      if (this.item === undefined) this.emit('EOF');
    }
    return this.item as unknown as Token;
  }

  private step(state: State): State | null {
    switch (state) {
      case 'statements':
        return this.lexStatements();
      case 'insideBraces':
        return this.lexInsideBraces();
      case 'string':
        return this.lexString();
      case 'rawString':
        return this.lexRawString();
      case 'escape':
        return this.lexEscape();
      case 'space':
        return this.lexSpace();
      case 'lineComment':
        return this.lexLineComment();
      case 'numberOrDuration':
        return this.lexNumberOrDuration();
      case 'keywordOrIdentifier':
        return this.lexKeywordOrIdentifier();
      case 'identifier':
        return this.lexIdentifier();
      case 'durationExpr':
        return this.lexDurationExpr();
    }
  }

  private startsWithComment(): boolean {
    return this.bytes[this.pos] === 0x23;
  }

  private lexStatements(): State | null {
    if (this.braceOpen) return 'insideBraces';
    if (this.startsWithComment()) return 'lineComment';
    const r = this.next();
    if (r === EOF_RUNE) {
      if (this.parenDepth !== 0) return this.errorf('unclosed left parenthesis');
      if (this.bracketOpen) return this.errorf('unclosed left bracket');
      this.emit('EOF');
      return null;
    }
    switch (r) {
      case 0x2c: // ,
        this.emit('COMMA');
        return 'statements';
      case 0x2a: // *
        this.emit('MUL');
        return 'statements';
      case 0x2f: // /
        this.emit('DIV');
        return 'statements';
      case 0x25: // %
        this.emit('MOD');
        return 'statements';
      case 0x2b: // +
        this.emit('ADD');
        return 'statements';
      case 0x2d: // -
        this.emit('SUB');
        return 'statements';
      case 0x5e: // ^
        this.emit('POW');
        return 'statements';
      case 0x3d: {
        // =
        const t = this.peek();
        if (t === 0x3d) {
          this.next();
          this.emit('EQLC');
        } else if (t === 0x7e) {
          return this.errorf(`unexpected character after '=': ${goQuoteRune(t)}`);
        } else {
          this.emit('EQL');
        }
        return 'statements';
      }
      case 0x21: {
        // !
        const t = this.next();
        if (t !== 0x3d) return this.errorf(`unexpected character after '!': ${goQuoteRune(t)}`);
        this.emit('NEQ');
        return 'statements';
      }
      case 0x3c: // <
        if (this.peek() === 0x3d) {
          this.next();
          this.emit('LTE');
        } else if (this.peek() === 0x2f) {
          // `</`: the native-histogram trim operator of Prometheus 3.13+.
          this.next();
          this.emit('TRIM_LOWER');
        } else {
          this.emit('LSS');
        }
        return 'statements';
      case 0x3e: // >
        if (this.peek() === 0x3d) {
          this.next();
          this.emit('GTE');
        } else if (this.peek() === 0x2f) {
          this.next();
          this.emit('TRIM_UPPER');
        } else {
          this.emit('GTR');
        }
        return 'statements';
      case 0x22: // "
      case 0x27: // '
        this.stringOpen = r;
        return 'string';
      case 0x60: // `
        this.stringOpen = r;
        return 'rawString';
      case 0x28: // (
        this.emit('LEFT_PAREN');
        this.parenDepth++;
        return 'statements';
      case 0x29: // )
        this.emit('RIGHT_PAREN');
        this.parenDepth--;
        if (this.parenDepth < 0)
          return this.errorf(`unexpected right parenthesis ${goQuoteRune(r)}`);
        return 'statements';
      case 0x7b: // {
        this.emit('LEFT_BRACE');
        this.braceOpen = true;
        return 'insideBraces';
      case 0x5b: // [
        if (this.bracketOpen) return this.errorf(`unexpected left bracket ${goQuoteRune(r)}`);
        this.gotColon = false;
        this.emit('LEFT_BRACKET');
        if (isSpace(this.peek())) this.skipSpaces();
        this.bracketOpen = true;
        return 'durationExpr';
      case 0x5d: // ]
        if (!this.bracketOpen) return this.errorf(`unexpected right bracket ${goQuoteRune(r)}`);
        this.emit('RIGHT_BRACKET');
        this.bracketOpen = false;
        return 'statements';
      case 0x40: // @
        this.emit('AT');
        return 'statements';
    }
    if (isSpace(r)) return 'space';
    if (isDigit(r) || (r === DOT && isDigit(this.peek()))) {
      this.backup();
      return 'numberOrDuration';
    }
    if (isAlpha(r) || r === 0x3a) {
      if (!this.bracketOpen) {
        this.backup();
        return 'keywordOrIdentifier';
      }
      if (r === 0x3a) {
        if (this.gotColon) return this.errorf(`unexpected colon ${goQuoteRune(r)}`);
        if (this.peek() === 0x3a) {
          this.next();
          this.emit('DOUBLE_COLON');
        } else {
          this.emit('COLON');
        }
        this.gotColon = true;
        return 'statements';
      }
      if ((r === 0x73 || r === 0x53 || r === 0x6d || r === 0x4d) && this.scanDurationKeyword()) {
        return 'statements';
      }
      return this.errorf(`unexpected character: ${goQuoteRune(r)}, expected ${goQuoteRune(0x3a)}`);
    }
    return this.errorf(`unexpected character: ${goQuoteRune(r)}`);
  }

  private lexInsideBraces(): State | null {
    if (this.startsWithComment()) return 'lineComment';
    const r = this.next();
    if (r === EOF_RUNE) return this.errorf('unexpected end of input inside braces');
    if (isSpace(r)) return 'space';
    if (isAlpha(r)) {
      this.backup();
      return 'identifier';
    }
    switch (r) {
      case 0x2c:
        this.emit('COMMA');
        return 'insideBraces';
      case 0x22:
      case 0x27:
        this.stringOpen = r;
        return 'string';
      case 0x60:
        this.stringOpen = r;
        return 'rawString';
      case 0x3d:
        if (this.next() === 0x7e) {
          this.emit('EQL_REGEX');
          return 'insideBraces';
        }
        this.backup();
        this.emit('EQL');
        return 'insideBraces';
      case 0x21: {
        const nr = this.next();
        if (nr === 0x7e) this.emit('NEQ_REGEX');
        else if (nr === 0x3d) this.emit('NEQ');
        else return this.errorf(`unexpected character after '!' inside braces: ${goQuoteRune(nr)}`);
        return 'insideBraces';
      }
      case 0x7b:
        return this.errorf(`unexpected left brace ${goQuoteRune(r)}`);
      case 0x7d:
        this.emit('RIGHT_BRACE');
        this.braceOpen = false;
        return 'statements';
    }
    return this.errorf(`unexpected character inside braces: ${goQuoteRune(r)}`);
  }

  private lexEscape(): State | null {
    let n: number;
    let base: number;
    let maxVal: number;
    let ch = this.next();
    switch (ch) {
      case 0x61:
      case 0x62:
      case 0x66:
      case 0x6e:
      case 0x72:
      case 0x74:
      case 0x76:
      case 0x5c:
      case this.stringOpen:
        return 'string';
      case 0x30:
      case 0x31:
      case 0x32:
      case 0x33:
      case 0x34:
      case 0x35:
      case 0x36:
      case 0x37:
        n = 3;
        base = 8;
        maxVal = 255;
        break;
      case 0x78: // x
        ch = this.next();
        n = 2;
        base = 16;
        maxVal = 255;
        break;
      case 0x75: // u
        ch = this.next();
        n = 4;
        base = 16;
        maxVal = 0x10ffff;
        break;
      case 0x55: // U
        ch = this.next();
        n = 8;
        base = 16;
        maxVal = 0x10ffff;
        break;
      case EOF_RUNE:
        return this.errorf('escape sequence not terminated');
      default:
        return this.errorf(`unknown escape sequence ${goUnicodeVerb(ch)}`);
    }
    let x = 0;
    while (n > 0) {
      const d = digitVal(ch);
      if (d >= base) {
        if (ch === EOF_RUNE) return this.errorf('escape sequence not terminated');
        return this.errorf(`illegal character ${goUnicodeVerb(ch)} in escape sequence`);
      }
      x = x * base + d;
      n--;
      if (n > 0) ch = this.next();
    }
    if (x > maxVal || (x >= 0xd800 && x < 0xe000)) {
      return this.errorf('escape sequence is an invalid Unicode code point');
    }
    return 'string';
  }

  private skipSpaces(): void {
    while (isSpace(this.peek())) this.next();
    this.ignore();
  }

  private lexString(): State | null {
    for (;;) {
      const r = this.next();
      if (r === 0x5c) return 'escape';
      if (r === RUNE_ERROR) return this.errorf('invalid UTF-8 rune');
      if (r === EOF_RUNE || r === 0x0a) return this.errorf('unterminated quoted string');
      if (r === this.stringOpen) break;
    }
    this.emit('STRING');
    return this.braceOpen ? 'insideBraces' : 'statements';
  }

  private lexRawString(): State | null {
    for (;;) {
      const r = this.next();
      if (r === RUNE_ERROR) return this.errorf('invalid UTF-8 rune');
      if (r === EOF_RUNE) return this.errorf('unterminated raw string');
      if (r === this.stringOpen) break;
    }
    this.emit('STRING');
    return this.braceOpen ? 'insideBraces' : 'statements';
  }

  private lexSpace(): State {
    while (isSpace(this.peek())) this.next();
    this.ignore();
    return 'statements';
  }

  private lexLineComment(): State {
    this.pos += 1;
    let r = this.next();
    while (!isEndOfLine(r) && r !== EOF_RUNE) r = this.next();
    this.backup();
    this.emit('COMMENT');
    return 'statements';
  }

  private scanDurationKeyword(): boolean {
    for (;;) {
      const r = this.next();
      if (isAlpha(r)) continue;
      this.backup();
      switch (this.text(this.start, this.pos).toLowerCase()) {
        case 'step':
          this.emit('STEP');
          return true;
        case 'range':
          this.emit('RANGE');
          return true;
        case 'min':
          this.emit('MIN');
          return true;
        case 'max':
          this.emit('MAX');
          return true;
        case 'min_of':
          this.emit('MIN_OF');
          return true;
        case 'max_of':
          this.emit('MAX_OF');
          return true;
        default:
          return false;
      }
    }
  }

  private lexNumberOrDuration(): State | null {
    if (this.scanNumber()) {
      this.emit('NUMBER');
      return 'statements';
    }
    if (this.acceptRemainingDuration()) {
      this.backup();
      this.emit('DURATION');
      return 'statements';
    }
    return this.errorf(
      `bad number or duration syntax: ${goQuote(this.text(this.start, this.pos))}`,
    );
  }

  private lexIdentifier(): State {
    while (isAlphaNumeric(this.next())) {
      // Absorb.
    }
    this.backup();
    this.emit('IDENTIFIER');
    return 'statements';
  }

  private lexKeywordOrIdentifier(): State {
    for (;;) {
      const r = this.next();
      if (isAlphaNumeric(r) || r === 0x3a) continue;
      this.backup();
      const word = this.text(this.start, this.pos);
      const kw = KEYWORDS.get(word.toLowerCase());
      if (kw !== undefined) {
        // fill/fill_left/fill_right are keywords only before "(" so they stay usable as names.
        if (
          (kw === 'FILL' || kw === 'FILL_LEFT' || kw === 'FILL_RIGHT') &&
          !this.followedByLeftParen()
        ) {
          this.emit('IDENTIFIER');
        } else {
          this.emit(kw);
        }
      } else if (!word.includes(':')) {
        this.emit('IDENTIFIER');
      } else {
        this.emit('METRIC_IDENTIFIER');
      }
      return 'statements';
    }
  }

  private followedByLeftParen(): boolean {
    for (let p = this.pos; p < this.bytes.length; p++) {
      const c = this.bytes[p] as number;
      if (!isSpace(c)) return c === 0x28;
    }
    return false;
  }

  private lexDurationExpr(): State | null {
    const r = this.next();
    switch (r) {
      case EOF_RUNE:
        return this.errorf('unexpected end of input in duration expression');
      case 0x5d:
        this.emit('RIGHT_BRACKET');
        this.bracketOpen = false;
        this.gotColon = false;
        return 'statements';
      case 0x3a:
        this.emit('COLON');
        if (!this.gotDuration)
          return this.errorf('unexpected colon before duration in duration expression');
        if (this.gotColon) return this.errorf('unexpected repeated colon in duration expression');
        this.gotColon = true;
        return 'durationExpr';
      case 0x28:
        this.emit('LEFT_PAREN');
        this.parenDepth++;
        return 'durationExpr';
      case 0x29:
        this.emit('RIGHT_PAREN');
        this.parenDepth--;
        if (this.parenDepth < 0)
          return this.errorf(`unexpected right parenthesis ${goQuoteRune(r)}`);
        return 'durationExpr';
      case 0x2b:
        this.emit('ADD');
        return 'durationExpr';
      case 0x2d:
        this.emit('SUB');
        return 'durationExpr';
      case 0x2a:
        this.emit('MUL');
        return 'durationExpr';
      case 0x2f:
        this.emit('DIV');
        return 'durationExpr';
      case 0x25:
        this.emit('MOD');
        return 'durationExpr';
      case 0x5e:
        this.emit('POW');
        return 'durationExpr';
      case 0x2c:
        this.emit('COMMA');
        return 'durationExpr';
      case 0x73:
      case 0x53:
      case 0x6d:
      case 0x4d:
      case 0x72:
      case 0x52:
        if (this.scanDurationKeyword()) return 'durationExpr';
        return this.errorf(`unexpected character in duration expression: ${goQuoteRune(r)}`);
    }
    if (isSpace(r)) {
      this.skipSpaces();
      return 'durationExpr';
    }
    if (isDigit(r) || (r === DOT && isDigit(this.peek()))) {
      this.backup();
      this.gotDuration = true;
      return 'numberOrDuration';
    }
    return this.errorf(`unexpected character in duration expression: ${goQuoteRune(r)}`);
  }
}
