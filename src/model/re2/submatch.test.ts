// Go regexp submatch semantics (expected positions produced with Go's regexp package).
import { describe, expect, it } from 'vitest';
import { SubmatchRegex } from './submatch.js';

describe('Go regexp submatches', () => {
  // [pattern, input, ...groups] as Go's FindStringSubmatch reports them.
  const goCases: string[][] = [
    ['(a*)(a*)', 'aaa', 'aaa', 'aaa', ''],
    ['(a*?)(a*)', 'aaa', 'aaa', '', 'aaa'],
    ['(a|ab)(c|bcd)(d*)', 'abcd', 'abcd', 'a', 'bcd', ''],
    ['(a+)(b+)?', 'aaa', 'aaa', 'aaa', '<unset>'],
    ['(.*)-(.*)', 'a-b-c', 'a-b-c', 'a-b', 'c'],
    ['(.*?)-(.*)', 'a-b-c', 'a-b-c', 'a', 'b-c'],
    ['((a)|b)+', 'ab', 'ab', 'b', 'a'],
    ['(a)|(b)', 'b', 'b', '<unset>', 'b'],
    ['(?P<x>\\w+)@(?P<y>\\w+)', 'foo@bar', 'foo@bar', 'foo', 'bar'],
    ['(a*)*', 'aa', 'aa', 'aa'],
    ['(a*)+', 'aa', 'aa', 'aa'],
    ['(a|)+', 'aa', 'aa', 'a'],
    ['x(y)?z', 'xz', 'xz', '<unset>'],
    ['(\\d+)(\\d*)', '12345', '12345', '12345', ''],
    ['(?i)(AB)(c)', 'abC', 'abC', 'ab', 'C'],
    ['(é+)(.)', 'ééx', 'ééx', 'éé', 'x'],
    ['(a{2,3})(a*)', 'aaaaa', 'aaaaa', 'aaa', 'aa'],
    ['(a{2,3}?)(a*)', 'aaaaa', 'aaaaa', 'aa', 'aaa'],
    ['(?s)(.*)', 'a\nb', 'a\nb', 'a\nb'],
    ['(\\bfoo)(.*)', 'foo bar', 'foo bar', 'foo', ' bar'],
  ];

  it.each(goCases)('%s on %s', (pattern, input, ...groups) => {
    const re = new SubmatchRegex(`^(?s:${pattern})$`);
    const m = re.matchAt0(input);
    expect(m).toBeDefined();
    const got = groups.map((_, i) =>
      m![2 * i]! < 0 ? '<unset>' : input.slice(m![2 * i], m![2 * i + 1]),
    );
    expect(got).toEqual(groups);
  });

  it('reports no match', () => {
    expect(new SubmatchRegex('^(?s:a+)$').matchAt0('ab')).toBeUndefined();
    expect(new SubmatchRegex('^(?s:)$').matchAt0('')).toEqual([0, 0]);
  });
});
