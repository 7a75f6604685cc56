// Small pure helpers the evaluator shares: the stale marker test, Go's math special cases,
// and label-set manipulation in Go string order. Node types and positions
// come from the parser (exprType, posRangeOf).
import { compareGoStrings, Labels } from '../../model/index.js';
import type { Expr } from '../parser/ast.js';

export function unwrapStepInvariant(e: Expr): Expr {
  return e.type === 'StepInvariantExpr' ? e.expr : e;
}

/**
 * Recognises Prometheus's stale marker (bits 0x7ff0000000000002). V8 quiets signalling NaNs
 * when numbers pass through it, which sets bit 51, so 0x7ff8000000000002 counts as stale too;
 * ordinary NaNs (0x7ff8000000000000, Prometheus's 0x7ff8000000000001) do not.
 */
export class StaleMarkerTest {
  private readonly f = new Float64Array(1);
  private readonly u = new Uint32Array(this.f.buffer);
  private readonly lo: 0 | 1;

  constructor() {
    this.f[0] = 1; // 0x3ff0000000000000: the high word is the one that is non-zero.
    this.lo = this.u[0] === 0 ? 0 : 1;
  }

  isStale(v: number): boolean {
    if (v === v) return false;
    this.f[0] = v;
    const lo = this.u[this.lo] as number;
    const hi = this.u[1 - this.lo] as number;
    return lo === 2 && (hi & 0xfff7ffff) === 0x7ff00000;
  }
}

/** Go's math.Pow special cases that differ from JavaScript's `**`. */
export function goPow(x: number, y: number): number {
  if (y === 0 || x === 1) return 1;
  if (x === -1 && !Number.isFinite(y) && !Number.isNaN(y)) return 1;
  return Math.pow(x, y);
}

/** Go's math.Mod (JavaScript's `%` on doubles is fmod with the same special cases). */
export function goMod(x: number, y: number): number {
  return x % y;
}

/** Labels `__name__`, `__type__` and `__unit__` (Prometheus schema.IsMetadataLabel). */
const METADATA_LABELS = ['__name__', '__type__', '__unit__'];

/** Prometheus Labels.DropReserved(schema.IsMetadataLabel): drops the metric name and type/unit. */
export function dropMetadataLabels(l: Labels): Labels {
  return l.without(...METADATA_LABELS);
}

/**
 * Drops the metric name and type/unit labels where Prometheus drops them at once (without
 * delayed name removal), remembering the result per input label set: series keep their
 * Labels object from step to step, so each is rebuilt once per node, not once per step.
 */
export class NameDropper {
  private readonly cache = new Map<Labels, Labels>();

  drop(l: Labels): Labels {
    let d = this.cache.get(l);
    if (d === undefined) {
      d = dropMetadataLabels(l);
      this.cache.set(l, d);
    }
    return d;
  }

  /**
   * A function's outputs marked for name dropping lose the name now (Prometheus's functions
   * call DropReserved themselves when delayed removal is off; ours only mark them).
   */
  dropMarked<T extends { metric: Labels; dropName?: boolean }>(vec: T[]): T[] {
    for (let i = 0; i < vec.length; i++) {
      const s = vec[i] as T;
      if (s.dropName !== true) continue;
      const metric = this.drop(s.metric);
      if (metric !== s.metric) vec[i] = { ...s, metric };
    }
    return vec;
  }
}

export const SAME_LABELSET = 'vector cannot contain metrics with the same labelset';

/** Whether two elements share a label set (Prometheus Vector/Matrix.ContainsSameLabelset). */
export function containsSameLabelset(items: readonly { metric: Labels }[]): boolean {
  if (items.length <= 1) return false;
  if (items.length === 2) {
    const [a, b] = items as readonly [{ metric: Labels }, { metric: Labels }];
    return a.metric.equals(b.metric);
  }
  // Keyed by the memoised NUL-joined form (no quoting per label, as toString would do); two
  // different sets can only share it when a value holds a NUL, so a shared key is confirmed
  // with equals, and sets whose key is taken by a different set are kept in a list.
  const seen = new Map<string, Labels>();
  let collided: Labels[] | undefined;
  for (const it of items) {
    const k = it.metric.joined();
    const prev = seen.get(k);
    if (prev === undefined) {
      seen.set(k, it.metric);
      continue;
    }
    if (prev.equals(it.metric)) return true;
    collided ??= [];
    if (collided.some((c) => c.equals(it.metric))) return true;
    collided.push(it.metric);
  }
  return false;
}

/** Only the labels named in `sortedNames` (Prometheus Builder.Keep). */
export function keepLabels(l: Labels, names: readonly string[]): Labels {
  const keepNames: string[] = [];
  const keepValues: string[] = [];
  const wanted = new Set(names);
  l.forEach((n, v) => {
    if (wanted.has(n)) {
      keepNames.push(n);
      keepValues.push(v);
    }
  });
  return keepNames.length === l.length ? l : Labels.fromSorted(keepNames, keepValues);
}

/** The label set with `name` set to `value` (or removed when `value` is empty), like Builder.Set. */
export function setLabel(l: Labels, name: string, value: string): Labels {
  if (value === '') return l.has(name) ? l.without(name) : l;
  if (l.get(name) === value) return l;
  const names: string[] = [];
  const values: string[] = [];
  let inserted = false;
  l.forEach((n, v) => {
    if (n === name) return;
    if (!inserted && compareGoStrings(name, n) < 0) {
      names.push(name);
      values.push(value);
      inserted = true;
    }
    names.push(n);
    values.push(v);
  });
  if (!inserted) {
    names.push(name);
    values.push(value);
  }
  return Labels.fromSorted(names, values);
}

/** Prometheus Labels.MatchLabels: on → only `names`; ignoring → all but `names` and `__name__`. */
export function matchLabels(l: Labels, on: boolean, names: readonly string[]): Labels {
  const set = new Set(names);
  const keepNames: string[] = [];
  const keepValues: string[] = [];
  l.forEach((n, v) => {
    if (on === set.has(n) && (on || n !== '__name__')) {
      keepNames.push(n);
      keepValues.push(v);
    }
  });
  return Labels.fromSorted(keepNames, keepValues);
}
