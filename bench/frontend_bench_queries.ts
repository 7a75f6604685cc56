// The query-frontend benchmark's dashboard: ten range queries as Grafana panels send them
// over the long-term benchmark's four series shapes, and the comparison of two answers
// (series matched by their labels, values compared as the API's decimal strings).
import { seriesPerShape } from './long_term_data.js';
import { SERIES_SHAPES } from './series_shapes.js';

export interface DashboardQuery {
  /** Short panel name for the tables. */
  name: string;
  expr: string;
}

/**
 * Aggregations whole and grouped (the frontend shards the grouped ones and count, min, max,
 * topk; a sum or avg without grouping runs whole so its float sum keeps the engine's order),
 * a single-series panel, a small regex selection, and a long-window increase.
 */
export const DASHBOARD: readonly DashboardQuery[] = [
  { name: 'total rate', expr: 'sum(rate(bench_counter[5m]))' },
  { name: 'rate by job', expr: 'sum by (job) (rate(bench_counter[5m]))' },
  { name: 'top 5 rates', expr: 'topk(5, rate(bench_counter[5m]))' },
  { name: 'targets up', expr: 'count by (job) (bench_constant)' },
  { name: 'max value', expr: 'max by (job) (bench_random)' },
  { name: 'avg value', expr: 'avg(bench_random)' },
  { name: 'one target', expr: 'rate(bench_counter{instance="host-7.example.org:9100"}[5m])' },
  {
    name: 'ten targets',
    expr: 'sum by (instance) (rate(bench_counter{instance=~"host-1[0-9]\\\\.example\\\\.org:9100"}[5m]))',
  },
  { name: 'min jittered', expr: 'min by (job) (bench_jittered)' },
  { name: 'hourly increase', expr: 'sum by (job) (increase(bench_counter[1h]))' },
];

/** Series of the counter shape (the probe's expected `count(bench_counter)`). */
export function counterSeries(numSeries: number): number {
  return seriesPerShape(numSeries)[SERIES_SHAPES.indexOf('counter')] ?? 0;
}

interface MatrixSeries {
  metric: Record<string, string>;
  values: [number, string][];
}

/** A range query's answer: series keyed by their sorted labels. */
export type Matrix = Map<string, [number, string][]>;

/** Parses a `query_range` answer; throws with the body when it is not a successful matrix. */
export function parseMatrix(status: number, body: string): Matrix {
  // A failed query's body may be plain text (a queue's 502): say so instead of a SyntaxError.
  if (status !== 200) throw new Error(`query failed (${status}): ${body.slice(0, 500)}`);
  const json = JSON.parse(body) as {
    status?: string;
    data?: { resultType?: string; result?: MatrixSeries[] };
  };
  if (json.status !== 'success' || json.data?.resultType !== 'matrix') {
    throw new Error(`query failed (${status}): ${body.slice(0, 500)}`);
  }
  const out: Matrix = new Map();
  for (const s of json.data.result ?? []) {
    const key = JSON.stringify(Object.entries(s.metric).sort(([a], [b]) => (a < b ? -1 : 1)));
    out.set(key, s.values);
  }
  return out;
}

/** Points of a matrix (series × steps with a value). */
export function matrixPoints(m: Matrix): number {
  let n = 0;
  for (const v of m.values()) n += v.length;
  return n;
}

export interface Difference {
  /** Points (and missing or extra series' points) that differ. */
  points: number;
  /** Largest relative difference among points present in both. */
  maxRelative: number;
  /** Series in one answer only. */
  series: number;
  /** Earliest and latest timestamp (s) of a differing point, to tell a split interval. */
  firstT: number;
  lastT: number;
}

/** How `got` differs from `want`; undefined when every series and point is identical. */
export function compareMatrix(want: Matrix, got: Matrix): Difference | undefined {
  const d: Difference = {
    points: 0,
    maxRelative: 0,
    series: 0,
    firstT: Infinity,
    lastT: -Infinity,
  };
  const at = (t: number): void => {
    d.firstT = Math.min(d.firstT, t);
    d.lastT = Math.max(d.lastT, t);
  };
  for (const [key, wv] of want) {
    const gv = got.get(key);
    if (gv === undefined) {
      d.series++;
      d.points += wv.length;
      for (const [t] of wv) at(t);
      continue;
    }
    const byT = new Map(gv.map(([t, v]) => [t, v]));
    for (const [t, v] of wv) {
      const g = byT.get(t);
      byT.delete(t);
      if (g === v) continue;
      d.points++;
      at(t);
      if (g === undefined) continue;
      const a = Number(v);
      const b = Number(g);
      const rel = Math.abs(a - b) / Math.max(Math.abs(a), Math.abs(b), Number.MIN_VALUE);
      if (Number.isFinite(rel)) d.maxRelative = Math.max(d.maxRelative, rel);
    }
    d.points += byT.size;
    for (const t of byT.keys()) at(t);
  }
  for (const [key, gv] of got) {
    if (want.has(key)) continue;
    d.series++;
    d.points += gv.length;
    for (const [t] of gv) at(t);
  }
  return d.points === 0 && d.series === 0 ? undefined : d;
}
