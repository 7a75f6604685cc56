/**
 * A parser for RE2 syntax as Go's regexp/syntax accepts it with the Perl flags
 * (`syntax.Perl`), producing our AST. It rejects what RE2 rejects with Go's error text, and it
 * reports the first error in the same left-to-right order Go does.
 */
import type { AssertKind, Node } from './ast.js';
import { foldOrbit } from './case_fold.js';
import {
  PERL_GROUPS,
  appendFoldClosure,
  appendFoldedRange,
  cleanRanges,
  negateRanges,
  posixGroup,
  unicodeTable,
  type CharClass,
} from './charclass.js';
import { Re2SyntaxError } from './errors.js';

/** Go's repeat limit for `{n,m}` (also applied to the product of nested counted repeats). */
export const MAX_REPEAT = 1000;
const MAX_NESTING = 1000;

const FOLD_CASE = 1;
const ONE_LINE = 2;
const DOT_NL = 4;
const NON_GREEDY = 8;

export interface ParseOptions {
  /** Start with `(?s)` in effect, as Prometheus matchers do. Default false. */
  readonly dotMatchesNewline?: boolean;
}

/** Parses `src`; throws Re2SyntaxError with Go's message when RE2 would reject it. */
export function parseRe2(src: string, options: ParseOptions = {}): Node {
  return new Parser(src, options.dotMatchesNewline === true ? ONE_LINE | DOT_NL : ONE_LINE).parse();
}

function isAlnum(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
}

function unhex(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x61 && c <= 0x66) return c - 0x61 + 10;
  if (c >= 0x41 && c <= 0x46) return c - 0x41 + 10;
  return -1;
}

function repeatIsValid(node: Node, n: number): boolean {
  let budget = n;
  if (node.op === 'repeat' && node.counted) {
    let m = node.max;
    if (m === 0) return true;
    if (m < 0) m = node.min;
    if (m > budget) return false;
    if (m > 0) budget = Math.trunc(budget / m);
  }
  switch (node.op) {
    case 'capture':
    case 'repeat':
      return repeatIsValid(node.sub, budget);
    case 'concat':
    case 'alternate':
      return node.subs.every((s) => repeatIsValid(s, budget));
    default:
      return true;
  }
}

interface ClassAccumulator {
  readonly ranges: number[];
}

class Parser {
  private pos = 0;
  private flags: number;
  private depth = 0;

  constructor(
    private readonly src: string,
    initialFlags: number,
  ) {
    this.flags = initialFlags;
  }

  parse(): Node {
    const node = this.parseAlternation();
    if (this.pos < this.src.length) throw new Re2SyntaxError('unexpected )', this.src);
    return node;
  }

  private parseAlternation(): Node {
    const alternatives: Node[] = [this.parseConcat()];
    while (this.src.charCodeAt(this.pos) === 0x7c /* | */) {
      this.pos++;
      alternatives.push(this.parseConcat());
    }
    return alternatives.length === 1
      ? (alternatives[0] as Node)
      : { op: 'alternate', subs: alternatives };
  }

  private parseConcat(): Node {
    const items: Node[] = [];
    let lastRepeatStart = -1;
    const src = this.src;
    while (this.pos < src.length) {
      const c = src.charCodeAt(this.pos);
      if (c === 0x7c || c === 0x29) break; // | )
      const tokenStart = this.pos;
      let repeated = false;
      switch (c) {
        case 0x28: // (
          this.parseGroup(items);
          break;
        case 0x5b: // [
          items.push(this.parseClass());
          break;
        case 0x2a: // *
        case 0x2b: // +
        case 0x3f: {
          // ?
          this.pos++;
          const [min, max] = c === 0x2a ? [0, -1] : c === 0x2b ? [1, -1] : [0, 1];
          this.applyRepeat(items, min, max, false, tokenStart, lastRepeatStart);
          repeated = true;
          break;
        }
        case 0x7b: {
          // {
          const rep = this.parseRepeatBraces();
          if (rep === undefined) {
            this.pos++;
            items.push(this.literal(0x7b));
            break;
          }
          const [min, max, end] = rep;
          this.pos = end;
          if (min < 0 || min > MAX_REPEAT || max > MAX_REPEAT || (max >= 0 && min > max)) {
            throw new Re2SyntaxError('invalid repeat count', src.slice(tokenStart, end));
          }
          this.applyRepeat(items, min, max, true, tokenStart, lastRepeatStart);
          repeated = true;
          break;
        }
        case 0x5e: // ^
          this.pos++;
          items.push(this.assertion(this.flags & ONE_LINE ? 'bot' : 'bol'));
          break;
        case 0x24: // $
          this.pos++;
          items.push(this.assertion(this.flags & ONE_LINE ? 'eot' : 'eol'));
          break;
        case 0x2e: // .
          this.pos++;
          items.push({ op: 'any', nl: (this.flags & DOT_NL) !== 0 });
          break;
        case 0x5c: // \
          this.parseBackslash(items);
          break;
        default:
          items.push(this.literal(this.nextRune()));
      }
      lastRepeatStart = repeated ? tokenStart : -1;
    }
    if (items.length === 0) return { op: 'empty' };
    return items.length === 1 ? (items[0] as Node) : { op: 'concat', subs: items };
  }

  private assertion(kind: AssertKind): Node {
    return { op: 'assert', kind };
  }

  private literal(rune: number): Node {
    const fold = (this.flags & FOLD_CASE) !== 0 && foldOrbit(rune).length > 1;
    return { op: 'literal', rune, fold };
  }

  /** Reads one code point; a lone surrogate is JavaScript's form of invalid UTF-8. */
  private nextRune(): number {
    const cp = this.src.codePointAt(this.pos);
    if (cp === undefined) return -1;
    if (cp >= 0xd800 && cp <= 0xdfff)
      throw new Re2SyntaxError('invalid UTF-8', this.src.slice(this.pos));
    this.pos += cp > 0xffff ? 2 : 1;
    return cp;
  }

  private applyRepeat(
    items: Node[],
    min: number,
    max: number,
    counted: boolean,
    tokenStart: number,
    lastRepeatStart: number,
  ): void {
    let greedy = (this.flags & NON_GREEDY) === 0;
    if (this.src.charCodeAt(this.pos) === 0x3f) {
      this.pos++;
      greedy = !greedy;
    }
    if (lastRepeatStart >= 0) {
      throw new Re2SyntaxError(
        'invalid nested repetition operator',
        this.src.slice(lastRepeatStart, this.pos),
      );
    }
    const sub = items.pop();
    if (sub === undefined) {
      throw new Re2SyntaxError(
        'missing argument to repetition operator',
        this.src.slice(tokenStart, this.pos),
      );
    }
    const node: Node = { op: 'repeat', sub, min, max, greedy, counted };
    if (counted && (min >= 2 || max >= 2) && !repeatIsValid(node, MAX_REPEAT)) {
      throw new Re2SyntaxError('invalid repeat count', this.src.slice(tokenStart, this.pos));
    }
    items.push(node);
  }

  /** `{n}`, `{n,}`, `{n,m}` → [min, max, end]; min -1 when a number is too big; else undefined. */
  private parseRepeatBraces(): [number, number, number] | undefined {
    const src = this.src;
    let i = this.pos + 1;
    const readInt = (): number | undefined => {
      const start = i;
      const first = src.charCodeAt(i);
      if (!(first >= 0x30 && first <= 0x39)) return undefined;
      const second = src.charCodeAt(i + 1);
      if (first === 0x30 && second >= 0x30 && second <= 0x39) return undefined; // leading zero
      while (src.charCodeAt(i) >= 0x30 && src.charCodeAt(i) <= 0x39) i++;
      const digits = src.slice(start, i);
      return digits.length > 8 ? -1 : Number(digits);
    };
    let min = readInt();
    if (min === undefined || i >= src.length) return undefined;
    let max: number;
    if (src.charCodeAt(i) !== 0x2c /* , */) {
      max = min;
    } else {
      i++;
      if (i >= src.length) return undefined;
      if (src.charCodeAt(i) === 0x7d) {
        max = -1;
      } else {
        const m = readInt();
        if (m === undefined) return undefined;
        max = m;
        if (max < 0) min = -1;
      }
    }
    if (src.charCodeAt(i) !== 0x7d) return undefined;
    return [min, max, i + 1];
  }

  private parseGroup(items: Node[]): void {
    const src = this.src;
    const start = this.pos;
    const savedFlags = this.flags;
    let name: string | undefined;
    let capture = true;
    if (src.charCodeAt(start + 1) === 0x3f /* ? */) {
      const rest = src.slice(start);
      const startsWithP = rest.length > 4 && rest[2] === 'P' && rest[3] === '<';
      const startsWithName = rest.length > 3 && rest[2] === '<';
      if (startsWithP || startsWithName) {
        const end = rest.indexOf('>');
        if (end < 0) throw new Re2SyntaxError('invalid named capture', rest);
        name = rest.slice(startsWithP ? 4 : 3, end);
        if (
          name === '' ||
          ![...name].every((ch) => ch === '_' || isAlnum(ch.codePointAt(0) as number))
        ) {
          throw new Re2SyntaxError('invalid named capture', rest.slice(0, end + 1));
        }
        this.pos = start + end + 1;
      } else {
        const opened = this.parseFlags();
        if (!opened) return; // flags-only group: new flags last until the enclosing ')'
        capture = false;
      }
    } else {
      this.pos++;
    }
    if (++this.depth > MAX_NESTING) throw new Re2SyntaxError('expression nests too deeply', src);
    const sub = this.parseAlternation();
    if (this.pos >= src.length) throw new Re2SyntaxError('missing closing )', src);
    this.pos++; // )
    this.flags = savedFlags;
    this.depth--;
    items.push(capture ? { op: 'capture', sub, name } : sub);
  }

  /**
   * Parses `(?flags)` or `(?flags:` at this.pos. Returns true when a group was opened (the
   * flags then apply inside it only), false for a flags-only group.
   */
  private parseFlags(): boolean {
    const src = this.src;
    const start = this.pos;
    this.pos += 2;
    let flags = this.flags;
    let sign = 1;
    let sawFlag = false;
    while (this.pos < src.length) {
      const c = this.nextRune();
      switch (c) {
        case 0x69: // i
          flags |= FOLD_CASE;
          sawFlag = true;
          continue;
        case 0x6d: // m
          flags &= ~ONE_LINE;
          sawFlag = true;
          continue;
        case 0x73: // s
          flags |= DOT_NL;
          sawFlag = true;
          continue;
        case 0x55: // U
          flags |= NON_GREEDY;
          sawFlag = true;
          continue;
        case 0x2d: // -
          if (sign < 0) break;
          sign = -1;
          flags = ~flags;
          sawFlag = false;
          continue;
        case 0x3a: // :
        case 0x29: {
          // )
          if (sign < 0) {
            if (!sawFlag) break;
            flags = ~flags;
          }
          // For `(?flags:` the caller restores the outer flags at the group's ')'.
          this.flags = flags;
          return c === 0x3a;
        }
        default:
          break;
      }
      break;
    }
    throw new Re2SyntaxError('invalid or unsupported Perl syntax', src.slice(start, this.pos));
  }

  private parseBackslash(items: Node[]): void {
    const src = this.src;
    const start = this.pos;
    const next = src[start + 1];
    switch (next) {
      case 'A':
        this.pos += 2;
        items.push(this.assertion('bot'));
        return;
      case 'b':
        this.pos += 2;
        items.push(this.assertion('wordBoundary'));
        return;
      case 'B':
        this.pos += 2;
        items.push(this.assertion('noWordBoundary'));
        return;
      case 'C':
        throw new Re2SyntaxError('invalid escape sequence', '\\C');
      case 'z':
        this.pos += 2;
        items.push(this.assertion('eot'));
        return;
      case 'Q': {
        const end = src.indexOf('\\E', start + 2);
        const literalEnd = end < 0 ? src.length : end;
        this.pos = start + 2;
        while (this.pos < literalEnd) items.push(this.literal(this.nextRune()));
        this.pos = end < 0 ? src.length : end + 2;
        return;
      }
      default:
        break;
    }
    const acc: ClassAccumulator = { ranges: [] };
    if ((next === 'p' || next === 'P') && this.parseUnicodeClass(acc)) {
      items.push({ op: 'class', cls: finishClass(acc, false) });
      return;
    }
    if (this.parsePerlClass(acc)) {
      items.push({ op: 'class', cls: finishClass(acc, false) });
      return;
    }
    items.push(this.literal(this.parseEscape()));
  }

  /** Go's parseEscape: one escaped character at this.pos (which is at the backslash). */
  private parseEscape(): number {
    const src = this.src;
    const start = this.pos;
    this.pos++;
    if (this.pos >= src.length)
      throw new Re2SyntaxError('trailing backslash at end of expression', '');
    const c = this.nextRune();
    const fail = (): never => {
      throw new Re2SyntaxError('invalid escape sequence', src.slice(start, this.pos));
    };
    const isOctal = (i: number): boolean => src.charCodeAt(i) >= 0x30 && src.charCodeAt(i) <= 0x37;
    if (c >= 0x31 && c <= 0x37 && !isOctal(this.pos)) return fail(); // backreference
    if (c >= 0x30 && c <= 0x37) {
      let r = c - 0x30;
      for (let i = 1; i < 3 && isOctal(this.pos); i++)
        r = r * 8 + src.charCodeAt(this.pos++) - 0x30;
      return r;
    }
    switch (c) {
      case 0x78: {
        // x
        if (this.pos >= src.length) return fail();
        const d = this.nextRune();
        if (d === 0x7b) {
          let nhex = 0;
          let r = 0;
          for (;;) {
            if (this.pos >= src.length) return fail();
            const h = this.nextRune();
            if (h === 0x7d) break;
            const v = unhex(h);
            if (v < 0) return fail();
            r = r * 16 + v;
            if (r > 0x10ffff) return fail();
            nhex++;
          }
          if (nhex === 0) return fail();
          return r;
        }
        const x = unhex(d);
        const y = this.pos < src.length ? unhex(this.nextRune()) : -1;
        if (x < 0 || y < 0) return fail();
        return x * 16 + y;
      }
      case 0x61:
        return 0x07; // \a
      case 0x66:
        return 0x0c; // \f
      case 0x6e:
        return 0x0a; // \n
      case 0x72:
        return 0x0d; // \r
      case 0x74:
        return 0x09; // \t
      case 0x76:
        return 0x0b; // \v
      default:
        // Escaped ASCII punctuation (and `_`) is itself; letters, digits and non-ASCII are errors.
        if (c < 0x80 && !isAlnum(c)) return c;
        return fail();
    }
  }

  /** `\d` `\D` `\s` `\S` `\w` `\W` at this.pos; appends to acc and returns true if present. */
  private parsePerlClass(acc: ClassAccumulator): boolean {
    const group = PERL_GROUPS.get(this.src.slice(this.pos, this.pos + 2));
    if (group === undefined) return false;
    this.pos += 2;
    this.appendGroup(acc, group.ranges, group.negated);
    return true;
  }

  /** Adds a predefined class (Perl, POSIX, Unicode), folded under (?i) and then negated, as Go does. */
  private appendGroup(acc: ClassAccumulator, ranges: readonly number[], negated: boolean): void {
    let set: number[];
    if (this.flags & FOLD_CASE) {
      set = [];
      appendFoldClosure(set, cleanRanges(ranges));
      set = cleanRanges(set);
    } else {
      set = [...ranges];
    }
    acc.ranges.push(...(negated ? negateRanges(cleanRanges(set)) : set));
  }

  /** `\pN`, `\p{Greek}`, `\P{^L}` at this.pos; throws for an unknown name. */
  private parseUnicodeClass(acc: ClassAccumulator): boolean {
    const src = this.src;
    const start = this.pos;
    const letter = src[start + 1];
    if (src[start] !== '\\' || (letter !== 'p' && letter !== 'P')) return false;
    let negated = letter === 'P';
    let seqEnd: number;
    let name: string;
    if (src[start + 2] !== '{') {
      const cp = src.codePointAt(start + 2);
      seqEnd = cp === undefined ? start + 2 : start + 2 + (cp > 0xffff ? 2 : 1);
      name = src.slice(start + 2, seqEnd);
    } else {
      const close = src.indexOf('}', start);
      if (close < 0) throw new Re2SyntaxError('invalid character class range', src.slice(start));
      seqEnd = close + 1;
      name = src.slice(start + 3, close);
    }
    const seq = src.slice(start, seqEnd);
    if (name.startsWith('^')) {
      negated = !negated;
      name = name.slice(1);
    }
    const table = unicodeTable(name);
    if (table === undefined) throw new Re2SyntaxError('invalid character class range', seq);
    this.pos = seqEnd;
    this.appendGroup(acc, table, negated);
    return true;
  }

  private parseClass(): Node {
    const src = this.src;
    const classStart = this.pos;
    const whole = src.slice(classStart);
    this.pos++;
    let negated = false;
    if (src[this.pos] === '^') {
      negated = true;
      this.pos++;
    }
    const acc: ClassAccumulator = { ranges: [] };
    let first = true;
    while (this.pos >= src.length || src[this.pos] !== ']' || first) {
      first = false;
      if (src[this.pos] === '[' && src[this.pos + 1] === ':' && this.pos + 2 < src.length) {
        const close = src.indexOf(':]', this.pos + 2);
        if (close >= 0) {
          const bracketed = src.slice(this.pos, close + 2);
          const group = posixGroup(bracketed);
          if (group === undefined)
            throw new Re2SyntaxError('invalid character class range', bracketed);
          this.pos = close + 2;
          this.appendGroup(acc, group.ranges, group.negated);
          continue;
        }
      }
      if (this.parseUnicodeClass(acc)) continue;
      if (this.parsePerlClass(acc)) continue;
      const rangeStart = this.pos;
      const lo = this.parseClassChar(whole);
      let hi = lo;
      if (src[this.pos] === '-' && this.pos + 1 < src.length && src[this.pos + 1] !== ']') {
        this.pos++;
        hi = this.parseClassChar(whole);
        if (hi < lo)
          throw new Re2SyntaxError(
            'invalid character class range',
            src.slice(rangeStart, this.pos),
          );
      }
      if (this.flags & FOLD_CASE) appendFoldedRange(acc.ranges, lo, hi);
      else acc.ranges.push(lo, hi);
    }
    this.pos++; // ]
    return { op: 'class', cls: finishClass(acc, negated) };
  }

  private parseClassChar(wholeClass: string): number {
    if (this.pos >= this.src.length) throw new Re2SyntaxError('missing closing ]', wholeClass);
    if (this.src[this.pos] === '\\') return this.parseEscape();
    return this.nextRune();
  }
}

function finishClass(acc: ClassAccumulator, negated: boolean): CharClass {
  return { ranges: Int32Array.from(cleanRanges(acc.ranges)), negated };
}
