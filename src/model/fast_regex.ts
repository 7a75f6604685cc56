/**
 * Prometheus's FastRegexMatcher: a fully anchored RE2 match (`^(?s:re)$`) with shortcuts that
 * avoid running the automaton for the shapes label matchers usually have — literals,
 * alternations of literals (set matching), `.*`, `.+`, and `literal.*literal.*literal`
 * (prefix / contains / suffix). Every shortcut is exact; anything else runs the linear-time
 * NFA from `re2/`.
 */
import { Program, equalFold, foldKey, parseRe2, type Node } from './re2/index.js';

/** Go's maxSetMatches: set matching is abandoned above this many alternatives. */
export const MAX_SET_MATCHES = 256;

const META = /[\\.+*?()|[\]{}^$]/;

/** True when `s` has no RE2 metacharacter, i.e. Go's regexp.QuoteMeta(s) === s. */
function isPlainLiteral(s: string): boolean {
  return !META.test(s);
}

function foldNormalize(s: string): string {
  let out = '';
  for (const ch of s) out += String.fromCodePoint(foldKey(ch.codePointAt(0) as number));
  return out;
}

function stripCaptures(node: Node): Node {
  let n = node;
  while (n.op === 'capture') n = n.sub;
  return n;
}

function isAnyStar(node: Node): boolean {
  const n = stripCaptures(node);
  if (n.op !== 'repeat' || n.min !== 0 || n.max !== -1) return false;
  const sub = stripCaptures(n.sub);
  return sub.op === 'any' && sub.nl;
}

function isAnyPlus(node: Node): boolean {
  const n = stripCaptures(node);
  if (n.op !== 'repeat' || n.min !== 1 || n.max !== -1) return false;
  const sub = stripCaptures(n.sub);
  return sub.op === 'any' && sub.nl;
}

/** Drops a leading `^`/`\A` and a trailing `$`/`\z` of the top-level concatenation: they are implied. */
function stripOuterAnchors(node: Node): Node {
  const n = stripCaptures(node);
  if (n.op === 'assert' && (n.kind === 'bot' || n.kind === 'eot')) return { op: 'empty' };
  if (n.op !== 'concat') return n;
  let subs = n.subs.map(stripCaptures);
  const first = subs[0];
  if (first !== undefined && first.op === 'assert' && first.kind === 'bot') subs = subs.slice(1);
  const last = subs[subs.length - 1];
  if (last !== undefined && last.op === 'assert' && last.kind === 'eot') subs = subs.slice(0, -1);
  if (subs.length === 0) return { op: 'empty' };
  return subs.length === 1 ? (subs[0] as Node) : { op: 'concat', subs };
}

interface SetResult {
  readonly values: string[];
  readonly caseSensitive: boolean;
}

/** The finite set of strings `node` matches, if small and of uniform case sensitivity. */
function findSetMatches(node: Node, bases: readonly string[]): SetResult | undefined {
  const n = stripCaptures(node);
  switch (n.op) {
    case 'empty':
      return { values: [...bases], caseSensitive: true };
    case 'literal': {
      const ch = String.fromCodePoint(n.rune);
      return { values: bases.map((b) => b + ch), caseSensitive: !n.fold };
    }
    case 'class': {
      const { ranges } = n.cls;
      if (n.cls.negated) return undefined;
      let total = 0;
      for (let i = 0; i + 1 < ranges.length; i += 2)
        total += (ranges[i + 1] as number) - (ranges[i] as number) + 1;
      if (total * bases.length > MAX_SET_MATCHES) return undefined;
      const values: string[] = [];
      for (const b of bases) {
        for (let i = 0; i + 1 < ranges.length; i += 2) {
          for (let c = ranges[i] as number; c <= (ranges[i + 1] as number); c++) {
            if (c >= 0xd800 && c <= 0xdfff) return undefined;
            values.push(b + String.fromCodePoint(c));
          }
        }
      }
      return { values, caseSensitive: true };
    }
    case 'concat': {
      let current: string[] = [...bases];
      let sensitivity: boolean | undefined;
      for (const sub of n.subs) {
        const r = findSetMatches(sub, current);
        if (r === undefined) return undefined;
        if (stripCaptures(sub).op !== 'empty') {
          if (sensitivity !== undefined && sensitivity !== r.caseSensitive) return undefined;
          sensitivity = r.caseSensitive;
        }
        current = r.values;
      }
      return { values: current, caseSensitive: sensitivity ?? true };
    }
    case 'alternate': {
      const values: string[] = [];
      let sensitivity: boolean | undefined;
      for (const sub of n.subs) {
        const r = findSetMatches(sub, bases);
        if (r === undefined) return undefined;
        if (sensitivity !== undefined && sensitivity !== r.caseSensitive) return undefined;
        sensitivity = r.caseSensitive;
        values.push(...r.values);
        if (values.length > MAX_SET_MATCHES) return undefined;
      }
      return { values, caseSensitive: sensitivity ?? true };
    }
    default:
      return undefined;
  }
}

/** A concatenation of case-sensitive literals and `.*`, or undefined. Literals are merged. */
function wildcardPattern(node: Node): (string | null)[] | undefined {
  const n = stripCaptures(node);
  const subs = n.op === 'concat' ? n.subs : [n];
  const parts: (string | null)[] = [];
  for (const raw of subs) {
    const sub = stripCaptures(raw);
    if (isAnyStar(sub)) {
      if (parts[parts.length - 1] !== null) parts.push(null);
    } else if (sub.op === 'literal' && !sub.fold) {
      const ch = String.fromCodePoint(sub.rune);
      const last = parts[parts.length - 1];
      if (typeof last === 'string') parts[parts.length - 1] = last + ch;
      else parts.push(ch);
    } else if (sub.op !== 'empty') {
      return undefined;
    }
  }
  return parts.includes(null) ? parts : undefined;
}

/** Matches `lit? (.* lit)* .* lit?` with one left-to-right scan (leftmost occurrences suffice). */
function matchWildcards(parts: readonly (string | null)[], s: string): boolean {
  let start = 0;
  let end = s.length;
  let first = 0;
  let last = parts.length;
  const head = parts[0];
  if (typeof head === 'string') {
    if (!s.startsWith(head)) return false;
    start = head.length;
    first = 1;
  }
  const tail = parts[parts.length - 1];
  if (typeof tail === 'string' && last - 1 >= first) {
    if (s.length - tail.length < start || !s.endsWith(tail)) return false;
    end = s.length - tail.length;
    last--;
  }
  for (let i = first; i < last; i++) {
    const part = parts[i];
    if (typeof part !== 'string') continue;
    const at = s.indexOf(part, start);
    if (at < 0 || at + part.length > end) return false;
    start = at + part.length;
  }
  return true;
}

/** A Prometheus regex matcher: RE2 syntax, anchored at both ends, `.` matching newlines. */
export class FastRegexMatcher {
  readonly source: string;
  private readonly matchFn: (s: string) => boolean;
  private readonly exactSet: readonly string[];
  private readonly literalPrefix: string;

  /** Throws Re2SyntaxError (Go's message) when `source` is not a valid RE2 expression. */
  constructor(source: string) {
    this.source = source;
    this.literalPrefix = '';
    if (!source.includes('|') && isPlainLiteral(source)) {
      this.exactSet = [source];
      this.literalPrefix = source;
      this.matchFn = (s) => s === source;
      return;
    }
    const pieces = source.split('|');
    if (pieces.every(isPlainLiteral)) {
      const set = new Set(pieces);
      this.exactSet = [...set];
      this.matchFn = (s) => set.has(s);
      return;
    }
    const tree = stripOuterAnchors(parseRe2(source, { dotMatchesNewline: true }));
    const program = new Program(tree, source);
    this.exactSet = [];
    if (isAnyStar(tree)) {
      this.matchFn = () => true;
      return;
    }
    if (isAnyPlus(tree)) {
      this.matchFn = (s) => s.length > 0;
      return;
    }
    const set = findSetMatches(tree, ['']);
    if (set !== undefined && set.values.length > 0) {
      if (set.caseSensitive) {
        this.exactSet = [...new Set(set.values)];
        const lookup = new Set(set.values);
        this.matchFn = (s) => lookup.has(s);
      } else {
        const lookup = new Set(set.values.map(foldNormalize));
        const single = set.values.length === 1 ? (set.values[0] as string) : undefined;
        this.matchFn =
          single !== undefined ? (s) => equalFold(s, single) : (s) => lookup.has(foldNormalize(s));
      }
      return;
    }
    const wildcards = wildcardPattern(tree);
    if (wildcards !== undefined) {
      if (typeof wildcards[0] === 'string') this.literalPrefix = wildcards[0];
      this.matchFn = (s) => matchWildcards(wildcards, s);
      return;
    }
    this.literalPrefix = leadingLiteral(tree);
    const prefix = this.literalPrefix;
    this.matchFn =
      prefix === '' ? (s) => program.matches(s) : (s) => s.startsWith(prefix) && program.matches(s);
  }

  matches(s: string): boolean {
    return this.matchFn(s);
  }

  /** The exact strings this regex matches when it is a small case-sensitive set, else empty. */
  setMatches(): readonly string[] {
    return this.exactSet;
  }

  /** A case-sensitive literal every match starts with ('' when none is known). */
  prefix(): string {
    return this.literalPrefix;
  }
}

function leadingLiteral(node: Node): string {
  const n = stripCaptures(node);
  const subs = n.op === 'concat' ? n.subs : [n];
  let out = '';
  for (const raw of subs) {
    const sub = stripCaptures(raw);
    if (sub.op !== 'literal' || sub.fold) break;
    out += String.fromCodePoint(sub.rune);
  }
  return out;
}
