import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Labels } from '../../model/index.js';
import { parseSeriesDesc, SeriesDescError, STALE_NAN, type SequenceValue } from './series_desc.js';

function floats(vals: SequenceValue[]): (number | '_' | 'h')[] {
  return vals.map((v) => (v.kind === 'float' ? v.value : v.kind === 'omitted' ? '_' : 'h'));
}

function staleBits(f: number): boolean {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, f);
  return (view.getUint32(0) & 0xfff7ffff) === 0x7ff00000 && view.getUint32(4) === 2;
}

describe('parseSeriesDesc: metric part', () => {
  it('reads a name with labels', () => {
    const d = parseSeriesDesc('http_requests{job="api", instance="0"} 1');
    expect(
      d.labels.equals(Labels.fromObject({ __name__: 'http_requests', job: 'api', instance: '0' })),
    ).toBe(true);
  });

  it('reads a bare name, colons included, and empty braces', () => {
    expect(parseSeriesDesc('a:b:c 1').labels.toString()).toBe('{__name__="a:b:c"}');
    expect(parseSeriesDesc('foo{} 1').labels.toString()).toBe('{__name__="foo"}');
  });

  it('reads a label set without a name', () => {
    const d = parseSeriesDesc('{job="x"} 3');
    expect(d.labels.toString()).toBe('{job="x"}');
    expect(floats(d.values)).toEqual([3]);
  });

  it('reads quoted UTF-8 metric and label names', () => {
    const d = parseSeriesDesc('{"a.b", "x.y"="z", other="w",} 1');
    expect(d.labels.get('__name__')).toBe('a.b');
    expect(d.labels.get('x.y')).toBe('z');
    expect(d.labels.get('other')).toBe('w');
  });

  it('unquotes Go escapes, single quotes and raw strings', () => {
    const d = parseSeriesDesc(`m{a="x\\"y\\n", b='it\\'s', c=\`raw\\n\`, d="\\u00e9\\x41"} 1`);
    expect(d.labels.get('a')).toBe('x"y\n');
    expect(d.labels.get('b')).toBe("it's");
    expect(d.labels.get('c')).toBe('raw\\n');
    expect(d.labels.get('d')).toBe('éA');
  });

  it('rejects malformed label sets with a position', () => {
    expect(() => parseSeriesDesc('m{a="b" 1')).toThrow(SeriesDescError);
    expect(() => parseSeriesDesc('m{a!="b"} 1')).toThrow(/expected "="/);
    expect(() => parseSeriesDesc('m{a=b} 1')).toThrow(/expected a string/);
    expect(() => parseSeriesDesc('m{a="b} 1')).toThrow(/unterminated/);
    expect(() => parseSeriesDesc('m{a="1",a="2"} 1')).toThrow(/duplicate label name "a"/);
    expect(() => parseSeriesDesc('1 2 3')).toThrow(/1:1: parse error/);
    expect(() => parseSeriesDesc('m{"x", "y"} 1')).toThrow(/metric name must not be set twice/);
  });
});

describe('parseSeriesDesc: values', () => {
  it('reads plain numbers in every notation', () => {
    expect(floats(parseSeriesDesc('m 1 -2 +3 1.5 .5 1e3 -1.5e-3').values)).toEqual([
      1, -2, 3, 1.5, 0.5, 1000, -0.0015,
    ]);
  });

  it('reads Inf and NaN in any case, signed', () => {
    const v = floats(parseSeriesDesc('m Inf -Inf +inf NaN nan').values);
    expect(v.slice(0, 3)).toEqual([Infinity, -Infinity, Infinity]);
    expect(Number.isNaN(v[3])).toBe(true);
    expect(Number.isNaN(v[4])).toBe(true);
  });

  it('reads gaps: _ is one, _xN is N', () => {
    expect(floats(parseSeriesDesc('m _ 1 _x3 2').values)).toEqual(['_', 1, '_', '_', '_', 2]);
  });

  it('expands a+bxN and a-bxN to N+1 values', () => {
    expect(floats(parseSeriesDesc('m 0+10x3').values)).toEqual([0, 10, 20, 30]);
    expect(floats(parseSeriesDesc('m 10-2x2').values)).toEqual([10, 8, 6]);
    expect(floats(parseSeriesDesc('m -1-1x2').values)).toEqual([-1, -2, -3]);
    // As in Prometheus's grammar the increment is one sign and a number: `1+-1x1` is invalid.
    expect(() => parseSeriesDesc('m 1+-1x1')).toThrow(/unexpected "-"/);
  });

  it('repeats axN N+1 times (0x3 is four zeros, not hex)', () => {
    expect(floats(parseSeriesDesc('m 5x2').values)).toEqual([5, 5, 5]);
    expect(floats(parseSeriesDesc('m 0x3').values)).toEqual([0, 0, 0, 0]);
  });

  it('accumulates the increment like Go does (float rounding preserved)', () => {
    const v = floats(parseSeriesDesc('m 0+0.1x3').values);
    expect(v[3]).toBe(0.1 + 0.1 + 0.1);
  });

  it('reads stale markers with the StaleNaN bit pattern', () => {
    const v = parseSeriesDesc('m 1 stale 2').values;
    expect(v[1]?.kind).toBe('float');
    const f = (v[1] as { value: number }).value;
    expect(Number.isNaN(f)).toBe(true);
    expect(staleBits(f)).toBe(true);
    expect(staleBits(STALE_NAN)).toBe(true);
  });

  it('marks native histograms and their expansions', () => {
    expect(
      floats(parseSeriesDesc('m {{schema:0 sum:5 count:4 buckets:[1 2 1]}} 1').values),
    ).toEqual(['h', 1]);
    expect(floats(parseSeriesDesc('m {{count:1}}x2').values)).toEqual(['h', 'h', 'h']);
    expect(floats(parseSeriesDesc('m {{count:1}}+{{count:2}}x1 _').values)).toEqual([
      'h',
      'h',
      '_',
    ]);
  });

  it('allows no values and trailing whitespace', () => {
    expect(parseSeriesDesc('m').values).toEqual([]);
    expect(floats(parseSeriesDesc('m 1\t2   ').values)).toEqual([1, 2]);
  });

  it('rejects malformed values with clear errors', () => {
    expect(() => parseSeriesDesc('m 1+2')).toThrow(/expected "x<count>"/);
    expect(() => parseSeriesDesc('m 1x')).toThrow(/invalid repetition/);
    expect(() => parseSeriesDesc('m 1x1.5')).toThrow(/invalid repetition/);
    expect(() => parseSeriesDesc('m foo')).toThrow(/unexpected "foo"/);
    expect(() => parseSeriesDesc('m 1m')).toThrow(/bad number/);
    expect(() => parseSeriesDesc('m 1 ; 2')).toThrow(/unexpected character in series sequence/);
    expect(() => parseSeriesDesc('m {{count:1')).toThrow(/unterminated histogram/);
  });

  it('expands random sequences exactly (property)', () => {
    const item = fc.oneof(
      fc
        .integer({ min: -50, max: 50 })
        .map((n) => ({ text: String(n), vals: [n] as (number | '_')[] })),
      fc.constant({ text: '_', vals: ['_'] as (number | '_')[] }),
      fc
        .integer({ min: 1, max: 5 })
        .map((n) => ({ text: `_x${n}`, vals: Array<number | '_'>(n).fill('_') })),
      fc
        .tuple(
          fc.integer({ min: -20, max: 20 }),
          fc.integer({ min: -5, max: 5 }),
          fc.integer({ min: 0, max: 5 }),
        )
        .map(([a, b, n]) => ({
          text: `${a}${b < 0 ? '-' : '+'}${Math.abs(b)}x${n}`,
          vals: Array.from({ length: n + 1 }, (_, i) => a + i * b),
        })),
    );
    fc.assert(
      fc.property(fc.array(item, { maxLength: 8 }), (items) => {
        const d = parseSeriesDesc(`metric{a="b"} ${items.map((i) => i.text).join(' ')}`);
        expect(floats(d.values)).toEqual(items.flatMap((i) => i.vals));
      }),
    );
  });
});
