import { describe, expect, it } from 'vitest';
import { FastRegexMatcher } from './fast_regex.js';
import { Matcher, type MatchType } from './matchers.js';

describe('Matcher', () => {
  const table: [MatchType, string, string, boolean][] = [
    ['=', 'bar', 'bar', true],
    ['=', 'bar', 'foo-bar', false],
    ['!=', 'bar', 'bar', false],
    ['!=', 'bar', 'foo-bar', true],
    ['=~', 'bar', 'bar', true],
    ['=~', 'bar', 'foo-bar', false], // fully anchored
    ['=~', '.*bar', 'foo-bar', true],
    ['!~', 'bar', 'bar', false],
    ['!~', 'bar', 'foo-bar', true],
    ['!~', '.*bar', 'foo-bar', false],
    ['=~', '', '', true],
    ['=~', '', 'x', false],
    ['!=', '', '', false],
    ['=~', '.*', '', true],
    ['=~', '.+', '', false],
    ['=~', '.+', '\n', true], // `.` matches newline in Prometheus matchers
    ['=~', 'a.b', 'a\nb', true],
    ['=~', '(?i)foo', 'FOO', true],
    ['=~', '(?i)foo', 'FOOO', false],
    ['=~', 'foo|bar', 'bar', true],
    ['=~', 'foo|bar', 'foobar', false],
    ['=~', 'foo$', 'foo', true],
    ['=~', 'foo$', 'foo\n', false], // RE2 `$` is end of text, not "before a final newline"
    ['=~', '\\bfoo\\b', 'foo', true],
    ['=~', 'é\\b', 'é', false], // \b is an ASCII word boundary in RE2: é is not a word char
    ['=~', 'x\\bé', 'xé', true],
    ['=~', '\\d+', '١٢', false], // \d is ASCII-only in RE2
    ['=~', '\\pN+', '١٢', true],
    ['=~', '\\pL', '\u{10D50}', false], // Unicode 16 letter: not in Go's (Unicode 15) tables
    ['=~', '(?i)\\p{Lu}', 'a', true],
    ['=~', '(?i)k', '\u212a', true], // Kelvin sign folds to k in RE2
    ['=~', '[[:alpha:]]+', 'abc', true],
    ['=~', '10\\.0\\.(1|2)\\.+', '10.0.1.', true],
    ['=~', '10\\.0\\.(1|2)\\.+', '10.0.3.', false],
    ['=~', '(prometheus|api_prom)_api_v1_.+', 'api_prom_api_v1_query', true],
    ['=~', '(prometheus|api_prom)_api_v1_.+', 'api_prom_api_v1_', false],
  ];
  for (const [type, value, input, want] of table) {
    it(`${type} ${JSON.stringify(value)} on ${JSON.stringify(input)} is ${want}`, () => {
      expect(new Matcher(type, 'l', value).matches(input)).toBe(want);
    });
  }

  it('reports invalid regular expressions with Go text', () => {
    expect(() => Matcher.regex('job', '(abc')).toThrow(
      'error parsing regexp: missing closing ): `(abc`',
    );
    expect(() => Matcher.notRegex('job', '\\1')).toThrow(
      'error parsing regexp: invalid escape sequence: `\\1`',
    );
    expect(() => Matcher.regex('job', 'a(?<=b)')).toThrow('invalid named capture: `(?<=b)`');
    expect(() => new Matcher('==' as MatchType, 'job', 'x')).toThrow(
      'unknown label matcher type "=="',
    );
  });

  it('renders like Prometheus Matcher.String', () => {
    expect(Matcher.regex('job', 'a.*').toString()).toBe('job=~"a.*"');
    expect(Matcher.notEqual('job', 'x"y').toString()).toBe('job!="x\\"y"');
    expect(Matcher.equal('my.label', 'v').toString()).toBe('"my.label"="v"');
    expect(Matcher.notRegex('__name__', '\\d').toString()).toBe('__name__!~"\\\\d"');
  });

  it('inverts and reports whether it matches the empty value', () => {
    const m = Matcher.regex('job', 'a|');
    expect(m.inverse().toString()).toBe('job!~"a|"');
    expect(m.matchesEmpty()).toBe(true);
    expect(m.inverse().matchesEmpty()).toBe(false);
    expect(Matcher.equal('job', 'x').inverse().type).toBe('!=');
  });

  it('exposes set matches and literal prefixes for postings lookups', () => {
    expect(Matcher.equal('a', 'x').setMatches()).toEqual(['x']);
    expect(Matcher.regex('a', 'foo|bar|baz').setMatches()).toEqual(['foo', 'bar', 'baz']);
    expect(Matcher.regex('a', '(foo|bar)baz').setMatches()).toEqual(['foobaz', 'barbaz']);
    expect(Matcher.regex('a', '[ab]c').setMatches()).toEqual(['ac', 'bc']);
    expect(Matcher.regex('a', '(?i)foo').setMatches()).toEqual([]);
    expect(Matcher.regex('a', '.*').setMatches()).toEqual([]);
    expect(Matcher.notRegex('a', 'foo').setMatches()).toEqual([]);
    expect(Matcher.regex('a', 'foo.*').prefix()).toBe('foo');
    expect(Matcher.regex('a', 'foo[0-9]+').prefix()).toBe('foo');
    expect(Matcher.regex('a', '(?i)foo.*').prefix()).toBe('');
    expect(Matcher.equal('a', 'x').prefix()).toBe('x');
  });
});

describe('FastRegexMatcher shortcuts', () => {
  const cases: [string, string[], string[]][] = [
    ['.*', ['', 'x', '\n'], []],
    ['^.*$', ['', 'abc'], []],
    ['.+', ['x', '\n'], ['']],
    ['foo.*', ['foo', 'foobar'], ['fo', 'xfoo']],
    ['.*foo', ['foo', 'xfoo'], ['foox']],
    ['.*foo.*', ['foo', 'afoob'], ['fo']],
    [
      'foo.*bar.*baz',
      ['foobarbaz', 'foo-bar-baz', 'foobarbazbaz'],
      ['foobaz', 'foobarba', 'fobarbaz'],
    ],
    ['ab.*ab', ['abab', 'ab-ab'], ['ab', 'aba']], // prefix and suffix must not overlap
    ['a.*bc.*c', ['abcc', 'abcxc'], ['abc']], // nor a middle literal and the suffix
    ['(?i)foo|bar', ['FOO', 'bar', 'BAR'], ['x']], // flags last until the enclosing ')'
    ['(?i)(foo|bar)', ['FOO', 'bAr'], ['baz']],
    ['(?i)ſ', ['s', 'S', 'ſ'], ['x']],
    ['foo|bar|', ['foo', 'bar', ''], ['baz']],
    ['.*(foo|bar).*', ['xbarx', 'foo'], ['fo']],
  ];
  for (const [pattern, yes, no] of cases) {
    it(JSON.stringify(pattern), () => {
      const m = new FastRegexMatcher(pattern);
      expect(yes.filter((s) => !m.matches(s))).toEqual([]);
      expect(no.filter((s) => m.matches(s))).toEqual([]);
    });
  }
});
