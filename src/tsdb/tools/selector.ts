// A parser for PromQL series selectors (`metric`, `{a="b", c=~"x.*"}`, `metric{a!="b"}`), the
// argument of `tools tsdb dump --match`. The full PromQL parser arrives later; this one covers
// the selector grammar promtool accepts there: the three string quotings with Go escapes,
// the four match operators and an optional trailing comma. Like promtool (which parses it
// with ParseMetricSelector, without the query-time checks), it accepts `{}` and selectors
// whose matchers all match the empty string; `{}` selects nothing.

import { Matcher, METRIC_NAME_LABEL, isMatchType, type MatchType } from '../../model/index.js';

/** The selector text is not a valid series selector; the message names the position. */
export class SelectorParseError extends Error {
  override readonly name = 'SelectorParseError';
}

const METRIC_NAME_START = /[a-zA-Z_:]/;
const METRIC_NAME_PART = /[a-zA-Z0-9_:]/;
const LABEL_NAME_START = /[a-zA-Z_]/;
const LABEL_NAME_PART = /[a-zA-Z0-9_]/;

/** Parses a series selector into matchers, in the order written (the metric name first). */
export function parseSeriesSelector(text: string): Matcher[] {
  return new SelectorParser(text).parse();
}

class SelectorParser {
  private pos = 0;

  constructor(private readonly text: string) {}

  parse(): Matcher[] {
    const matchers: Matcher[] = [];
    this.skipSpace();
    if (this.peek() !== '{') {
      const metricName = this.readName(METRIC_NAME_START, METRIC_NAME_PART, 'metric name or "{"');
      matchers.push(Matcher.equal(METRIC_NAME_LABEL, metricName));
      this.skipSpace();
    }
    if (this.peek() === '{') {
      this.pos++;
      this.readMatcherList(matchers);
    }
    this.skipSpace();
    if (this.pos < this.text.length) {
      this.fail(`unexpected ${JSON.stringify(this.text.slice(this.pos, this.pos + 10))}`);
    }
    return matchers;
  }

  private readMatcherList(out: Matcher[]): void {
    for (;;) {
      this.skipSpace();
      if (this.peek() === '}') {
        this.pos++;
        return;
      }
      const name = this.readName(LABEL_NAME_START, LABEL_NAME_PART, 'label name or "}"');
      this.skipSpace();
      const op = this.readOperator();
      this.skipSpace();
      const value = this.readString();
      try {
        out.push(new Matcher(op, name, value));
      } catch (err) {
        throw new SelectorParseError(
          `invalid matcher ${name}${op}${JSON.stringify(value)} in ${JSON.stringify(this.text)}: ${(err as Error).message}`,
        );
      }
      this.skipSpace();
      const next = this.peek();
      if (next === ',') {
        this.pos++;
      } else if (next !== '}') {
        this.fail('expected "," or "}"');
      }
    }
  }

  private readOperator(): MatchType {
    for (const op of ['!=', '=~', '!~', '='] as const) {
      if (this.text.startsWith(op, this.pos)) {
        this.pos += op.length;
        if (isMatchType(op)) return op;
      }
    }
    return this.fail('expected one of "=", "!=", "=~", "!~"');
  }

  private readName(start: RegExp, part: RegExp, what: string): string {
    const begin = this.pos;
    if (!start.test(this.peek())) this.fail(`expected ${what}`);
    this.pos++;
    while (this.pos < this.text.length && part.test(this.peek())) this.pos++;
    return this.text.slice(begin, this.pos);
  }

  /** A PromQL string: "…" or '…' with Go escapes, or `…` raw. */
  private readString(): string {
    const quote = this.peek();
    if (quote !== '"' && quote !== "'" && quote !== '`') this.fail('expected a quoted string');
    const begin = this.pos;
    this.pos++;
    let out = '';
    for (;;) {
      if (this.pos >= this.text.length) {
        this.pos = begin;
        return this.fail('unterminated string');
      }
      const ch = this.text[this.pos] as string;
      this.pos++;
      if (ch === quote) return out;
      if (ch === '\\' && quote !== '`') {
        out += this.readEscape(quote);
      } else if (ch === '\n' && quote !== '`') {
        this.pos = begin;
        return this.fail('unterminated string');
      } else {
        out += ch;
      }
    }
  }

  private readEscape(quote: string): string {
    const ch = this.text[this.pos];
    this.pos++;
    switch (ch) {
      case 'a':
        return '\x07';
      case 'b':
        return '\b';
      case 'f':
        return '\f';
      case 'n':
        return '\n';
      case 'r':
        return '\r';
      case 't':
        return '\t';
      case 'v':
        return '\v';
      case '\\':
        return '\\';
      case 'x':
        return String.fromCharCode(this.readHex(2));
      case 'u':
        return this.codePoint(this.readHex(4));
      case 'U':
        return this.codePoint(this.readHex(8));
      default:
        if (ch === quote) return ch;
        if (ch !== undefined && ch >= '0' && ch <= '7') {
          const digits = this.text.slice(this.pos - 1, this.pos + 2);
          if (!/^[0-7]{3}$/.test(digits)) this.fail('invalid octal escape');
          this.pos += 2;
          const code = Number.parseInt(digits, 8);
          if (code > 255) this.fail(`octal escape out of range: \\${digits}`);
          return String.fromCharCode(code);
        }
        this.pos--;
        return this.fail(`unknown escape sequence \\${ch ?? ''}`);
    }
  }

  private readHex(n: number): number {
    const digits = this.text.slice(this.pos, this.pos + n);
    if (digits.length !== n || !/^[0-9a-fA-F]+$/.test(digits)) {
      this.fail(`expected ${n} hex digits`);
    }
    this.pos += n;
    return Number.parseInt(digits, 16);
  }

  private codePoint(cp: number): string {
    if (cp > 0x10ffff || (cp >= 0xd800 && cp < 0xe000)) {
      this.fail(`invalid Unicode code point U+${cp.toString(16)}`);
    }
    return String.fromCodePoint(cp);
  }

  private peek(): string {
    return this.text[this.pos] ?? '';
  }

  private skipSpace(): void {
    while (this.pos < this.text.length && /\s/.test(this.peek())) this.pos++;
  }

  private fail(what: string): never {
    throw new SelectorParseError(
      `parse error in series selector ${JSON.stringify(this.text)} at position ${this.pos + 1}: ${what}`,
    );
  }
}
