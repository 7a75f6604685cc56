// Element-wise functions, scalar/vector/time/pi, timestamp and absent: Go math semantics for
// the edge values and the cases of functions.test that need more than one function.
import { describe, expect, it } from 'vitest';
import { Labels, Matcher } from '../../model/index.js';
import type { FunctionCall } from '../function_call.js';
import type { VectorSelector } from '../parser/ast.js';
import {
  createLabelsForAbsentFunction,
  frexp,
  funcAbs,
  funcAbsent,
  funcClamp,
  funcClampMax,
  funcClampMin,
  funcLog10,
  funcLog2,
  funcPi,
  funcRound,
  funcScalar,
  funcSgn,
  funcTime,
  funcTimestamp,
  funcVector,
  goLog10,
  goLog2,
} from './math.js';
import { makeEnh, num, sample, scalar, vectorSelector } from './testing.js';

const values = (...fs: number[]) => fs.map((f, i) => sample({ __name__: 'm', i: String(i) }, f));
const apply = (fn: FunctionCall, input: number[], ...scalars: number[]) =>
  fn(
    [values(...input), ...scalars.map((s) => scalar(s))],
    [],
    [vectorSelector('m'), ...scalars.map((s) => num(s))],
    makeEnh(0),
  ).map((s) => s.f);

describe('element-wise functions', () => {
  it('keep labels and mark the name for dropping', () => {
    const out = funcAbs([values(-2)], [], [vectorSelector('m')], makeEnh(7));
    expect(out).toEqual([
      { metric: Labels.fromObject({ __name__: 'm', i: '0' }), t: 7, f: 2, dropName: true },
    ]);
  });

  it('sgn keeps zeros and NaN', () => {
    const out = apply(funcSgn, [-Infinity, Infinity, NaN, -50, 0, 100, -0]);
    expect(out.slice(0, 2)).toEqual([-1, 1]);
    expect(out[2]).toBeNaN();
    expect(out.slice(3, 6)).toEqual([-1, 0, 1]);
    expect(Object.is(out[6], -0)).toBe(true);
  });

  it('log2/log10 follow Go (exact powers of two, Log(x)·(1/Ln10))', () => {
    expect(goLog2(8)).toBe(3);
    expect(goLog2(0.5)).toBe(-1);
    expect(goLog2(0)).toBe(-Infinity);
    expect(goLog2(-1)).toBeNaN();
    expect(goLog2(2 ** -1074)).toBe(-1074);
    expect(goLog10(0.1)).toBe(-0.9999999999999999); // Go's value, where Math.log10 gives -1
    expect(apply(funcLog10, [1000, 0, -1])).toEqual([3, -Infinity, NaN]);
    expect(apply(funcLog2, [1024])).toEqual([10]);
    expect(frexp(5)).toEqual([0.625, 3]);
    expect(frexp(-0)).toEqual([-0, 0]);
  });
});

describe('clamp', () => {
  it('clamps, propagates NaN bounds, and gives nothing for max < min', () => {
    expect(apply(funcClamp, [-50, 0, 100], -25, 75)).toEqual([-25, 0, 75]);
    expect(apply(funcClampMax, [-50, 0, 100], 75)).toEqual([-50, 0, 75]);
    expect(apply(funcClampMin, [-50, 0, 100], -25)).toEqual([-25, 0, 100]);
    expect(apply(funcClamp, [-50, 0], 0, NaN).every(Number.isNaN)).toBe(true);
    expect(apply(funcClamp, [-50, 0], NaN, 0).every(Number.isNaN)).toBe(true);
    expect(apply(funcClamp, [-50, 0], 5, -5)).toEqual([]);
  });
});

describe('round', () => {
  it('rounds ties up, to the nearest multiple', () => {
    expect(apply(funcRound, [-1.5, -0.5, 0.5, 1.5, 2.4])).toEqual([-1, 0, 1, 2, 2]);
    expect(apply(funcRound, [16, 17.4, -12.5], 5)).toEqual([15, 15, -10]);
    expect(apply(funcRound, [0.123456], 0.001)).toEqual([0.123]);
    expect(apply(funcRound, [7], 0)).toEqual([NaN]);
  });
});

describe('scalar, vector, time, pi', () => {
  it('scalar is NaN unless there is exactly one sample', () => {
    expect(apply(funcScalar, [3])).toEqual([3]);
    expect(apply(funcScalar, [1, 2])).toEqual([NaN]);
    expect(apply(funcScalar, [])).toEqual([NaN]);
  });

  it('vector, time and pi produce label-less samples', () => {
    expect(funcVector([scalar(4)], [], [num(4)], makeEnh(1000))).toEqual([
      { metric: Labels.EMPTY, t: 1000, f: 4 },
    ]);
    expect(funcTime([], [], [], makeEnh(3_600_000))[0]?.f).toBe(3600);
    expect(funcPi([], [], [], makeEnh(0))[0]?.f).toBe(Math.PI);
  });
});

describe('timestamp', () => {
  it('returns the sample times in seconds', () => {
    const out = funcTimestamp(
      [[sample({ __name__: 'm' }, 1, 10_000)]],
      [],
      [vectorSelector('m')],
      makeEnh(15_000),
    );
    expect(out.map((s) => [s.f, s.dropName])).toEqual([[10, true]]);
  });
});

describe('absent', () => {
  const sel = (...ms: Matcher[]): VectorSelector => ({ ...vectorSelector(''), labelMatchers: ms });

  it('builds labels from the unique equality matchers', () => {
    expect(
      createLabelsForAbsentFunction(
        sel(
          Matcher.equal('__name__', 'nonexistent'),
          Matcher.equal('job', 'a'),
          Matcher.regex('x', '.+'),
        ),
      ).toString(),
    ).toBe('{job="a"}');
    // A label matched twice, or by another matcher type, is left out.
    expect(
      createLabelsForAbsentFunction(
        sel(Matcher.equal('job', 'a'), Matcher.equal('job', 'b'), Matcher.equal('foo', 'bar')),
      ).toString(),
    ).toBe('{foo="bar"}');
    expect(
      createLabelsForAbsentFunction(
        sel(Matcher.equal('job', 'a'), Matcher.notEqual('job', 'b')),
      ).isEmpty(),
    ).toBe(true);
    expect(createLabelsForAbsentFunction(num(1)).isEmpty()).toBe(true);
  });

  it('returns 1 only for an empty input', () => {
    const arg = sel(Matcher.equal('__name__', 'x'), Matcher.equal('job', 'a'));
    expect(funcAbsent([[]], [], [arg], makeEnh(0))).toEqual([
      { metric: Labels.fromObject({ job: 'a' }), t: 0, f: 1 },
    ]);
    expect(funcAbsent([values(1)], [], [arg], makeEnh(0))).toEqual([]);
  });
});
