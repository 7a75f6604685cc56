// Date functions: expected fields from Go's time package (time.Unix(int64(v), 0).UTC()),
// including far-away years, negative times, and NaN (int64(NaN) on amd64, which Go's
// calendar wraps into year 292277026596).
import { describe, expect, it } from 'vitest';
import { Labels } from '../../model/index.js';
import type { FunctionCall } from '../function_call.js';
import {
  civilFromUnix,
  funcDayOfMonth,
  funcDayOfWeek,
  funcDayOfYear,
  funcDaysInMonth,
  funcHour,
  funcMinute,
  funcMonth,
  funcYear,
} from './date.js';
import { makeEnh, sample, vectorSelector } from './testing.js';

const ALL: [string, FunctionCall][] = [
  ['year', funcYear],
  ['month', funcMonth],
  ['day_of_month', funcDayOfMonth],
  ['day_of_year', funcDayOfYear],
  ['day_of_week', funcDayOfWeek],
  ['hour', funcHour],
  ['minute', funcMinute],
  ['days_in_month', funcDaysInMonth],
];

function fields(v: number): number[] {
  return ALL.map(
    ([, fn]) => fn([[sample({ __name__: 'x' }, v)]], [], [vectorSelector('x')], makeEnh(0))[0]!.f,
  );
}

describe('date functions', () => {
  // value → year month day yearDay weekday hour minute daysInMonth, printed by Go.
  const goTable: [number, number[]][] = [
    [1136239445, [2006, 1, 2, 2, 1, 22, 4, 31]],
    [-1, [1969, 12, 31, 365, 3, 23, 59, 31]],
    [-86401, [1969, 12, 30, 364, 2, 23, 59, 31]],
    [253402300800, [10000, 1, 1, 1, 6, 0, 0, 31]],
    [1e15, [31690708, 7, 5, 187, 0, 1, 46, 31]],
    [-1e15, [-31686769, 6, 29, 180, 0, 22, 13, 30]],
    [1456790399.9, [2016, 2, 29, 60, 1, 23, 59, 29]],
    [-0.5, [1970, 1, 1, 1, 4, 0, 0, 31]],
    [951782400, [2000, 2, 29, 60, 2, 0, 0, 29]],
    [4107542400, [2100, 3, 1, 60, 1, 0, 0, 31]],
    [NaN, [292277026596, 12, 4, 339, 0, 15, 30, 31]],
  ];

  it.each(goTable)('%s', (v, want) => {
    expect(fields(v)).toEqual(want);
  });

  it('use the evaluation time without an argument', () => {
    const enh = makeEnh(1136239445_999);
    const out = funcYear([], [], [], enh);
    expect(out).toEqual([{ metric: Labels.EMPTY, t: 1136239445_999, f: 2006 }]);
    expect(funcMinute([], [], [], makeEnh(-1))[0]?.f).toBe(0); // -1ms/1000 truncates to 0s
  });

  it('mark the name for dropping and keep the labels', () => {
    const out = funcHour(
      [[sample({ __name__: 'x', a: 'b' }, 0)]],
      [],
      [vectorSelector('x')],
      makeEnh(0),
    );
    expect(out[0]?.metric.get('a')).toBe('b');
    expect(out[0]?.dropName).toBe(true);
  });

  it('compute civil dates around leap years', () => {
    expect(civilFromUnix(1709164800n)).toMatchObject({
      year: 2024,
      month: 2,
      day: 29,
      yearDay: 60,
    });
    expect(civilFromUnix(1735603200n)).toMatchObject({
      year: 2024,
      month: 12,
      day: 31,
      yearDay: 366,
    });
  });
});
