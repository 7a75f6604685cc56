/**
 * One comparable form for query answers from Prometheus's HTTP API and from Strata's
 * engines, and the comparison rules of the differential test: result type equal, label
 * sets equal exactly, timestamps equal, values equal within a relative tolerance with
 * NaN == NaN; vectors compared as sets keyed by labels, except that for `sort`-like
 * queries Strata's order must also be sorted the way Prometheus sorts.
 */
import type { Labels } from '../../src/model/index.js';
import type { QueryValue } from '../../src/promql/index.js';
import type { ApiQueryData } from '../services/prometheus.js';

export type ResultType = 'vector' | 'matrix' | 'scalar' | 'string';

export interface NormSeries {
  /** Labels in Prometheus's `{a="b", ...}` form, sorted by name. */
  readonly key: string;
  readonly points: readonly (readonly [number, number])[];
}

export interface NormResult {
  readonly resultType: ResultType;
  /** Series in answer order (one pseudo-series with empty key for scalars). */
  readonly series: readonly NormSeries[];
  /** Only for string results. */
  readonly text?: string;
}

/** Parses the API's float text: Go's FormatFloat('f', -1) plus NaN, +Inf, -Inf. */
export function parseApiFloat(s: string): number {
  if (s === '+Inf') return Infinity;
  if (s === '-Inf') return -Infinity;
  if (s === 'NaN') return NaN;
  const v = Number(s);
  if (Number.isNaN(v)) throw new Error(`not a float in API answer: ${JSON.stringify(s)}`);
  return v;
}

function quoteValue(v: string): string {
  return JSON.stringify(v);
}

export function keyOfObject(metric: Readonly<Record<string, string>>): string {
  const names = Object.keys(metric).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${names.map((n) => `${n}=${quoteValue(metric[n] ?? '')}`).join(', ')}}`;
}

export function keyOfLabels(labels: Labels): string {
  return keyOfObject(labels.toObject());
}

const apiMs = (t: number): number => Math.round(t * 1000);

export function normalizeApi(data: ApiQueryData): NormResult {
  switch (data.resultType) {
    case 'vector':
      return {
        resultType: 'vector',
        series: data.result.map((s) => ({
          key: keyOfObject(s.metric),
          points: [[apiMs(s.value[0]), parseApiFloat(s.value[1])]],
        })),
      };
    case 'matrix':
      return {
        resultType: 'matrix',
        series: data.result.map((s) => ({
          key: keyOfObject(s.metric),
          points: s.values.map(([t, v]) => [apiMs(t), parseApiFloat(v)] as const),
        })),
      };
    case 'scalar':
      return {
        resultType: 'scalar',
        series: [{ key: '', points: [[apiMs(data.result[0]), parseApiFloat(data.result[1])]] }],
      };
    case 'string':
      return {
        resultType: 'string',
        series: [],
        text: data.result[1],
      };
  }
}

export function normalizeStrata(value: QueryValue): NormResult {
  switch (value.type) {
    case 'vector':
      return {
        resultType: 'vector',
        series: value.vector.map((s) => ({ key: keyOfLabels(s.metric), points: [[s.t, s.f]] })),
      };
    case 'matrix':
      return {
        resultType: 'matrix',
        series: value.matrix.map((s) => ({
          key: keyOfLabels(s.metric),
          points: s.floats.map((p) => [p.t, p.f] as const),
        })),
      };
    case 'scalar':
      return {
        resultType: 'scalar',
        series: [{ key: '', points: [[value.scalar.t, value.scalar.v]] }],
      };
    case 'string':
      return { resultType: 'string', series: [], text: value.string.v };
  }
}

export interface Tolerance {
  /** Largest accepted |a-b| / max(|a|,|b|). */
  readonly relative: number;
  /** Largest accepted |a-b| regardless of magnitude (float noise around zero). */
  readonly absolute: number;
}

export const DEFAULT_TOLERANCE: Tolerance = { relative: 1e-9, absolute: 1e-12 };

export function floatsMatch(a: number, b: number, tol: Tolerance = DEFAULT_TOLERANCE): boolean {
  if (Number.isNaN(a) || Number.isNaN(b)) return Number.isNaN(a) && Number.isNaN(b);
  if (a === b) return true;
  if (!Number.isFinite(a) || !Number.isFinite(b)) return false;
  const diff = Math.abs(a - b);
  return diff <= tol.absolute || diff <= tol.relative * Math.max(Math.abs(a), Math.abs(b));
}

/** How `sort`-family results must be ordered: by value (NaN last) ascending or descending. */
export type OrderRule = 'none' | 'asc' | 'desc';

function sortedBy(values: readonly number[], rule: OrderRule): boolean {
  for (let i = 1; i < values.length; i++) {
    const a = values[i - 1] as number;
    const b = values[i] as number;
    if (Number.isNaN(b)) continue;
    if (Number.isNaN(a)) return false;
    if (rule === 'asc' ? a > b : a < b) return false;
  }
  return true;
}

/**
 * Differences between Prometheus's answer and Strata's, as readable lines (empty when the
 * answers agree).
 */
export function diffResults(
  prom: NormResult,
  strata: NormResult,
  order: OrderRule = 'none',
  tol: Tolerance = DEFAULT_TOLERANCE,
): string[] {
  const out: string[] = [];
  if (prom.resultType !== strata.resultType) {
    return [`result type: prometheus ${prom.resultType}, strata ${strata.resultType}`];
  }
  if (prom.resultType === 'string') {
    if (prom.text !== strata.text)
      out.push(`string: prometheus ${prom.text}, strata ${strata.text}`);
  }
  const byKey = (r: NormResult): Map<string, NormSeries> => {
    const m = new Map<string, NormSeries>();
    for (const s of r.series) {
      if (m.has(s.key)) out.push(`duplicate series ${s.key} in answer`);
      m.set(s.key, s);
    }
    return m;
  };
  const p = byKey(prom);
  const s = byKey(strata);
  for (const [key, ps] of p) {
    const ss = s.get(key);
    if (ss === undefined) {
      out.push(`missing in strata: ${key} ${fmtPoints(ps.points)}`);
      continue;
    }
    const pointDiff = diffPoints(ps.points, ss.points, tol);
    if (pointDiff !== undefined) out.push(`${key}: ${pointDiff}`);
  }
  for (const [key, ss] of s) {
    if (!p.has(key)) out.push(`extra in strata: ${key} ${fmtPoints(ss.points)}`);
  }
  if (order !== 'none' && strata.resultType === 'vector') {
    const values = strata.series.map((x) => x.points[0]?.[1] ?? NaN);
    if (!sortedBy(values, order)) out.push(`strata order not ${order}: ${values.join(' ')}`);
  }
  return out;
}

function diffPoints(
  p: readonly (readonly [number, number])[],
  s: readonly (readonly [number, number])[],
  tol: Tolerance,
): string | undefined {
  if (p.length !== s.length) {
    return `${p.length} points in prometheus, ${s.length} in strata: prometheus ${fmtPoints(p)}, strata ${fmtPoints(s)}`;
  }
  for (let i = 0; i < p.length; i++) {
    const [pt, pv] = p[i] as readonly [number, number];
    const [st, sv] = s[i] as readonly [number, number];
    if (pt !== st || !floatsMatch(pv, sv, tol)) {
      return `point ${i}: prometheus ${pv}@${pt}, strata ${sv}@${st}`;
    }
  }
  return undefined;
}

function fmtPoints(points: readonly (readonly [number, number])[]): string {
  const shown = points.slice(0, 3).map(([t, v]) => `${v}@${t}`);
  return `[${shown.join(' ')}${points.length > 3 ? ` … ${points.length} points` : ''}]`;
}
