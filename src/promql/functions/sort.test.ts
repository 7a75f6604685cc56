// sort, sort_desc, sort_by_label(_desc) and facette/natsort's comparison.
import { describe, expect, it } from 'vitest';
import {
  funcSort,
  funcSortByLabel,
  funcSortByLabelDesc,
  funcSortDesc,
  natsortLess,
} from './sort.js';
import { makeEnh, sample, str, vectorSelector } from './testing.js';

describe('sort and sort_desc', () => {
  const input = [
    sample({ i: 'a' }, 3),
    sample({ i: 'b' }, NaN),
    sample({ i: 'c' }, 1),
    sample({ i: 'd' }, 2),
  ];
  const order = (out: { metric: { get(n: string): string } }[]) =>
    out.map((s) => s.metric.get('i')).join('');

  it('put NaN last both ways', () => {
    expect(order(funcSort([input], [], [vectorSelector('x')], makeEnh(0)))).toBe('cdab');
    expect(order(funcSortDesc([input], [], [vectorSelector('x')], makeEnh(0)))).toBe('adcb');
  });

  it('do not reorder their input vector', () => {
    funcSort([input], [], [vectorSelector('x')], makeEnh(0));
    expect(order(input)).toBe('abcd');
  });
});

describe('natsort', () => {
  it('compares digit runs as numbers', () => {
    const sorted = ['10', '2', '1', '100', '21', '3'].sort((a, b) => (natsortLess(a, b) ? -1 : 1));
    expect(sorted).toEqual(['1', '2', '3', '10', '21', '100']);
    expect(natsortLess('4m5', '4m600')).toBe(true);
    expect(natsortLess('4m600', '4m1000')).toBe(true);
    expect(natsortLess('1.2.3', '1.11.3')).toBe(true);
    expect(natsortLess('1.111.3', '1.11.3')).toBe(false);
    expect(natsortLess('a', 'b')).toBe(true);
    expect(natsortLess('b', 'a')).toBe(false);
  });

  it('keeps the pinned version’s quirks', () => {
    expect(natsortLess('x', 'x')).toBe(true); // equal strings: "a ran out first"
    expect(natsortLess('', 'x')).toBe(false);
    expect(natsortLess('a1b', 'a1')).toBe(false);
    // Digit runs beyond int64 fall back to byte comparison.
    expect(natsortLess('99999999999999999999', '100000000000000000000')).toBe(false);
  });
});

describe('sort_by_label', () => {
  const input = [
    sample({ __name__: 'cpu', cpu: '10' }, 1),
    sample({ __name__: 'cpu', cpu: '2' }, 1),
    sample({ __name__: 'cpu', cpu: '1', x: 'b' }, 1),
    sample({ __name__: 'cpu', cpu: '1', x: 'a' }, 1),
  ];
  const run = (desc: boolean) =>
    (desc ? funcSortByLabelDesc : funcSortByLabel)(
      [input, []],
      [],
      [vectorSelector('cpu'), str('cpu')],
      makeEnh(0),
    ).map((s) => `${s.metric.get('cpu')}${s.metric.get('x')}`);

  it('orders naturally and breaks ties by the whole label set', () => {
    expect(run(false)).toEqual(['1a', '1b', '2', '10']);
    expect(run(true)).toEqual(['10', '2', '1b', '1a']);
  });
});
