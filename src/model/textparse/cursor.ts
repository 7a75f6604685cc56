/**
 * A position in one line plus the lexical pieces both text formats share: identifiers,
 * quoted strings with Prometheus's escapes, and `{…}` label blocks (with Prometheus 3's
 * quoted UTF-8 names). Errors name the line and what was found instead.
 */
import { TextParseError } from './entries.js';

export class Cursor {
  pos = 0;
  constructor(
    readonly text: string,
    readonly line: number,
  ) {}

  atEnd(): boolean {
    return this.pos >= this.text.length;
  }

  peek(): number {
    return this.pos < this.text.length ? this.text.charCodeAt(this.pos) : -1;
  }

  /** Skips spaces and tabs (the Prometheus text format allows them between tokens). */
  skipBlanks(): void {
    while (this.pos < this.text.length) {
      const c = this.text.charCodeAt(this.pos);
      if (c !== SPACE && c !== TAB) break;
      this.pos++;
    }
  }

  /** What sits at the cursor, for "expected …, got …" messages. */
  found(): string {
    if (this.atEnd()) return 'end of line';
    const rest = this.text.slice(this.pos);
    const token = /^[^ \t{}=,"]+/.exec(rest)?.[0] ?? rest.charAt(0);
    return JSON.stringify(token);
  }

  fail(detail: string): never {
    throw new TextParseError(this.line, detail);
  }

  expected(what: string): never {
    this.fail(`expected ${what}, got ${this.found()}`);
  }

  /** Reads `[a-zA-Z_:][a-zA-Z0-9_:]*` (colons only when `metric`); '' when none starts here. */
  readIdentifier(metric: boolean): string {
    const start = this.pos;
    const text = this.text;
    let i = start;
    if (i < text.length && isIdentStart(text.charCodeAt(i), metric)) {
      i++;
      while (i < text.length && isIdentPart(text.charCodeAt(i), metric)) i++;
    }
    this.pos = i;
    return text.slice(start, i);
  }

  /** Reads a double-quoted string at the cursor and returns it unescaped. */
  readQuoted(what: string): string {
    const text = this.text;
    if (this.peek() !== QUOTE) this.expected(what);
    const start = this.pos + 1;
    let i = start;
    let escaped = false;
    while (i < text.length) {
      const c = text.charCodeAt(i);
      if (c === QUOTE) {
        this.pos = i + 1;
        const raw = text.slice(start, i);
        return escaped ? unescapeLabelValue(raw) : raw;
      }
      if (c === BACKSLASH) {
        escaped = true;
        i += 2;
      } else {
        i++;
      }
    }
    this.fail(`expected ${what}, got unterminated string ${JSON.stringify(text.slice(this.pos))}`);
  }

  /** Reads up to the next space (and tab, when `tabs`); '' when a separator or the end is here. */
  readToken(tabs: boolean): string {
    const text = this.text;
    const start = this.pos;
    let i = start;
    while (i < text.length) {
      const c = text.charCodeAt(i);
      if (c === SPACE || (tabs && c === TAB)) break;
      i++;
    }
    this.pos = i;
    return text.slice(start, i);
  }
}

export interface LabelBlockOptions {
  /** Allow blanks between tokens (Prometheus text format). */
  readonly blanks: boolean;
  /** Allow a bare quoted string as the metric name (`{"my.metric", a="b"}`); not in exemplars. */
  readonly metricName: boolean;
}

/**
 * Reads label pairs from just after `{` to just after the matching `}` into `out`, and
 * returns the metric name if the block carried one as a bare quoted string.
 */
export function readLabelBlock(
  c: Cursor,
  options: LabelBlockOptions,
  out: [string, string][],
): string | undefined {
  let metricName: string | undefined;
  for (;;) {
    if (options.blanks) c.skipBlanks();
    const first = c.peek();
    if (first === CLOSE_BRACE) {
      c.pos++;
      return metricName;
    }
    let name: string;
    const quoted = first === QUOTE;
    if (quoted) name = c.readQuoted('label name');
    else {
      name = c.readIdentifier(false);
      if (name === '') c.expected('label name');
    }
    if (options.blanks) c.skipBlanks();
    const next = c.peek();
    if (quoted && (next === COMMA || next === CLOSE_BRACE)) {
      if (!options.metricName) c.expected('equal');
      if (metricName !== undefined)
        c.fail(`metric name already set while parsing: ${JSON.stringify(c.text)}`);
      metricName = name;
      if (next === COMMA) c.pos++;
      continue;
    }
    if (next !== EQUAL) c.expected('equal');
    c.pos++;
    if (options.blanks) c.skipBlanks();
    const value = c.readQuoted('label value');
    out.push([name, value]);
    if (options.blanks) c.skipBlanks();
    const after = c.peek();
    if (after === COMMA) c.pos++;
    else if (after !== CLOSE_BRACE) c.expected('comma or brace close');
  }
}

/** Prometheus's label value escapes: `\\`, `\"` and `\n`; any other backslash stays as written. */
export function unescapeLabelValue(raw: string): string {
  return raw.replace(/\\([\\"n])/g, (_, ch: string) => (ch === 'n' ? '\n' : ch));
}

/** The Prometheus text format's HELP escapes: `\\` and `\n` only. */
export function unescapeHelp(raw: string): string {
  return raw.replace(/\\([\\n])/g, (_, ch: string) => (ch === 'n' ? '\n' : ch));
}

function isIdentStart(c: number, metric: boolean): boolean {
  return (
    (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || c === 0x5f || (metric && c === 0x3a)
  );
}

function isIdentPart(c: number, metric: boolean): boolean {
  return isIdentStart(c, metric) || (c >= 0x30 && c <= 0x39);
}

export const SPACE = 0x20;
export const TAB = 0x09;
export const QUOTE = 0x22;
export const BACKSLASH = 0x5c;
export const OPEN_BRACE = 0x7b;
export const CLOSE_BRACE = 0x7d;
export const COMMA = 0x2c;
export const EQUAL = 0x3d;
export const HASH = 0x23;
