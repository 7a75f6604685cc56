// Element-wise functions of Prometheus 3 functions.go (abs, ceil, …, trig, clamp, round,
// sgn), the scalar/vector conversions, time(), pi(), timestamp() and absent(). Element-wise
// results keep the input labels and mark the name for dropping (delayed name removal).
import { Labels } from '../../model/index.js';
import type { FunctionCall } from '../function_call.js';
import type { Expr } from '../parser/ast.js';
import type { Vector } from '../value.js';
import { scalarArg } from './common.js';
import { goAcos, goAsin, goAtan, goCos, goSin, goTan } from './go_trig.js';

/** Applies `fn` to every float sample of the first argument (Prometheus simpleFloatFunc). */
export function simpleFloatFunc(fn: (v: number) => number): FunctionCall {
  return (vectorVals, _matrixVals, _args, enh) => {
    for (const el of vectorVals[0] ?? [])
      enh.out.push({ metric: el.metric, t: enh.ts, f: fn(el.f), dropName: true });
    return enh.out;
  };
}

const float64View = new DataView(new ArrayBuffer(8));

/** Go's math.Frexp: x = frac × 2^exp with |frac| in [0.5, 1); ±0, ±Inf and NaN unchanged. */
export function frexp(x: number): [number, number] {
  if (x === 0 || !Number.isFinite(x)) return [x, 0];
  let v = x;
  let exp = 0;
  if (Math.abs(v) < 2.2250738585072014e-308) {
    // Subnormal: scale into the normal range first.
    v *= 2 ** 52;
    exp = -52;
  }
  float64View.setFloat64(0, v);
  const hi = float64View.getUint32(0);
  exp += ((hi >>> 20) & 0x7ff) - 1022;
  float64View.setUint32(0, (hi & ~(0x7ff << 20)) | (1022 << 20));
  return [float64View.getFloat64(0), exp];
}

/** Go's math.Log2: exact for powers of two, else Log(frac)/Ln2 + exp. */
export function goLog2(x: number): number {
  const [frac, exp] = frexp(x);
  if (frac === 0.5) return exp - 1;
  return Math.log(frac) * (1 / Math.LN2) + exp;
}

/** Go's math.Log10: Log(x) × (1/Ln10), the constant folded exactly then rounded. */
export function goLog10(x: number): number {
  return Math.log(x) * Math.LOG10E;
}

function sgn(v: number): number {
  if (v < 0) return -1;
  if (v > 0) return 1;
  return v; // ±0 and NaN stay as they are
}

export const funcAbs = simpleFloatFunc(Math.abs);
export const funcCeil = simpleFloatFunc(Math.ceil);
export const funcFloor = simpleFloatFunc(Math.floor);
export const funcExp = simpleFloatFunc(Math.exp);
export const funcSqrt = simpleFloatFunc(Math.sqrt);
export const funcLn = simpleFloatFunc(Math.log);
export const funcLog2 = simpleFloatFunc(goLog2);
export const funcLog10 = simpleFloatFunc(goLog10);
export const funcSin = simpleFloatFunc(goSin);
export const funcCos = simpleFloatFunc(goCos);
export const funcTan = simpleFloatFunc(goTan);
export const funcAsin = simpleFloatFunc(goAsin);
export const funcAcos = simpleFloatFunc(goAcos);
export const funcAtan = simpleFloatFunc(goAtan);
export const funcSinh = simpleFloatFunc(Math.sinh);
export const funcCosh = simpleFloatFunc(Math.cosh);
export const funcTanh = simpleFloatFunc(Math.tanh);
export const funcAsinh = simpleFloatFunc(Math.asinh);
export const funcAcosh = simpleFloatFunc(Math.acosh);
export const funcAtanh = simpleFloatFunc(Math.atanh);
export const funcRad = simpleFloatFunc((v) => (v * Math.PI) / 180);
export const funcDeg = simpleFloatFunc((v) => (v * 180) / Math.PI);
export const funcSgn = simpleFloatFunc(sgn);

function clamp(vec: Vector, min: number, max: number, out: Vector, ts: number): Vector {
  if (max < min) return out;
  for (const el of vec)
    out.push({ metric: el.metric, t: ts, f: Math.max(min, Math.min(max, el.f)), dropName: true });
  return out;
}

/** clamp(v, min, max): nothing at all when max < min. */
export const funcClamp: FunctionCall = (vectorVals, _m, _a, enh) => {
  const min = scalarArg(vectorVals, 1);
  const max = scalarArg(vectorVals, 2);
  if (min === undefined || max === undefined) return enh.out;
  return clamp(vectorVals[0] ?? [], min, max, enh.out, enh.ts);
};

export const funcClampMax: FunctionCall = (vectorVals, _m, _a, enh) => {
  const max = scalarArg(vectorVals, 1);
  if (max === undefined) return enh.out;
  return clamp(vectorVals[0] ?? [], -Infinity, max, enh.out, enh.ts);
};

export const funcClampMin: FunctionCall = (vectorVals, _m, _a, enh) => {
  const min = scalarArg(vectorVals, 1);
  if (min === undefined) return enh.out;
  return clamp(vectorVals[0] ?? [], min, Infinity, enh.out, enh.ts);
};

/** round(v, to_nearest=1): ties round up; divides by the inverse, as Prometheus does. */
export const funcRound: FunctionCall = (vectorVals, matrixVals, args, enh) => {
  const toNearest = args.length >= 2 ? (scalarArg(vectorVals, 1) ?? 1) : 1;
  const inverse = 1 / toNearest;
  return simpleFloatFunc((f) => Math.floor(f * inverse + 0.5) / inverse)(
    vectorVals,
    matrixVals,
    args,
    enh,
  );
};

/** scalar(v): the value of a single-element vector, else NaN. */
export const funcScalar: FunctionCall = (vectorVals, _m, _a, enh) => {
  const v = vectorVals[0] ?? [];
  const value = v.length === 1 ? v[0]!.f : NaN;
  enh.out.push({ metric: Labels.EMPTY, t: enh.ts, f: value });
  return enh.out;
};

/** vector(s): the scalar as a one-element vector without labels. */
export const funcVector: FunctionCall = (vectorVals, _m, _a, enh) => {
  enh.out.push({ metric: Labels.EMPTY, t: enh.ts, f: scalarArg(vectorVals, 0) ?? NaN });
  return enh.out;
};

export const funcTime: FunctionCall = (_v, _m, _a, enh) => {
  enh.out.push({ metric: Labels.EMPTY, t: enh.ts, f: enh.ts / 1000 });
  return enh.out;
};

export const funcPi: FunctionCall = (_v, _m, _a, enh) => {
  enh.out.push({ metric: Labels.EMPTY, t: enh.ts, f: Math.PI });
  return enh.out;
};

/**
 * timestamp(v): the sample times in seconds. For a plain vector selector argument the engine
 * must pass the samples with their original timestamps (Prometheus engine.go special case);
 * otherwise they carry the evaluation time.
 */
export const funcTimestamp: FunctionCall = (vectorVals, _m, _a, enh) => {
  for (const el of vectorVals[0] ?? [])
    enh.out.push({ metric: el.metric, t: enh.ts, f: el.t / 1000, dropName: true });
  return enh.out;
};

/**
 * The labels absent() and absent_over_time() give their result: the equality matchers of a
 * selector argument, except names matched more than once or by other matcher types; any
 * other argument expression gives no labels.
 */
export function createLabelsForAbsentFunction(expr: Expr | undefined): Labels {
  let matchers;
  if (expr?.type === 'VectorSelector') matchers = expr.labelMatchers;
  else if (expr?.type === 'MatrixSelector') matchers = expr.vectorSelector.labelMatchers;
  else return Labels.EMPTY;
  const values = new Map<string, string>();
  const has = new Set<string>();
  for (const m of matchers) {
    if (m.name === '__name__') continue;
    if (m.type === '=' && !has.has(m.name)) {
      // Builder.Set with an empty value deletes.
      if (m.value === '') values.delete(m.name);
      else values.set(m.name, m.value);
      has.add(m.name);
    } else {
      values.delete(m.name);
    }
  }
  return Labels.fromPairs([...values.entries()]);
}

/** absent(v): `{labels from the selector} 1` when v is empty. */
export const funcAbsent: FunctionCall = (vectorVals, _m, args, enh) => {
  if ((vectorVals[0] ?? []).length > 0) return enh.out;
  enh.out.push({ metric: createLabelsForAbsentFunction(args[0]), t: enh.ts, f: 1 });
  return enh.out;
};
