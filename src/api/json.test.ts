import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonNumber, jsonString, jsonValue, sampleTimestamp, sampleValue } from './json.js';

describe('sampleValue (jsonutil.MarshalFloat)', () => {
  // The cases of Prometheus's json_codec_test.go.
  it.each([
    [0, '"0"'],
    [20, '"20"'],
    [NaN, '"NaN"'],
    [Infinity, '"+Inf"'],
    [-Infinity, '"-Inf"'],
    [1.2345678e6, '"1234567.8"'],
    [1.2345678e-6, '"0.0000012345678"'],
    [1.2345678e-67, '"1.2345678e-67"'],
    [100.123, '"100.123"'],
  ])('%s → %s', (v, want) => {
    expect(sampleValue(v)).toBe(want);
  });

  it('switches to exponent notation below 1e-6 and from 1e21 on', () => {
    expect(sampleValue(1e-6)).toBe('"0.000001"');
    expect(sampleValue(9.99e-7)).toBe('"9.99e-07"');
    expect(sampleValue(1e21)).toBe('"1e+21"');
    expect(sampleValue(-1.5e300)).toBe('"-1.5e+300"');
    expect(sampleValue(9.999e20)).toBe('"999900000000000000000"');
    expect(sampleValue(-0)).toBe('"-0"');
    expect(sampleValue(5e-324)).toBe('"5e-324"');
  });
});

describe('sampleTimestamp (jsonutil.MarshalTimestamp)', () => {
  // The cases of Prometheus's json_codec_test.go.
  it.each([
    [0, '0'],
    [1, '0.001'],
    [10, '0.010'],
    [100, '0.100'],
    [1000, '1'],
    [1001, '1.001'],
    [1010, '1.010'],
    [1100, '1.100'],
    [1234, '1.234'],
    [-1, '-0.001'],
    [-1500, '-1.500'],
    [1435781451781, '1435781451.781'],
    [8_999_999_999_999_999, '8999999999999.999'],
  ])('%s → %s', (t, want) => {
    expect(sampleTimestamp(t)).toBe(want);
  });

  it('is whole seconds plus exactly three non-zero millisecond digits, equal to t', () => {
    fc.assert(
      fc.property(fc.integer({ min: -(2 ** 52), max: 2 ** 52 }), (t) => {
        const m = /^(-?)(\d+)(?:\.(\d{3}))?$/.exec(sampleTimestamp(t));
        expect(m).not.toBeNull();
        const [, sign, secs, ms] = m as unknown as [string, string, string, string | undefined];
        expect(ms).not.toBe('000');
        const abs = BigInt(secs) * 1000n + BigInt(ms ?? '0');
        expect(sign === '-' ? -abs : abs).toBe(BigInt(t));
      }),
    );
  });
});

describe('jsonString', () => {
  it('raw mode (jsoniter WriteString, labels) escapes only quotes, backslashes and controls', () => {
    expect(jsonString('a<b>&c', 'raw')).toBe('"a<b>&c"');
    expect(jsonString('q"\\', 'raw')).toBe('"q\\"\\\\"');
    expect(jsonString('\n\r\t\b\f\u0001', 'raw')).toBe('"\\n\\r\\t\\u0008\\u000c\\u0001"');
    expect(jsonString('\u2028ü😀\u007f', 'raw')).toBe('"\u2028ü😀\u007f"');
  });

  it('html mode (jsoniter std-compatible) also escapes <, >, & and U+2028/9', () => {
    expect(jsonString('a<b>&c', 'html')).toBe('"a\\u003cb\\u003e\\u0026c"');
    expect(jsonString('x\u2028y\u2029', 'html')).toBe('"x\\u2028y\\u2029"');
    expect(jsonString('\b\f', 'html')).toBe('"\\u0008\\u000c"');
    expect(jsonString('ü😀', 'html')).toBe('"ü😀"');
  });

  it('std mode (encoding/json, Go ≥ 1.22) writes \\b and \\f short', () => {
    expect(jsonString('\b\f<', 'std')).toBe('"\\b\\f\\u003c"');
  });

  it('replaces lone surrogates as Go replaces invalid UTF-8', () => {
    expect(jsonString('a\ud800b', 'html')).toBe('"a\\ufffdb"');
    expect(jsonString('a\udc00', 'raw')).toBe('"a\ufffd"');
  });

  it('is valid JSON that reads back as the input in every mode', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme' }),
        fc.constantFrom('raw', 'html', 'std' as const),
        (s, mode) => {
          expect(JSON.parse(jsonString(s, mode))).toBe(s);
        },
      ),
    );
  });
});

describe('jsonNumber and jsonValue', () => {
  it('writes numbers as Go encoding/json does', () => {
    expect(jsonNumber(1.5)).toBe('1.5');
    expect(jsonNumber(1e-7)).toBe('1e-7');
    expect(jsonNumber(1e21)).toBe('1e+21');
    expect(jsonNumber(123456789012)).toBe('123456789012');
    expect(() => jsonNumber(NaN)).toThrow(/unsupported value/);
  });

  it('sorts object keys (Go maps) and writes undefined as null', () => {
    expect(jsonValue({ type: 'x', b: [1, 'a<'], a: undefined, c: { z: true, y: null } })).toBe(
      '{"a":null,"b":[1,"a\\u003c"],"c":{"y":null,"z":true},"type":"x"}',
    );
  });
});
