import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { compareGoStrings, goQuote } from './go_strings.js';
import { DuplicateLabelError, Labels } from './labels.js';
import {
  isValidLabelName,
  isValidLegacyLabelName,
  isValidLegacyMetricName,
  isValidMetricName,
} from './names.js';
import { xxhash64 } from './xxhash64.js';

const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);

describe('compareGoStrings', () => {
  it('orders by UTF-8 bytes, not UTF-16 units', () => {
    // U+FFFD is EF BF BD in UTF-8 and sorts before U+1F600 (F0 9F 98 80); in UTF-16 the
    // surrogate D83D sorts first.
    expect(compareGoStrings('\ufffd', '\u{1F600}')).toBeLessThan(0);
    expect('\ufffd' < '\u{1F600}').toBe(false);
    expect(compareGoStrings('a', 'ab')).toBeLessThan(0);
    expect(compareGoStrings('b', 'ab')).toBeGreaterThan(0);
    expect(compareGoStrings('x', 'x')).toBe(0);
  });

  it('agrees with byte-wise comparison of the UTF-8 encodings', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.string({ unit: 'binary' }), (a, b) => {
        expect(Math.sign(compareGoStrings(a, b))).toBe(Math.sign(Buffer.compare(utf8(a), utf8(b))));
      }),
      { numRuns: 2000 },
    );
  });
});

describe('Labels', () => {
  it('sorts names in Go order, including astral characters', () => {
    const ls = Labels.fromObject({ '\u{1F600}': '1', '\ufffd': '2', b: '3', a: '4' });
    expect(ls.names()).toEqual(['a', 'b', '\ufffd', '\u{1F600}']);
  });

  it('rejects duplicate names with a clear error', () => {
    expect(() =>
      Labels.fromPairs([
        ['job', 'a'],
        ['job', 'b'],
      ]),
    ).toThrow(new DuplicateLabelError('job'));
    expect(() => Labels.fromStrings('a', '1', 'a', '2')).toThrow('duplicate label name "a"');
    expect(() => Labels.fromSorted(['b', 'a'], ['1', '2'])).toThrow(
      '"a" is out of order after "b"',
    );
    expect(() => Labels.fromStrings('a')).toThrow('got 1 strings');
  });

  it('looks labels up and derives new sets', () => {
    const ls = Labels.fromStrings('__name__', 'up', 'job', 'api', 'instance', 'h:9090');
    expect(ls.length).toBe(3);
    expect(ls.get('job')).toBe('api');
    expect(ls.get('missing')).toBe('');
    expect(ls.has('instance')).toBe(true);
    expect(ls.has('missing')).toBe(false);
    expect(ls.withoutName().names()).toEqual(['instance', 'job']);
    expect(ls.without('job', 'instance').toObject()).toEqual({ __name__: 'up' });
    expect([...ls].map((l) => `${l.name}=${l.value}`)).toEqual([
      '__name__=up',
      'instance=h:9090',
      'job=api',
    ]);
    const seen: string[] = [];
    ls.forEach((n, v) => seen.push(n + v));
    expect(seen).toEqual(['__name__up', 'instanceh:9090', 'jobapi']);
    expect(ls.nameAt(1)).toBe('instance');
    expect(ls.valueAt(2)).toBe('api');
    expect(() => ls.nameAt(3)).toThrow('label index 3 out of range for 3 labels');
    expect(ls.equals(Labels.fromObject({ job: 'api', instance: 'h:9090', __name__: 'up' }))).toBe(
      true,
    );
    expect(ls.equals(ls.withoutName())).toBe(false);
  });

  it('compares like Prometheus labels.Compare', () => {
    const a = Labels.fromStrings('aaa', '111', 'bbb', '222');
    expect(Labels.compare(a, Labels.fromStrings('aaa', '111', 'bar', '222'))).toBeGreaterThan(0);
    expect(Labels.compare(a, Labels.fromStrings('aaa', '111', 'bbc', '222'))).toBeLessThan(0);
    expect(Labels.compare(a, Labels.fromStrings('aaa', '111', 'bbb', '233'))).toBeLessThan(0);
    expect(Labels.compare(a, Labels.fromStrings('aaa', '111', 'bbb', '222', 'ccc', '333'))).toBe(
      -1,
    );
    expect(Labels.compare(a, Labels.fromStrings('aaa', '111'))).toBe(1);
    expect(Labels.compare(a, Labels.fromStrings('bbb', '222', 'aaa', '111'))).toBe(0);
    expect(Labels.compare(Labels.EMPTY, a)).toBe(-2);
  });

  it('renders like Prometheus 3 labels.String with Go %q escaping', () => {
    expect(Labels.fromStrings('__name__', 'up', 'job', 'x').toString()).toBe(
      '{__name__="up", job="x"}',
    );
    expect(Labels.EMPTY.toString()).toBe('{}');
    expect(Labels.fromStrings('my.label', 'v', 'ok_1', 'w').toString()).toBe(
      '{"my.label"="v", ok_1="w"}',
    );
    expect(
      Labels.fromStrings('a', 'q"b\\n\nt\tz\u0007\u007f\u00a0\u200b😀é\u0000').toString(),
    ).toBe('{a="q\\"b\\\\n\\nt\\tz\\a\\x7f\\u00a0\\u200b😀é\\x00"}');
  });

  it('hashes with XXH64 over name 0xff value 0xff, like labels.Hash', () => {
    const ls = Labels.fromStrings('job', 'api', '__name__', 'up');
    const bytes = new Uint8Array([
      ...utf8('__name__'),
      0xff,
      ...utf8('up'),
      0xff,
      ...utf8('job'),
      0xff,
      ...utf8('api'),
      0xff,
    ]);
    expect(ls.hash()).toBe(xxhash64(bytes));
    expect(ls.hash()).toBe(Labels.fromObject({ __name__: 'up', job: 'api' }).hash());
    expect(ls.hash()).not.toBe(Labels.fromObject({ __name__: 'up', job: 'apj' }).hash());
  });
});

describe('xxhash64', () => {
  it('matches the reference test vectors', () => {
    expect(xxhash64(utf8(''))).toBe(0xef46db3751d8e999n);
    expect(xxhash64(utf8('a'))).toBe(0xd24ec4f1a98c6e5bn);
    expect(xxhash64(utf8('abc'))).toBe(0x44bc2cf5ad770999n);
    expect(xxhash64(utf8('Nobody inspects the spammish repetition'))).toBe(0xfbcea83c8a378bf1n);
  });
});

describe('goQuote', () => {
  it('quotes like strconv.Quote', () => {
    expect(goQuote('')).toBe('""');
    expect(goQuote('\b\f\r\v')).toBe('"\\b\\f\\r\\v"');
    expect(goQuote('\u{E0001}')).toBe('"\\U000e0001"');
    expect(goQuote('\ud800')).toBe('"\ufffd"');
  });

  it('prints an escaped invalid byte (U+DC80–U+DCFF) as Go prints the byte', () => {
    // "a\xc5z" in a PromQL string literal reaches the model as a\udcc5z.
    expect(goQuote('a\udcc5z')).toBe('"a\\xc5z"');
    expect(goQuote('\udc80\udcff')).toBe('"\\x80\\xff"');
    expect(goQuote('\udc7f')).toBe('"\ufffd"');
  });
});

describe('name validation', () => {
  it('follows the legacy and UTF-8 schemes of Prometheus 3', () => {
    expect(isValidLegacyLabelName('job_1')).toBe(true);
    expect(isValidLegacyLabelName('1job')).toBe(false);
    expect(isValidLegacyLabelName('a:b')).toBe(false);
    expect(isValidLegacyMetricName('a:b_c')).toBe(true);
    expect(isValidLegacyMetricName(':x')).toBe(true);
    expect(isValidLegacyMetricName('')).toBe(false);
    expect(isValidLabelName('my.label')).toBe(true);
    expect(isValidLabelName('my.label', 'legacy')).toBe(false);
    expect(isValidLabelName('')).toBe(false);
    expect(isValidLabelName('bad\ud800')).toBe(false);
    expect(isValidMetricName('http.requests 😀')).toBe(true);
    expect(isValidMetricName('http.requests', 'legacy')).toBe(false);
  });
});

describe('Labels.lookupHash', () => {
  it('is a non-negative 31-bit integer, equal for equal label sets however built', () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.string({ minLength: 1, maxLength: 8 }), fc.string({ maxLength: 8 })),
        (obj) => {
          const a = Labels.fromObject(obj);
          const b = Labels.fromPairs(Object.entries(obj).reverse());
          const h = a.lookupHash();
          expect(Number.isInteger(h) && h >= 0 && h <= 0x7fffffff).toBe(true);
          expect(b.lookupHash()).toBe(h);
        },
      ),
    );
  });

  it('separates where the boundaries between names and values fall', () => {
    const hashes = new Set([
      Labels.fromStrings('a', 'bc').lookupHash(),
      Labels.fromStrings('ab', 'c').lookupHash(),
      Labels.fromStrings('a', 'b', 'c', '').lookupHash(),
      Labels.fromStrings('abc', '').lookupHash(),
    ]);
    expect(hashes.size).toBe(4);
  });

  it('rarely collides on realistic series (the head keeps colliding series in one list)', () => {
    const seen = new Set<number>();
    let collisions = 0;
    for (let i = 0; i < 100_000; i++) {
      const h = Labels.fromStrings(
        '__name__',
        `metric_${i % 100}`,
        'instance',
        `host-${Math.floor(i / 100)}:9100`,
        'job',
        'node',
      ).lookupHash();
      if (seen.has(h)) collisions++;
      seen.add(h);
    }
    // 100k keys in 2^31 buckets expect ~2.3 collisions.
    expect(collisions).toBeLessThan(20);
  });
});

describe('Labels.fromSortedFlat', () => {
  it('keeps sorted pairs as they are and refuses unsorted, duplicated or odd input', () => {
    const flat = ['__name__', 'up', 'job', 'node'];
    const l = Labels.fromSortedFlat(flat);
    expect(l.equals(Labels.fromStrings('job', 'node', '__name__', 'up'))).toBe(true);
    expect(l.lookupHash()).toBe(Labels.fromStrings('__name__', 'up', 'job', 'node').lookupHash());
    expect(() => Labels.fromSortedFlat(['job', 'a', '__name__', 'up'])).toThrow(/out of order/);
    expect(() => Labels.fromSortedFlat(['a', '1', 'a', '2'])).toThrow(DuplicateLabelError);
    expect(() => Labels.fromSortedFlat(['a'])).toThrow(/pairs/);
  });
});

describe('Labels.joined and sortKey', () => {
  it('join names and values by NUL, and offer a sort key only where it orders as compare', () => {
    const plain = Labels.fromStrings('b', '2', 'a', '1');
    expect(plain.joined()).toBe('a\x001\x00b\x002');
    expect(plain.sortKey()).toBe(plain.joined());
    for (const odd of ['x\0', '\uE000', '\uD83D\uDE00']) {
      const l = Labels.fromStrings('a', odd);
      expect(l.joined()).toBe(`a\0${odd}`);
      expect(l.sortKey()).toBeUndefined();
    }
    // Memoised outside the compared fields: equal sets stay equal.
    expect(plain).toEqual(Labels.fromStrings('a', '1', 'b', '2'));
  });
});

describe('Labels.sortBy', () => {
  // Strings from a small alphabet, so equal prefixes, equal label sets and the characters
  // where string orders part (NUL, surrogate pairs, U+E000 up) all come up often.
  const str = fc
    .array(fc.constantFrom('a', 'b', 'ab', '\0', '\uE000', '\uD83D\uDE00', 'z', ''), {
      maxLength: 3,
    })
    .map((parts) => parts.join(''));
  const labelSet = fc
    .uniqueArray(fc.tuple(fc.constantFrom('a', 'b', 'c', 'd', '__name__', '\uE001'), str), {
      selector: ([name]) => name,
      maxLength: 4,
    })
    .map((pairs) => Labels.fromPairs(pairs));

  it.each([
    [
      'a NUL inside a value',
      Labels.fromStrings('a', 'x\0'),
      Labels.fromStrings('a', 'x', 'b', 'y'),
    ],
    [
      'U+E000 against a surrogate pair',
      Labels.fromStrings('a', '\uE000'),
      Labels.fromStrings('a', '\uD83D\uDE00'),
    ],
  ])('falls back to Labels.compare for %s in a long list', (_name, x, y) => {
    const items = Array.from({ length: 100 }, (_, i) => ({
      labels: i % 3 === 0 ? x : i % 3 === 1 ? y : Labels.fromStrings('a', `p${i}`),
      i,
    }));
    const want = [...items].sort((p, q) => Labels.compare(p.labels, q.labels));
    Labels.sortBy(items, (item) => item.labels);
    expect(items.map((item) => item.i)).toEqual(want.map((item) => item.i));
  });

  it('orders as Labels.compare does, stably, whatever the strings hold', () => {
    fc.assert(
      fc.property(fc.array(labelSet, { maxLength: 300 }), fc.boolean(), (sets, plainOnly) => {
        const plain = /^[a-z_]*$/;
        const chosen = plainOnly
          ? sets.filter((l) => {
              let ok = true;
              l.forEach((n, v) => {
                if (!plain.test(n) || !plain.test(v)) ok = false;
              });
              return ok;
            })
          : sets;
        const items = chosen.map((labels, i) => ({ labels, i }));
        const want = [...items].sort((x, y) => Labels.compare(x.labels, y.labels));
        Labels.sortBy(items, (x) => x.labels);
        expect(items.map((x) => x.i)).toEqual(want.map((x) => x.i));
      }),
      { numRuns: 300 },
    );
  });
});

describe('Labels.without and the joined() form it passes on', () => {
  const names = fc.constantFrom<string>('__name__', '__type__', 'a', 'job', 'zone', 'A', '_x');
  const sets = fc
    .uniqueArray(fc.tuple(names, fc.string({ maxLength: 4 })), {
      selector: ([n]) => n,
      maxLength: 6,
    })
    .map((pairs) => Labels.fromPairs(pairs));

  it('equals the set built without those labels, joined() included', () => {
    fc.assert(
      fc.property(sets, fc.array(names, { maxLength: 3 }), fc.boolean(), (l, drop, memo) => {
        if (memo) l.joined();
        const got = l.without(...drop);
        const want = Labels.fromPairs([...l].filter((x) => !drop.includes(x.name)));
        expect(got.equals(want)).toBe(true);
        expect(got.joined()).toBe([...want].flatMap((x) => [x.name, x.value]).join('\0'));
        if (!drop.some((n) => l.has(n))) expect(got).toBe(l);
      }),
      { numRuns: 500 },
    );
  });

  it('nulFree tells whether joined() splits back into the names and values', () => {
    expect(Labels.fromStrings('a', 'b', 'c', '').nulFree()).toBe(true);
    expect(Labels.fromStrings('a', 'x\u0000y').nulFree()).toBe(false);
    expect(Labels.EMPTY.nulFree()).toBe(true);
  });

  it('fromSortedFlatJoined keeps the joined form it is given', () => {
    const l = Labels.fromSortedFlatJoined(['a', '1', 'b', '2'], 'a\u00001\u0000b\u00002');
    expect(l.joined()).toBe('a\u00001\u0000b\u00002');
    expect(l.withoutName()).toBe(l);
    expect(() => Labels.fromSortedFlatJoined(['b', '1', 'a', '2'], '')).toThrow(/out of order/);
  });
});

describe('Labels.fromJoined (a set split only when its names and values are needed)', () => {
  const names = fc.constantFrom<string>('__name__', '__type__', 'a', 'job', 'zone', 'A', '_x');
  const value = fc.string({ maxLength: 4 }).filter((v) => !v.includes('\0'));
  const sets = fc
    .uniqueArray(fc.tuple(names, value), { selector: ([n]) => n, maxLength: 6 })
    .map((pairs) => Labels.fromPairs(pairs));
  const lazy = (l: Labels): Labels => Labels.fromJoined(l.joined(), l.length);

  it('answers every question as the set it was joined from', () => {
    fc.assert(
      fc.property(sets, sets, fc.array(names, { maxLength: 3 }), (l, other, drop) => {
        const z = lazy(l);
        expect(z.length).toBe(l.length);
        expect(z.isEmpty()).toBe(l.isEmpty());
        for (const n of ['__name__', 'a', 'A', 'job', 'zone', '_x', 'missing']) {
          expect(z.find(n)).toBe(l.find(n));
          expect(z.get(n)).toBe(l.get(n));
          expect(z.has(n)).toBe(l.has(n));
        }
        const dropped = z.without(...drop);
        const want = l.without(...drop);
        expect(dropped.equals(want) && want.equals(dropped)).toBe(true);
        expect(dropped.joined()).toBe(want.joined());
        expect(dropped.key()).toBe(want.key());
        expect(z.withoutName().equals(l.withoutName())).toBe(true);
        expect(z.key()).toBe(l.key());
        expect(lazy(l).equals(l) && l.equals(lazy(l))).toBe(true);
        expect(z.equals(lazy(other))).toBe(l.equals(other));
        expect(Labels.compare(lazy(l), lazy(other))).toBe(Labels.compare(l, other));
        expect(lazy(l).sortKey()).toBe(l.sortKey());
        expect(lazy(l).hash()).toBe(l.hash());
        expect(lazy(l).lookupHash()).toBe(l.lookupHash());
        expect(lazy(l).toString()).toBe(l.toString());
        expect([...lazy(l)]).toEqual([...l]);
        // (The empty set is the one EMPTY, its hashes cached above.)
        if (!l.isEmpty()) expect(lazy(l)).toEqual(Labels.fromPairs([...l]));
      }),
      { numRuns: 500 },
    );
  });

  it('is not split to be keyed, compared, asked for a value or cut by leading labels', () => {
    const split = vi.spyOn(String.prototype, 'split');
    try {
      const z = Labels.fromJoined('__name__\0up\0job\0a', 2);
      expect(z.get('job')).toBe('a');
      expect(z.find('zone')).toBe(undefined);
      expect(z.key()).toBe('__name__\0up\0job\0a');
      expect(z.equals(Labels.fromJoined('__name__\0up\0job\0a', 2))).toBe(true);
      expect(z.equals(Labels.fromJoined('__name__\0up\0job\0b', 2))).toBe(false);
      expect(z.withoutName().joined()).toBe('job\0a');
      expect(z.without('job', '__name__')).toBe(Labels.EMPTY);
      expect(z.sortKey()).toBe('__name__\0up\0job\0a');
      expect(split).not.toHaveBeenCalled();
      // A dropped label after a kept one needs the split.
      const upper = Labels.fromJoined('A\x001\0__name__\0up', 2);
      expect(upper.withoutName().joined()).toBe('A\x001');
      expect(split).toHaveBeenCalledTimes(1);
    } finally {
      split.mockRestore();
    }
    expect(Labels.fromJoined('', 0)).toBe(Labels.EMPTY);
  });
});

describe('Labels.key', () => {
  it('is the joined form of a NUL-free set and never the key of another set', () => {
    const withNul = [
      Labels.fromStrings('a', '\0'),
      Labels.fromStrings('a', '\0', 'b', 'x'),
      Labels.fromStrings('a', 'x\0y\0z'),
      Labels.fromStrings('a', '\0', 'b', '\0'),
    ];
    const plain = [
      Labels.EMPTY,
      Labels.fromStrings('a', 'x', 'b', 'y'),
      Labels.fromStrings('a', ''),
    ];
    for (const l of plain) expect(l.key()).toBe(l.joined());
    const keys = [...withNul, ...plain].map((l) => l.key());
    expect(new Set(keys).size).toBe(keys.length);
    for (const l of withNul) {
      // An even number of NULs: a NUL-free set's joined form holds an odd number (2n - 1).
      expect(l.key().split('\0').length % 2).toBe(1);
      expect(Labels.fromPairs([...l]).key()).toBe(l.key());
    }
  });
});
