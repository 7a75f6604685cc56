// The character-level machinery under the PromQL lexer, as in Prometheus's lex.go: a cursor
// over UTF-8 bytes with Go's next/peek/backup/accept primitives, token emission with byte
// positions, and the number/duration scanners whose odd corners (hex, `_`, `1h30m`) decide
// which inputs are lexer errors.
import type { Token, TokenType } from './tokens.js';
import { decodeRune } from './utf8.js';

export const EOF_RUNE = -1;
export const RUNE_ERROR = 0xfffd;

export function isSpace(r: number): boolean {
  return r === 0x20 || r === 0x09 || r === 0x0a || r === 0x0d;
}

export function isEndOfLine(r: number): boolean {
  return r === 0x0d || r === 0x0a;
}

export function isDigit(r: number): boolean {
  return r >= 0x30 && r <= 0x39;
}

export function isAlpha(r: number): boolean {
  return r === 0x5f || (r >= 0x61 && r <= 0x7a) || (r >= 0x41 && r <= 0x5a);
}

export function isAlphaNumeric(r: number): boolean {
  return isAlpha(r) || isDigit(r);
}

export function digitVal(r: number): number {
  if (r >= 0x30 && r <= 0x39) return r - 0x30;
  if (r >= 0x61 && r <= 0x66) return r - 0x61 + 10;
  if (r >= 0x41 && r <= 0x46) return r - 0x41 + 10;
  return 16;
}

function runeSet(chars: string): ReadonlySet<number> {
  return new Set(Array.from(chars, (c) => c.codePointAt(0) as number));
}

const DIGITS = runeSet('0123456789');
const HEX_DIGITS = runeSet('0123456789abcdefABCDEF');
export const DOT = 0x2e;
const UNDERSCORE = 0x5f;
const DURATION_UNITS_FIRST = runeSet('smhdwy');
const DURATION_UNITS_REST = runeSet('smhdw');
const HEX_PREFIX = runeSet('xX');
const DOT_ANTI = runeSet('_.');
const EXPONENT = runeSet('eE');
const EXPONENT_ANTI = runeSet('._eE');
const SIGNS = runeSet('+-');

const utf8Decoder = new TextDecoder('utf-8');

export abstract class Scanner {
  readonly bytes: Uint8Array;
  /** Current position and start of the pending token, in bytes. */
  pos = 0;
  start = 0;
  private width = 0;
  protected item: Token | undefined;

  constructor(readonly input: string) {
    this.bytes = new TextEncoder().encode(input);
  }

  /** The input text between two byte offsets. */
  text(from: number, to: number): string {
    return utf8Decoder.decode(this.bytes.subarray(from, to));
  }

  protected next(): number {
    if (this.pos >= this.bytes.length) {
      this.width = 0;
      return EOF_RUNE;
    }
    const [r, w] = decodeRune(this.bytes, this.pos);
    this.width = w;
    this.pos += w;
    return r;
  }

  protected peek(): number {
    const r = this.next();
    this.backup();
    return r;
  }

  protected backup(): void {
    this.pos -= this.width;
  }

  protected emit(type: TokenType): void {
    this.item = {
      type,
      pos: this.start,
      val: this.text(this.start, this.pos),
      len: this.pos - this.start,
    };
    this.start = this.pos;
  }

  protected ignore(): void {
    this.start = this.pos;
  }

  protected accept(valid: ReadonlySet<number>): boolean {
    if (valid.has(this.next())) return true;
    this.backup();
    return false;
  }

  protected acceptRune(r: number): boolean {
    if (this.next() === r) return true;
    this.backup();
    return false;
  }

  protected is(valid: ReadonlySet<number>): boolean {
    return valid.has(this.peek());
  }

  protected acceptRun(valid: ReadonlySet<number>): void {
    while (valid.has(this.next())) {
      // Consume.
    }
    this.backup();
  }

  /** Records an error token; the scan ends (the parser treats it as end of input). */
  protected errorf(message: string): null {
    this.item = { type: 'ERROR', pos: this.start, val: message, len: 0 };
    return null;
  }

  protected acceptRemainingDuration(): boolean {
    if (!this.accept(DURATION_UNITS_FIRST)) return false;
    this.acceptRune(0x73); // "ms"; bad units such as "hs" fail when the duration is parsed.
    while (this.accept(DIGITS)) {
      while (this.accept(DIGITS)) {
        // Consume.
      }
      // "y" may only come first.
      if (!this.accept(DURATION_UNITS_REST)) return false;
      this.acceptRune(0x73);
    }
    return !isAlphaNumeric(this.next());
  }

  /** Scans a number of any accepted shape; validity is the parser's concern (lex.go). */
  protected scanNumber(): boolean {
    const initialPos = this.pos;
    let digitPattern = DIGITS;
    if (this.acceptRune(0x30) && this.accept(HEX_PREFIX)) {
      this.acceptRune(UNDERSCORE);
      digitPattern = HEX_DIGITS;
    }
    this.acceptRune(DOT);
    this.accept(digitPattern);
    let dotConsumed = false;
    let exponentConsumed = false;
    const loopSet = new Set([...digitPattern, DOT, UNDERSCORE, 0x65, 0x45]);
    while (this.is(loopSet)) {
      const p = this.peek();
      if (p === DOT && dotConsumed) {
        this.next();
        return false;
      }
      if ((p === 0x65 || p === 0x45) && exponentConsumed) {
        this.next();
        return false;
      }
      if (this.acceptRune(DOT)) {
        dotConsumed = true;
        if (this.accept(DOT_ANTI)) return false;
        // Fractional hexadecimal literals are not allowed.
        if (digitPattern === HEX_DIGITS) return false;
        continue;
      }
      if (this.accept(EXPONENT)) {
        exponentConsumed = true;
        this.accept(SIGNS);
        if (this.accept(EXPONENT_ANTI) || this.peek() === EOF_RUNE) return false;
        continue;
      }
      if (this.acceptRune(UNDERSCORE)) {
        if (this.accept(EXPONENT_ANTI) || this.peek() === EOF_RUNE) return false;
        continue;
      }
      this.acceptRun(digitPattern);
    }
    if (this.pos === initialPos) return false;
    return !isAlphaNumeric(this.peek());
  }
}
