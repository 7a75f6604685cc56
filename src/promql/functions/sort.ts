// sort, sort_desc, sort_by_label, sort_by_label_desc of Prometheus 3 functions.go. They only
// order an instant query's result (the engine ignores order in range queries). NaN sorts
// last both ways. Ties keep their input order (a stable sort; Go's sort is unstable, so
// Prometheus's order among equal values is unspecified).
import { Labels, compareGoStrings } from '../../model/index.js';
import type { FunctionCall } from '../function_call.js';
import type { Expr } from '../parser/ast.js';
import type { Sample } from '../value.js';

function byValue(desc: boolean): (a: Sample, b: Sample) => number {
  return (a, b) => {
    const aNaN = Number.isNaN(a.f);
    const bNaN = Number.isNaN(b.f);
    if (aNaN || bNaN) return aNaN === bNaN ? 0 : aNaN ? 1 : -1;
    if (a.f === b.f) return 0;
    return a.f < b.f !== desc ? -1 : 1;
  };
}

export const funcSort: FunctionCall = (vectorVals, _m, _a, enh) => {
  enh.out.push(...[...(vectorVals[0] ?? [])].sort(byValue(false)));
  return enh.out;
};

export const funcSortDesc: FunctionCall = (vectorVals, _m, _a, enh) => {
  enh.out.push(...[...(vectorVals[0] ?? [])].sort(byValue(true)));
  return enh.out;
};

/** Go's strconv.Atoi on a digit run: undefined when it overflows int64. */
function atoi(digits: string): bigint | undefined {
  const v = BigInt(digits);
  return v > 9223372036854775807n ? undefined : v;
}

const CHUNK = /\d+|\D+/gu;

/**
 * github.com/facette/natsort Compare (the version Prometheus pins): strings split into runs
 * of ASCII digits and non-digits; digit runs compare as integers, others bytewise. Returns
 * whether `a` sorts before `b`. Not a strict order (it answers true for equal strings), which
 * is why sort_by_label only asks it about differing values.
 */
export function natsortLess(a: string, b: string): boolean {
  const chunksA = a.match(CHUNK) ?? [];
  const chunksB = b.match(CHUNK) ?? [];
  for (let i = 0; i < chunksA.length; i++) {
    if (i >= chunksB.length) return false;
    const ca = chunksA[i]!;
    const cb = chunksB[i]!;
    const aInt = /^\d+$/.test(ca) ? atoi(ca) : undefined;
    const bInt = /^\d+$/.test(cb) ? atoi(cb) : undefined;
    if (aInt !== undefined && bInt !== undefined) {
      if (aInt === bInt) {
        if (i === chunksA.length - 1) return true;
        if (i === chunksB.length - 1) return false;
        continue;
      }
      return aInt < bInt;
    }
    if (ca === cb) {
      if (i === chunksA.length - 1) return true;
      if (i === chunksB.length - 1) return false;
      continue;
    }
    return compareGoStrings(ca, cb) < 0;
  }
  return false;
}

function stringArgs(args: readonly Expr[]): string[] {
  return args.flatMap((a) => (a.type === 'StringLiteral' ? [a.val] : []));
}

function byLabels(names: readonly string[], desc: boolean): (a: Sample, b: Sample) => number {
  return (a, b) => {
    for (const name of names) {
      const lv1 = a.metric.get(name);
      const lv2 = b.metric.get(name);
      if (lv1 === lv2) continue;
      return natsortLess(lv1, lv2) !== desc ? -1 : 1;
    }
    // All given labels equal: order by the whole label set for a consistent result.
    const c = Labels.compare(a.metric, b.metric);
    return desc ? -c : c;
  };
}

export const funcSortByLabel: FunctionCall = (vectorVals, _m, args, enh) => {
  enh.out.push(...[...(vectorVals[0] ?? [])].sort(byLabels(stringArgs(args.slice(1)), false)));
  return enh.out;
};

export const funcSortByLabelDesc: FunctionCall = (vectorVals, _m, args, enh) => {
  enh.out.push(...[...(vectorVals[0] ?? [])].sort(byLabels(stringArgs(args.slice(1)), true)));
  return enh.out;
};
