// Conformance against Go's own regexp package. testdata/go_regexp_cases.json was produced by
// running Go 1.26's regexp/syntax + regexp exactly as Prometheus's FastRegexMatcher does
// (parse with Perl|DotNL, compile `^(?s:` + parsed.String() + `)$`) over hand-picked and
// randomly generated patterns; it records Go's error text or which inputs match.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { FastRegexMatcher } from '../fast_regex.js';
import { Program, parseRe2 } from './index.js';

interface CuratedCase {
  readonly pattern: string;
  readonly error?: string;
  readonly matching?: readonly string[];
}
interface RandomCase {
  readonly pattern: string;
  readonly error?: string;
  readonly inputs?: readonly string[];
  readonly matches?: string;
}
interface Fixture {
  readonly curatedInputs: readonly string[];
  readonly curated: readonly CuratedCase[];
  readonly random: readonly RandomCase[];
}

const fixture = JSON.parse(
  readFileSync(new URL('./testdata/go_regexp_cases.json', import.meta.url), 'utf8'),
) as Fixture;

function errorOf(fn: () => unknown): string | undefined {
  try {
    fn();
    return undefined;
  } catch (e) {
    return (e as Error).message;
  }
}

function nfa(pattern: string): Program {
  return new Program(parseRe2(pattern, { dotMatchesNewline: true }), pattern);
}

describe('RE2 conformance with Go regexp (hand-picked patterns)', () => {
  it('has a meaningful corpus', () => {
    expect(fixture.curated.length).toBeGreaterThan(200);
    expect(fixture.curated.filter((c) => c.error !== undefined).length).toBeGreaterThan(60);
  });

  for (const c of fixture.curated) {
    it(`${JSON.stringify(c.pattern)}`, () => {
      if (c.error !== undefined) {
        expect(errorOf(() => new FastRegexMatcher(c.pattern))).toBe(c.error);
        return;
      }
      const fast = new FastRegexMatcher(c.pattern);
      const program = nfa(c.pattern);
      const expected = new Set(c.matching);
      const wrongFast = fixture.curatedInputs.filter((s) => fast.matches(s) !== expected.has(s));
      const wrongNfa = fixture.curatedInputs.filter((s) => program.matches(s) !== expected.has(s));
      expect({ wrongFast, wrongNfa }).toEqual({ wrongFast: [], wrongNfa: [] });
    });
  }
});

describe('RE2 conformance with Go regexp (generated patterns)', () => {
  it('agrees on every generated pattern and input', () => {
    const disagreements: string[] = [];
    for (const c of fixture.random) {
      if (c.error !== undefined) {
        const got = errorOf(() => new FastRegexMatcher(c.pattern));
        if (got !== c.error)
          disagreements.push(`${JSON.stringify(c.pattern)}: error ${got} != ${c.error}`);
        continue;
      }
      const fast = new FastRegexMatcher(c.pattern);
      const program = nfa(c.pattern);
      (c.inputs ?? []).forEach((input, i) => {
        const want = c.matches?.[i] === '1';
        if (fast.matches(input) !== want || program.matches(input) !== want) {
          disagreements.push(
            `${JSON.stringify(c.pattern)} on ${JSON.stringify(input)}: want ${want}`,
          );
        }
      });
    }
    expect(fixture.random.length).toBeGreaterThanOrEqual(500);
    expect(disagreements).toEqual([]);
  });
});
