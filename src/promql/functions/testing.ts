// Test support for the function tables: builds series the way the test scripts' `load`
// lines do, cuts range windows like the engine ((t - offset - range, t - offset]), builds
// the AST arguments functions read and a fresh EvalNodeHelper. Used by the *.test.ts files
// of this module only.
import { Labels, Matcher } from '../../model/index.js';
import { Annotations } from '../annotations.js';
import type { EvalNodeHelper, FunctionCall } from '../function_call.js';
import type {
  Expr,
  MatrixSelector,
  NumberLiteral,
  StringLiteral,
  VectorSelector,
} from '../parser/ast.js';
import type { FPoint, Sample, Series, Vector } from '../value.js';

export const MINUTE = 60_000;

/** Expands a test-script value list: numbers, `_` gaps, `a+bxN` / `a-bxN` runs, NaN, Inf. */
export function expandValues(spec: string): (number | undefined)[] {
  const out: (number | undefined)[] = [];
  for (const token of spec.trim().split(/\s+/)) {
    if (token === '_') {
      out.push(undefined);
      continue;
    }
    const rep = /^([-+]?[\d.eE]+|[-+]?Inf|NaN)x(\d+)$/.exec(token);
    if (rep !== null) {
      // `axN` is `a+0xN`: N + 1 copies.
      for (let i = 0; i <= Number(rep[2]); i++)
        out.push(Number(rep[1]!.replace('Inf', 'Infinity')));
      continue;
    }
    const m = /^([-+]?[\d.eE]+|[-+]?Inf|NaN)([+-])([\d.eE]+)x(\d+)$/.exec(token);
    if (m !== null) {
      const start = Number(m[1]!.replace('Inf', 'Infinity'));
      const step = Number(m[3]) * (m[2] === '-' ? -1 : 1);
      for (let i = 0; i <= Number(m[4]); i++) out.push(start + i * step);
      continue;
    }
    out.push(Number(token.replace('Inf', 'Infinity')));
  }
  return out;
}

/** A series as `load <interval>` creates it: value i at i × interval. */
export function loadSeries(
  labels: Record<string, string>,
  intervalMs: number,
  spec: string,
): Series {
  const floats: FPoint[] = [];
  expandValues(spec).forEach((v, i) => {
    if (v !== undefined) floats.push({ t: i * intervalMs, f: v });
  });
  return { metric: Labels.fromObject(labels), floats };
}

/** The points of `s` in the window (t - offset - range, t - offset]. */
export function window(s: Series, t: number, range: number, offset = 0): Series {
  const end = t - offset;
  const start = end - range;
  return { ...s, floats: s.floats.filter((p) => p.t > start && p.t <= end) };
}

export function vectorSelector(name: string, offset = 0, start = 0): VectorSelector {
  return {
    type: 'VectorSelector',
    name,
    labelMatchers: name === '' ? [] : [Matcher.equal('__name__', name)],
    offset,
    originalOffset: offset,
    posRange: { start, end: start + Math.max(1, name.length) },
  };
}

export function matrixSelector(name: string, range: number, offset = 0, start = 0): MatrixSelector {
  const vs = vectorSelector(name, offset, start);
  return { type: 'MatrixSelector', vectorSelector: vs, range, endPos: vs.posRange.end + 5 };
}

export function num(val: number, start = 0): NumberLiteral {
  return { type: 'NumberLiteral', val, posRange: { start, end: start + 1 } };
}

export function str(val: string, start = 0): StringLiteral {
  return { type: 'StringLiteral', val, posRange: { start, end: start + val.length + 2 } };
}

export function makeEnh(ts: number, cache = new Map<string, unknown>()): EvalNodeHelper {
  return { ts, out: [], annotations: new Annotations(), cache };
}

export function scalar(v: number, t = 0): Vector {
  return [{ metric: Labels.EMPTY, t, f: v }];
}

export function sample(labels: Record<string, string>, f: number, t = 0): Sample {
  return { metric: Labels.fromObject(labels), t, f };
}

export interface RangeCallResult {
  readonly results: Vector;
  readonly enh: EvalNodeHelper;
}

/**
 * Calls a range-vector function for each series at time t as the engine would: the window of
 * `range` (ms) before t - offset, with `before`/`after` scalar arguments around the matrix
 * argument (e.g. quantile_over_time's φ before, predict_linear's t after).
 */
export function callRange(
  fn: FunctionCall,
  seriesList: readonly Series[],
  t: number,
  range: number,
  options: { offset?: number; before?: number[]; after?: number[]; name?: string } = {},
): RangeCallResult {
  const offset = options.offset ?? 0;
  const before = options.before ?? [];
  const after = options.after ?? [];
  const args: Expr[] = [
    ...before.map((v) => num(v)),
    matrixSelector(options.name ?? 'm', range, offset, 10),
    ...after.map((v) => num(v)),
  ];
  const vectorVals: Vector[] = [
    ...before.map((v) => scalar(v, t)),
    [],
    ...after.map((v) => scalar(v, t)),
  ];
  const enh = makeEnh(t);
  const results: Vector = [];
  for (const s of seriesList) {
    const w = window(s, t, range, offset);
    if (w.floats.length === 0) continue;
    enh.out = [];
    results.push(...fn(vectorVals, [w], args, enh));
  }
  return { results, enh };
}

/**
 * `{a="b"} value` map of a result after the engine's final name cleanup (names marked for
 * dropping removed), for order-insensitive comparisons with the test scripts.
 */
export function byLabels(v: Vector): Record<string, number> {
  const out: Record<string, number> = {};
  for (const s of v)
    out[(s.dropName === true ? s.metric.withoutName() : s.metric).toString()] = s.f;
  return out;
}
