/**
 * Character classes as RE2 builds them: sorted, merged code point ranges (Go's cleanClass),
 * with `(?i)` folding applied when the class is built. Unicode classes (`\pL`, `\p{Greek}`)
 * come from Go's own tables, so membership never depends on the JavaScript engine.
 */
import { MAX_FOLD, MIN_FOLD, forEachOrbit, foldOrbit } from './case_fold.js';
import { GO_UNICODE_TABLES } from './unicode_tables.js';

export const MAX_RUNE = 0x10ffff;

export interface CharClass {
  /** Cleaned pairs lo,hi (inclusive), ascending and non-adjacent. */
  readonly ranges: Int32Array;
  /** The whole class is complemented (`[^...]`). */
  readonly negated: boolean;
}

/** Sorts and merges overlapping or abutting ranges. */
export function cleanRanges(pairs: readonly number[]): number[] {
  const spans: [number, number][] = [];
  for (let i = 0; i + 1 < pairs.length; i += 2)
    spans.push([pairs[i] as number, pairs[i + 1] as number]);
  spans.sort((a, b) => a[0] - b[0] || b[1] - a[1]);
  const out: number[] = [];
  for (const [lo, hi] of spans) {
    const n = out.length;
    if (n > 0 && lo <= (out[n - 1] as number) + 1) {
      if (hi > (out[n - 1] as number)) out[n - 1] = hi;
    } else {
      out.push(lo, hi);
    }
  }
  return out;
}

/** Complement of cleaned ranges within [0, MAX_RUNE]. */
export function negateRanges(clean: readonly number[]): number[] {
  const out: number[] = [];
  let next = 0;
  for (let i = 0; i + 1 < clean.length; i += 2) {
    const lo = clean[i] as number;
    if (next <= lo - 1) out.push(next, lo - 1);
    next = (clean[i + 1] as number) + 1;
  }
  if (next <= MAX_RUNE) out.push(next, MAX_RUNE);
  return out;
}

/** Appends lo..hi and every case variant of its members (Go's appendFoldedRange). */
export function appendFoldedRange(out: number[], lo: number, hi: number): void {
  if ((lo <= MIN_FOLD && hi >= MAX_FOLD) || hi < MIN_FOLD || lo > MAX_FOLD) {
    out.push(lo, hi);
    return;
  }
  out.push(lo, hi);
  const from = Math.max(lo, MIN_FOLD);
  const to = Math.min(hi, MAX_FOLD);
  for (let c = from; c <= to; c++) {
    const orbit = foldOrbit(c);
    if (orbit.length === 1) continue;
    for (const f of orbit) if (f < lo || f > hi) out.push(f, f);
  }
}

export function inRanges(ranges: Int32Array, cp: number): boolean {
  let lo = 0;
  let hi = (ranges.length >> 1) - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (cp < (ranges[2 * mid] as number)) hi = mid - 1;
    else if (cp > (ranges[2 * mid + 1] as number)) lo = mid + 1;
    else return true;
  }
  return false;
}

export function classMatches(cls: CharClass, cp: number): boolean {
  return inRanges(cls.ranges, cp) !== cls.negated;
}

/**
 * Adds every case variant of every member of the cleaned ranges (Go's table ∪ FoldCategory).
 * Walks the ~1400 orbits instead of the members, so large tables such as \pL stay cheap.
 */
export function appendFoldClosure(out: number[], clean: readonly number[]): void {
  const ranges = Int32Array.from(clean);
  out.push(...clean);
  forEachOrbit((orbit) => {
    if (orbit.some((m) => inRanges(ranges, m))) for (const m of orbit) out.push(m, m);
  });
}

// Perl classes (\d \s \w) and POSIX classes are ASCII-only in RE2.
const DIGIT = [0x30, 0x39];
const SPACE = [0x09, 0x0a, 0x0c, 0x0d, 0x20, 0x20];
const WORD = [0x30, 0x39, 0x41, 0x5a, 0x5f, 0x5f, 0x61, 0x7a];

export const PERL_GROUPS: ReadonlyMap<
  string,
  { readonly ranges: readonly number[]; readonly negated: boolean }
> = new Map([
  ['\\d', { ranges: DIGIT, negated: false }],
  ['\\D', { ranges: DIGIT, negated: true }],
  ['\\s', { ranges: SPACE, negated: false }],
  ['\\S', { ranges: SPACE, negated: true }],
  ['\\w', { ranges: WORD, negated: false }],
  ['\\W', { ranges: WORD, negated: true }],
]);

const POSIX_BASE: ReadonlyMap<string, readonly number[]> = new Map([
  ['alnum', [0x30, 0x39, 0x41, 0x5a, 0x61, 0x7a]],
  ['alpha', [0x41, 0x5a, 0x61, 0x7a]],
  ['ascii', [0x00, 0x7f]],
  ['blank', [0x09, 0x09, 0x20, 0x20]],
  ['cntrl', [0x00, 0x1f, 0x7f, 0x7f]],
  ['digit', [0x30, 0x39]],
  ['graph', [0x21, 0x7e]],
  ['lower', [0x61, 0x7a]],
  ['print', [0x20, 0x7e]],
  ['punct', [0x21, 0x2f, 0x3a, 0x40, 0x5b, 0x60, 0x7b, 0x7e]],
  ['space', [0x09, 0x0d, 0x20, 0x20]],
  ['upper', [0x41, 0x5a]],
  ['word', [0x30, 0x39, 0x41, 0x5a, 0x5f, 0x5f, 0x61, 0x7a]],
  ['xdigit', [0x30, 0x39, 0x41, 0x46, 0x61, 0x66]],
]);

/** Looks up `[:name:]` or `[:^name:]`; undefined when the name is unknown. */
export function posixGroup(
  bracketed: string,
): { readonly ranges: readonly number[]; readonly negated: boolean } | undefined {
  const inner = bracketed.slice(2, -2);
  const negated = inner.startsWith('^');
  const ranges = POSIX_BASE.get(negated ? inner.slice(1) : inner);
  return ranges === undefined ? undefined : { ranges, negated };
}

function decodeTable(encoded: string): number[] {
  const out: number[] = [];
  const parts = encoded.split(',');
  let next = 0;
  for (let i = 0; i + 1 < parts.length; i += 2) {
    const lo = next + parseInt(parts[i] as string, 36);
    const hi = lo + parseInt(parts[i + 1] as string, 36);
    out.push(lo, hi);
    next = hi + 1;
  }
  return out;
}

/** The ranges of a Unicode class name as Go resolves it (Any, ASCII, category, script), or undefined. */
export function unicodeTable(name: string): readonly number[] | undefined {
  if (name === 'Any') return [0, MAX_RUNE];
  if (name === 'ASCII') return [0, 0x7f];
  const encoded = GO_UNICODE_TABLES.get(name);
  return encoded === undefined ? undefined : decodeTable(encoded);
}
