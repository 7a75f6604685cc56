import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { goAtoi, goParseFloat, goParseRFC3339 } from './go_parse.js';
import {
  MAX_TIME_FORMATTED,
  MAX_TIME_NS,
  MIN_TIME_FORMATTED,
  MIN_TIME_NS,
  nsToMs,
  parseDuration,
  parseLimit,
  parseMatchersParam,
  parseTime,
  parseTimeParam,
  subSaturating,
} from './params.js';

const S = 1_000_000_000n;
const MS = 1_000_000n;

describe('goParseFloat (the model strconvParseFloat as the API uses it)', () => {
  it('gives the value, or undefined where Go returns an error', () => {
    expect(goParseFloat('1_000.5')).toBe(1000.5);
    expect(goParseFloat('-Infinity')).toBe(-Infinity);
    expect(goParseFloat('NaN')).toBeNaN();
    expect(goParseFloat('30s')).toBeUndefined();
    expect(goParseFloat('1e400')).toBeUndefined();
  });
});

describe('goAtoi (strconv.Atoi)', () => {
  it('parses signed decimal integers', () => {
    expect(goAtoi('42')).toEqual({ ok: true, value: 42 });
    expect(goAtoi('+7')).toEqual({ ok: true, value: 7 });
    expect(goAtoi('-0012')).toEqual({ ok: true, value: -12 });
  });

  it('fails with Go texts', () => {
    expect(goAtoi('abc')).toEqual({
      ok: false,
      error: 'strconv.Atoi: parsing "abc": invalid syntax',
    });
    expect(goAtoi('1.5')).toMatchObject({ ok: false });
    expect(goAtoi('-')).toMatchObject({ ok: false });
    expect(goAtoi('1_000')).toMatchObject({ ok: false });
    expect(goAtoi('99999999999999999999')).toEqual({
      ok: false,
      error: 'strconv.Atoi: parsing "99999999999999999999": value out of range',
    });
  });
});

describe('goParseRFC3339', () => {
  it('parses zones and fractions to ns', () => {
    const base = BigInt(Date.UTC(2015, 5, 3, 13, 21, 58)) * MS;
    expect(goParseRFC3339('2015-06-03T13:21:58Z')).toBe(base);
    expect(goParseRFC3339('2015-06-03T13:21:58.555Z')).toBe(base + 555n * MS);
    expect(goParseRFC3339('2015-06-03T14:21:58.555+01:00')).toBe(base + 555n * MS);
    expect(goParseRFC3339('2015-06-03T13:21:58.123456789123Z')).toBe(base + 123456789n);
    expect(goParseRFC3339('1969-12-31T23:59:59.5Z')).toBe(-S / 2n);
  });

  it.each([
    '2015-06-03 13:21:58Z',
    '2015-06-03T13:21:58',
    '2015-02-29T00:00:00Z',
    '2015-06-03T24:00:00Z',
    '2015-06-03T13:21:60Z',
    '2015-06-03T13:21:58+24:00',
    '2015-06-03T13:21:58.Z',
    '2015-06-03t13:21:58Z',
    '2015-06-03T13:21:58z',
  ])('rejects %s', (s) => {
    expect(goParseRFC3339(s)).toBeUndefined();
  });

  it('agrees with Date for every millisecond instant of years 0000-9999', () => {
    fc.assert(
      fc.property(fc.integer({ min: -62167219200000, max: 253402300799999 }), (ms) => {
        const iso = new Date(ms).toISOString();
        expect(goParseRFC3339(iso)).toBe(BigInt(ms) * MS);
      }),
    );
  });
});

describe('parseTime (Prometheus TestParseTime)', () => {
  const ts = BigInt(Date.UTC(2015, 5, 3, 13, 21, 58, 555)) * MS;
  it.each([
    ['123', 123n * S],
    ['123.123', 123n * S + 123n * MS],
    ['2015-06-03T13:21:58.555Z', ts],
    ['2015-06-03T14:21:58.555+01:00', ts],
    ['1543578564.705', 1543578564n * S + 705n * MS],
    ['-1.5', -1500n * MS],
    ['1.0004', S],
    ['1.0005', S], // (1.0005 - 1) * 1000 is 0.49999…, which Go rounds down too
    ['1.0015', S + 2n * MS],
    [MIN_TIME_FORMATTED, MIN_TIME_NS],
    [MAX_TIME_FORMATTED, MAX_TIME_NS],
  ])('%s', (s, want) => {
    expect(parseTime(s)).toBe(want);
  });

  it.each(['', 'abc', '30s', 'Inf', 'NaN', '1e300'])('rejects %j', (s) => {
    expect(() => parseTime(s)).toThrow(`cannot parse "${s}" to a valid timestamp`);
  });

  it('names the parameter in parseTimeParam and uses the default when empty', () => {
    expect(parseTimeParam('', 'time', 5n)).toBe(5n);
    expect(() => parseTimeParam('x', 'start', 0n)).toThrow(
      `invalid time value for 'start': cannot parse "x" to a valid timestamp`,
    );
  });

  it('has the MinTime/MaxTime of Prometheus in ms', () => {
    // As JS numbers these are the nearest doubles of -9223309901257974000 and …974999.
    expect(nsToMs(MIN_TIME_NS)).toBe(Number(-9223309901257974000n));
    expect(nsToMs(MAX_TIME_NS)).toBe(Number(9223309901257974999n));
  });
});

describe('parseDuration (Prometheus TestParseDuration)', () => {
  it.each([
    ['123', 123n * S],
    ['123.333', 123n * S + 333n * MS],
    ['15s', 15n * S],
    ['5m', 300n * S],
    ['1h30m', 5400n * S],
    ['0', 0n],
    ['0.5', S / 2n],
    ['-1', -S],
  ])('%s', (s, want) => {
    expect(parseDuration(s)).toBe(want);
  });

  it.each(['', 'abc', '2015-06-03T13:21:58.555Z', '5m1h', '-5m'])('rejects %j', (s) => {
    expect(() => parseDuration(s)).toThrow(`cannot parse "${s}" to a valid duration`);
  });

  it('rejects int64 overflow with its own message', () => {
    expect(() => parseDuration('148966367200.372')).toThrow(
      'cannot parse "148966367200.372" to a valid duration. It overflows int64',
    );
    expect(() => parseDuration('-148966367200.372')).toThrow('It overflows int64');
  });
});

describe('parseLimit', () => {
  it('is 0 (no limit) when empty and rejects negatives and non-numbers', () => {
    expect(parseLimit('')).toBe(0);
    expect(parseLimit('10')).toBe(10);
    expect(() => parseLimit('-1')).toThrow('limit must be non-negative');
    expect(() => parseLimit('ten')).toThrow('strconv.Atoi: parsing "ten": invalid syntax');
  });
});

describe('subSaturating', () => {
  it('saturates at the int64 bounds like time.Time.Sub', () => {
    expect(subSaturating(MAX_TIME_NS, MIN_TIME_NS)).toBe((1n << 63n) - 1n);
    expect(subSaturating(MIN_TIME_NS, MAX_TIME_NS)).toBe(-(1n << 63n));
    expect(subSaturating(10n, 3n)).toBe(7n);
  });
});

describe('parseMatchersParam', () => {
  it('parses selectors and requires a matcher that does not match the empty string', () => {
    const sets = parseMatchersParam(['up{job="a"}', '{__name__=~"x.+"}']);
    expect(sets).toHaveLength(2);
    expect(sets[0]?.map((m) => m.name)).toContain('job');
    expect(() => parseMatchersParam(['{job=~".*"}'])).toThrow(
      'match[] must contain at least one non-empty matcher',
    );
    expect(() => parseMatchersParam(['up{'])).toThrow(/parse error/);
  });
});
