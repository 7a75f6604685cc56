// Property tests: the NFA and the fast paths agree with a deliberately naive backtracking
// interpretation of the same syntax tree, and — on the syntax subset where RE2 and
// ECMAScript coincide — with JavaScript's own RegExp.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FastRegexMatcher } from '../fast_regex.js';
import type { Node } from './ast.js';
import { foldKey } from './case_fold.js';
import { classMatches } from './charclass.js';
import { Program, parseRe2 } from './index.js';

function isWord(cp: number): boolean {
  return /^[0-9A-Za-z_]$/.test(cp < 0 ? '' : String.fromCodePoint(cp));
}

/** Continuation-passing backtracking matcher: exponential, obviously correct, test-only. */
function refMatch(node: Node, s: readonly number[], i: number, k: (j: number) => boolean): boolean {
  const cp = i < s.length ? (s[i] as number) : -1;
  switch (node.op) {
    case 'empty':
      return k(i);
    case 'literal':
      return (
        cp >= 0 && (node.fold ? foldKey(cp) === foldKey(node.rune) : cp === node.rune) && k(i + 1)
      );
    case 'class':
      return cp >= 0 && classMatches(node.cls, cp) && k(i + 1);
    case 'any':
      return cp >= 0 && (node.nl || cp !== 10) && k(i + 1);
    case 'assert': {
      const before = i > 0 ? (s[i - 1] as number) : -1;
      const ok = {
        bot: before === -1,
        eot: cp === -1,
        bol: before === -1 || before === 10,
        eol: cp === -1 || cp === 10,
        wordBoundary: isWord(before) !== isWord(cp),
        noWordBoundary: isWord(before) === isWord(cp),
      }[node.kind];
      return ok && k(i);
    }
    case 'capture':
      return refMatch(node.sub, s, i, k);
    case 'concat': {
      const go = (idx: number, pos: number): boolean =>
        idx === node.subs.length
          ? k(pos)
          : refMatch(node.subs[idx] as Node, s, pos, (j) => go(idx + 1, j));
      return go(0, i);
    }
    case 'alternate':
      return node.subs.some((sub) => refMatch(sub, s, i, k));
    case 'repeat': {
      const rep = (count: number, pos: number): boolean =>
        (count >= node.min && k(pos)) ||
        ((node.max < 0 || count < node.max) &&
          refMatch(node.sub, s, pos, (j) =>
            j === pos && count >= node.min ? false : rep(count + 1, j),
          ));
      return rep(0, i);
    }
  }
}

function reference(pattern: string, input: string): boolean {
  const tree = parseRe2(pattern, { dotMatchesNewline: true });
  const cps = [...input].map((c) => c.codePointAt(0) as number);
  return refMatch(tree, cps, 0, (j) => j === cps.length);
}

/** Patterns over a tiny alphabet; `caseFolding` allows (?i) groups. */
function patternArb(caseFolding: boolean): fc.Arbitrary<string> {
  const { expr } = fc.letrec<{ expr: string; atom: string }>((tie) => ({
    atom: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      fc.constantFrom(
        'a',
        'b',
        'c',
        'A',
        '\\.',
        '.',
        // Wildcard atoms exercise the prefix/contains/suffix shortcuts.
        '(?:.*)',
        '(?:.+)',
        '[ab]',
        '[^a]',
        '[a-c]',
        '\\d',
        '\\w',
        '[[:alpha:]]',
        '\\n',
        '1',
      ),
      tie('expr').map((e) => `(?:${e})`),
      tie('expr').map((e) => `(${e})`),
      ...(caseFolding ? [tie('expr').map((e) => `(?i:${e})`)] : []),
    ),
    expr: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      tie('atom'),
      fc
        .tuple(
          tie('atom'),
          fc.constantFrom('*', '+', '?', '{2}', '{1,2}', '{0,}', '*?', '+?', '{0,2}?'),
        )
        .map(([a, op]) => a + op),
      fc.array(tie('atom'), { minLength: 2, maxLength: 3 }).map((xs) => xs.join('')),
      fc.tuple(tie('expr'), tie('expr')).map(([x, y]) => `${x}|${y}`),
    ),
  }));
  return expr;
}

const inputArb = fc
  .array(fc.constantFrom('a', 'b', 'c', 'A', '1', '.', '\n', 'ab', 'aa'), { maxLength: 5 })
  .map((xs) => xs.join(''));

describe('RE2 matching properties', () => {
  it('the NFA and the fast-path matcher agree with a backtracking reference', () => {
    fc.assert(
      fc.property(
        patternArb(true),
        fc.array(inputArb, { minLength: 1, maxLength: 8 }),
        (pattern, inputs) => {
          const program = new Program(parseRe2(pattern, { dotMatchesNewline: true }), pattern);
          const fast = new FastRegexMatcher(pattern);
          for (const input of inputs) {
            const want = reference(pattern, input);
            expect(program.matches(input), `${pattern} on ${JSON.stringify(input)}`).toBe(want);
            expect(fast.matches(input), `${pattern} on ${JSON.stringify(input)}`).toBe(want);
          }
        },
      ),
      { numRuns: 400 },
    );
  });

  it('agrees with JavaScript RegExp where RE2 and ECMAScript syntax coincide', () => {
    fc.assert(
      fc.property(
        patternArb(false),
        fc.array(inputArb, { minLength: 1, maxLength: 8 }),
        (pattern, inputs) => {
          const fast = new FastRegexMatcher(pattern);
          // POSIX classes are the one construct of the generator that ECMAScript spells differently.
          const js = new RegExp(`^(?:${pattern.replaceAll('[[:alpha:]]', '[A-Za-z]')})$`, 'su');
          for (const input of inputs) {
            expect(fast.matches(input), `${pattern} on ${JSON.stringify(input)}`).toBe(
              js.test(input),
            );
          }
        },
      ),
      { numRuns: 400 },
    );
  });

  it('the literal/.* shortcut agrees with the reference on overlapping literals', () => {
    const piece = fc.constantFrom('a', 'b', 'ab', 'ba', 'aa', '.*', '.+');
    const text = fc
      .array(fc.constantFrom('a', 'b', 'c'), { maxLength: 7 })
      .map((xs) => xs.join(''));
    fc.assert(
      fc.property(
        fc.array(piece, { minLength: 1, maxLength: 5 }),
        fc.array(text, { minLength: 1, maxLength: 10 }),
        (pieces, inputs) => {
          const pattern = pieces.join('');
          const fast = new FastRegexMatcher(pattern);
          for (const input of inputs) {
            expect(fast.matches(input), `${pattern} on ${JSON.stringify(input)}`).toBe(
              reference(pattern, input),
            );
          }
        },
      ),
      { numRuns: 500 },
    );
  });

  it('matches pathological patterns in linear time instead of backtracking', () => {
    // (a*)*b against a long run of a's is catastrophic for backtracking engines.
    const fast = new FastRegexMatcher('(a*)*b');
    expect(fast.matches('a'.repeat(5000))).toBe(false);
    expect(fast.matches('a'.repeat(5000) + 'b')).toBe(true);
  });
});
