// Binary operators (Prometheus VectorAnd/VectorOr/VectorUnless/VectorBinop/VectorscalarBinop/
// scalarBinop): arithmetic with Go's math.Mod and math.Pow, comparisons with and without
// `bool`, set operators, and one-to-one / many-to-one / one-to-many vector matching with
// Prometheus's error texts. Every function works on one step's vectors; the caller passes,
// for each sample, the ordinal of its join signature (computed once per series).
import { compareGoStrings, type Labels } from '../../model/index.js';
import { QueryExecutionError } from '../errors.js';
import type { BinaryOp, VectorMatching } from '../parser/ast.js';
import type { Sample } from '../value.js';
import {
  dropMetadataLabels,
  goMod,
  goPow,
  keepLabels,
  matchLabels,
  setLabel,
  type NameDropper,
} from './util.js';

/** Operators whose result is no longer "the same metric" (Prometheus changesMetricSchema). */
export function changesMetricSchema(op: BinaryOp): boolean {
  switch (op) {
    case '+':
    case '-':
    case '*':
    case '/':
    case '^':
    case '%':
    case 'atan2':
      return true;
    default:
      return false;
  }
}

export function isComparison(op: BinaryOp): boolean {
  switch (op) {
    case '==':
    case '!=':
    case '>':
    case '<':
    case '>=':
    case '<=':
      return true;
    default:
      return false;
  }
}

export function isSetOperator(op: BinaryOp): boolean {
  return op === 'and' || op === 'or' || op === 'unless';
}

/** Scalar ∘ scalar (comparisons yield 1 or 0). */
export function scalarBinop(op: BinaryOp, l: number, r: number): number {
  switch (op) {
    case '+':
      return l + r;
    case '-':
      return l - r;
    case '*':
      return l * r;
    case '/':
      return l / r;
    case '^':
      return goPow(l, r);
    case '%':
      return goMod(l, r);
    case '==':
      return l === r ? 1 : 0;
    case '!=':
      return l !== r ? 1 : 0;
    case '>':
      return l > r ? 1 : 0;
    case '<':
      return l < r ? 1 : 0;
    case '>=':
      return l >= r ? 1 : 0;
    case '<=':
      return l <= r ? 1 : 0;
    case 'atan2':
      return Math.atan2(l, r);
    default:
      throw new QueryExecutionError(`operator "${op}" not allowed for Scalar operations`);
  }
}

/** Element ∘ element: the value (a comparison yields its left operand). */
function elemValue(op: BinaryOp, l: number, r: number): number {
  return isComparison(op) ? l : scalarBinop(op, l, r);
}

/** Whether a filtering comparison keeps the element (arithmetic always does). */
function elemKeep(op: BinaryOp, l: number, r: number): boolean {
  switch (op) {
    case '==':
      return l === r;
    case '!=':
      return l !== r;
    case '>':
      return l > r;
    case '<':
      return l < r;
    case '>=':
      return l >= r;
    case '<=':
      return l <= r;
    default:
      return true;
  }
}

/** Builds the join signature of a label set for `matching` (Prometheus's sigf in rangeEval). */
export function signatureFunction(matching: VectorMatching): (l: Labels) => string {
  if (matching.on) {
    // Name by name in the set's order (the same for both sides): a label set not split yet
    // (a select's, on the evaluation thread) is walked, not split.
    const names = new Set(matching.matchingLabels);
    return (l) => {
      let s = '';
      for (const n of names) {
        const v = l.find(n);
        if (v !== undefined) s += n + '\xff' + v + '\xff';
      }
      return s;
    };
  }
  const names = new Set(['__name__', ...matching.matchingLabels]);
  return (l) => {
    let s = '';
    l.forEach((n, v) => {
      if (!names.has(n)) s += n + '\xff' + v + '\xff';
    });
    return s;
  };
}

export function vectorAnd(
  lhs: readonly Sample[],
  rhs: readonly Sample[],
  lsigs: readonly number[],
  rsigs: readonly number[],
  numSigs: number,
  out: Sample[],
): Sample[] {
  if (lhs.length === 0 || rhs.length === 0) return out;
  const present = new Uint8Array(numSigs);
  for (const s of rsigs) present[s] = 1;
  for (let i = 0; i < lhs.length; i++)
    if (present[lsigs[i] as number] === 1) out.push(lhs[i] as Sample);
  return out;
}

export function vectorOr(
  lhs: readonly Sample[],
  rhs: readonly Sample[],
  lsigs: readonly number[],
  rsigs: readonly number[],
  numSigs: number,
  out: Sample[],
): Sample[] {
  if (lhs.length === 0) {
    for (const s of rhs) out.push(s);
    return out;
  }
  if (rhs.length === 0) {
    for (const s of lhs) out.push(s);
    return out;
  }
  const present = new Uint8Array(numSigs);
  for (let i = 0; i < lhs.length; i++) {
    present[lsigs[i] as number] = 1;
    out.push(lhs[i] as Sample);
  }
  for (let j = 0; j < rhs.length; j++)
    if (present[rsigs[j] as number] !== 1) out.push(rhs[j] as Sample);
  return out;
}

export function vectorUnless(
  lhs: readonly Sample[],
  rhs: readonly Sample[],
  lsigs: readonly number[],
  rsigs: readonly number[],
  numSigs: number,
  out: Sample[],
): Sample[] {
  if (lhs.length === 0 || rhs.length === 0) {
    for (const s of lhs) out.push(s);
    return out;
  }
  const present = new Uint8Array(numSigs);
  for (const s of rsigs) present[s] = 1;
  for (let i = 0; i < lhs.length; i++)
    if (present[lsigs[i] as number] !== 1) out.push(lhs[i] as Sample);
  return out;
}

/**
 * Per-node caches of VectorBinop (Prometheus EvalNodeHelper.resultMetric). Input series keep
 * their Labels objects across steps, so the result label set is cached by object identity;
 * the per-step tables indexed by signature ordinal are reused across steps.
 */
export interface BinopCache {
  readonly resultMetric: Map<Labels, Map<Labels, Labels>>;
  readonly right: (Sample | undefined)[];
  /** Per signature: null once matched one-to-one, else the result label keys seen. */
  readonly matched: (string | Set<string> | null | undefined)[];
  readonly touched: number[];
}

export function newBinopCache(): BinopCache {
  return { resultMetric: new Map(), right: [], matched: [], touched: [] };
}

function resultMetric(
  lhs: Labels,
  rhs: Labels,
  op: BinaryOp,
  matching: VectorMatching,
  dropNow: boolean,
  cache: BinopCache,
): Labels {
  let byRhs = cache.resultMetric.get(lhs);
  if (byRhs === undefined) {
    byRhs = new Map();
    cache.resultMetric.set(lhs, byRhs);
  }
  const hit = byRhs.get(rhs);
  if (hit !== undefined) return hit;
  let m = lhs;
  if (changesMetricSchema(op)) m = dropMetadataLabels(m);
  if (matching.card === 'one-to-one') {
    m = matching.on
      ? keepLabels(m, matching.matchingLabels)
      : m.without(...matching.matchingLabels);
  }
  for (const ln of matching.include) m = setLabel(m, ln, rhs.get(ln));
  if (dropNow) m = dropMetadataLabels(m);
  byRhs.set(rhs, m);
  return m;
}

/**
 * Arithmetic and comparison between two vectors. Without delayed name removal a `bool`
 * comparison drops the name before the uniqueness checks, as Prometheus's VectorBinop does.
 */
export function vectorBinop(
  op: BinaryOp,
  lhsIn: readonly Sample[],
  rhsIn: readonly Sample[],
  matching: VectorMatching,
  returnBool: boolean,
  delayedNameRemoval: boolean,
  lsigsIn: readonly number[],
  rsigsIn: readonly number[],
  cache: BinopCache,
  out: Sample[],
): Sample[] {
  if (matching.card === 'many-to-many') {
    throw new QueryExecutionError('many-to-many only allowed for set operators');
  }
  if (lhsIn.length === 0 || rhsIn.length === 0) return out;
  const swapped = matching.card === 'one-to-many';
  const lhs = swapped ? rhsIn : lhsIn;
  const rhs = swapped ? lhsIn : rhsIn;
  const lsigs = swapped ? rsigsIn : lsigsIn;
  const rsigs = swapped ? lsigsIn : rsigsIn;

  const right = cache.right;
  const matched = cache.matched;
  const touched = cache.touched;
  try {
    for (let i = 0; i < rhs.length; i++) {
      const rs = rhs[i] as Sample;
      const sig = rsigs[i] as number;
      const dup = right[sig];
      if (dup !== undefined) {
        const oneSide = swapped ? 'left' : 'right';
        const m = matchLabels(rs.metric, matching.on, matching.matchingLabels);
        throw new QueryExecutionError(
          `found duplicate series for the match group ${m.toString()} on the ${oneSide} hand-side of the operation: [${rs.metric.toString()}, ${dup.metric.toString()}];many-to-many matching not allowed: matching labels must be unique on one side`,
        );
      }
      right[sig] = rs;
      touched.push(sig);
    }

    const oneToOne = matching.card === 'one-to-one';
    for (let i = 0; i < lhs.length; i++) {
      const ls = lhs[i] as Sample;
      const sig = lsigs[i] as number;
      const rs = right[sig];
      if (rs === undefined) continue;
      const fl = swapped ? rs.f : ls.f;
      const fr = swapped ? ls.f : rs.f;
      const keep = elemKeep(op, fl, fr);
      const value = returnBool ? (keep ? 1 : 0) : elemValue(op, fl, fr);
      const dropNow = returnBool && !delayedNameRemoval;
      const metric = resultMetric(ls.metric, rs.metric, op, matching, dropNow, cache);
      const inserted = matched[sig];
      if (oneToOne) {
        if (inserted !== undefined) {
          throw new QueryExecutionError(
            'multiple matches for labels: many-to-one matching must be explicit (group_left/group_right)',
          );
        }
        matched[sig] = null;
      } else {
        // In many-to-one matching the grouping labels must make every result unique.
        const insertSig = metric.key();
        if (inserted === undefined || inserted === null) {
          matched[sig] = insertSig;
        } else if (typeof inserted === 'string') {
          if (inserted === insertSig) throw nonUniqueGrouping();
          matched[sig] = new Set([inserted, insertSig]);
        } else if (inserted.has(insertSig)) {
          throw nonUniqueGrouping();
        } else inserted.add(insertSig);
      }
      if (!keep && !returnBool) continue;
      out.push({ metric, t: ls.t, f: value, dropName: returnBool });
    }
    return out;
  } finally {
    for (const sig of touched) right[sig] = undefined;
    for (let i = 0; i < lsigs.length; i++) matched[lsigs[i] as number] = undefined;
    touched.length = 0;
  }
}

function nonUniqueGrouping(): QueryExecutionError {
  return new QueryExecutionError(
    'multiple matches for labels: grouping labels must ensure unique matches',
  );
}

/**
 * A vector ∘ a scalar; `swap` when the scalar is on the left-hand side. Arithmetic and `bool`
 * drop the name: at once, or only marked with delayed name removal.
 */
export function vectorScalarBinop(
  op: BinaryOp,
  lhs: readonly Sample[],
  scalar: number,
  swap: boolean,
  returnBool: boolean,
  /** Drops names at once; null with delayed name removal (names are only marked). */
  dropper: NameDropper | null,
  out: Sample[],
): Sample[] {
  const comparison = isComparison(op);
  const dropName = changesMetricSchema(op) || returnBool;
  const dropNow = dropName ? dropper : null;
  for (const s of lhs) {
    const lf = swap ? scalar : s.f;
    const rf = swap ? s.f : scalar;
    let keep = elemKeep(op, lf, rf);
    // A comparison keeps the vector element's value even when the vector is on the right.
    let value = comparison ? (swap ? rf : lf) : scalarBinop(op, lf, rf);
    if (returnBool) {
      value = keep ? 1 : 0;
      keep = true;
    }
    if (!keep) continue;
    out.push({
      metric: dropNow === null ? s.metric : dropNow.drop(s.metric),
      t: s.t,
      f: value,
      dropName: dropName || s.dropName === true,
    });
  }
  return out;
}

/** Sorted copy of label names in Go order. */
export function sortedNames(names: readonly string[]): string[] {
  return [...names].sort(compareGoStrings);
}
