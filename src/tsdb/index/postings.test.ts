import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Labels, Matcher } from '../../model/index.js';
import {
  intersectPostings,
  mergePostings,
  postingsForMatchers,
  toPostings,
  withoutPostings,
  type PostingsSource,
} from './index.js';

const sortedSet = fc
  .uniqueArray(fc.integer({ min: 0, max: 2000 }), { maxLength: 300 })
  .map((xs) => Uint32Array.from(xs.sort((a, b) => a - b)));

describe('postings set operations', () => {
  it('intersect equals the naive model', () => {
    fc.assert(
      fc.property(fc.array(sortedSet, { maxLength: 5 }), (lists) => {
        const want =
          lists.length === 0
            ? []
            : [...(lists[0] as Uint32Array)].filter((x) => lists.every((l) => l.includes(x)));
        expect([...intersectPostings(...lists)]).toEqual(want);
      }),
    );
  });

  it('merge equals the sorted union', () => {
    fc.assert(
      fc.property(fc.array(sortedSet, { maxLength: 6 }), (lists) => {
        const want = [...new Set(lists.flatMap((l) => [...l]))].sort((a, b) => a - b);
        expect([...mergePostings(...lists)]).toEqual(want);
      }),
    );
  });

  it('without equals the set difference', () => {
    fc.assert(
      fc.property(sortedSet, sortedSet, (full, drop) => {
        const want = [...full].filter((x) => !drop.includes(x));
        expect([...withoutPostings(full, drop)]).toEqual(want);
      }),
    );
  });

  it('accepts plain number arrays and never aliases its input', () => {
    const a = [1, 5, 9];
    const out = intersectPostings(a);
    expect([...out]).toEqual(a);
    out[0] = 7;
    expect(a[0]).toBe(1);
    expect([...mergePostings([3], [1, 3], [2])]).toEqual([1, 2, 3]);
    expect([...withoutPostings([1, 2, 3], [2, 4])]).toEqual([1, 3]);
  });

  it('toPostings rejects unsorted or duplicated lists', () => {
    expect([...toPostings([1, 2])]).toEqual([1, 2]);
    expect(() => toPostings([2, 2])).toThrow(/2 follows 2 at position 1/);
    expect(() => toPostings([3, 1])).toThrow(/strictly ascending/);
  });
});

/** An in-memory postings source: series i has reference i. */
function memorySource(series: Labels[]): PostingsSource {
  return {
    postings(name, ...values) {
      const refs: number[] = [];
      series.forEach((l, i) => {
        if (name === '' && values.includes('')) refs.push(i);
        else if (l.has(name) && values.includes(l.get(name))) refs.push(i);
      });
      return Promise.resolve(Uint32Array.from(refs));
    },
    labelValues(name) {
      const set = new Set<string>();
      for (const l of series) if (l.has(name)) set.add(l.get(name));
      return Promise.resolve([...set].sort());
    },
  };
}

describe('postingsForMatchers (Prometheus TestPostingsForMatchers cases)', () => {
  const series = [
    Labels.fromStrings('n', '1'),
    Labels.fromStrings('n', '1', 'i', 'a'),
    Labels.fromStrings('n', '1', 'i', 'b'),
    Labels.fromStrings('n', '2'),
    Labels.fromStrings('n', '2.5'),
  ];
  const ix = memorySource(series);
  const cases: Array<[Matcher[], number[]]> = [
    [[], []],
    [[Matcher.equal('n', '1')], [0, 1, 2]],
    [[Matcher.equal('n', '1'), Matcher.equal('i', 'a')], [1]],
    [[Matcher.equal('n', '1'), Matcher.equal('i', 'missing')], []],
    [[Matcher.equal('missing', '')], [0, 1, 2, 3, 4]],
    [[Matcher.notEqual('n', '1')], [3, 4]],
    [[Matcher.notEqual('i', '')], [1, 2]],
    [[Matcher.notEqual('missing', '')], []],
    [
      [Matcher.equal('n', '1'), Matcher.notEqual('i', 'a')],
      [0, 2],
    ],
    [
      [Matcher.equal('n', '1'), Matcher.notEqual('i', '')],
      [1, 2],
    ],
    [[Matcher.regex('n', '^1$')], [0, 1, 2]],
    [[Matcher.regex('n', '1|2.5')], [0, 1, 2, 4]],
    [[Matcher.regex('i', '')], [0, 3, 4]],
    [[Matcher.regex('i', 'a?')], [0, 1, 3, 4]],
    [[Matcher.regex('i', '.*')], [0, 1, 2, 3, 4]],
    [[Matcher.regex('i', '.+')], [1, 2]],
    [[Matcher.notRegex('n', '^1$')], [3, 4]],
    [[Matcher.notRegex('i', '')], [1, 2]],
    [[Matcher.notRegex('i', '.*')], []],
    [
      [Matcher.equal('n', '1'), Matcher.notRegex('i', '^a$')],
      [0, 2],
    ],
    [[Matcher.equal('n', '1'), Matcher.notRegex('i', 'a|b')], [0]],
    [[Matcher.equal('n', '1'), Matcher.regex('i', '.+'), Matcher.notEqual('i', 'b')], [1]],
    [
      [Matcher.regex('n', '.*'), Matcher.notRegex('i', '^$')],
      [1, 2],
    ],
  ];
  for (const [matchers, want] of cases) {
    it(`{${matchers.map((m) => m.toString()).join(', ')}} selects ${JSON.stringify(want)}`, async () => {
      expect([...(await postingsForMatchers(ix, matchers))]).toEqual(want);
    });
  }
});
