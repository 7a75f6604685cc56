// The query benchmark's standard queries (issue 14) over the data of query_bench_data.ts, how
// they are sent (POST form bodies to /api/v1/query and /api/v1/query_range, as Grafana's
// Prometheus data source does), and the comparison of two answers: same result type, same
// series, same timestamps, values equal up to a relative 1e-9 (float summation order).
import { DATA_SPAN_MS } from './query_bench_data.js';

export type QueryKind = 'instant' | 'range';

export interface BenchQuery {
  /** Short name for the tables. */
  name: string;
  expr: string;
  kind: QueryKind;
}

/** Range queries cover the data's five minutes at this step; instant queries its end. */
export const RANGE_STEP_SECONDS = 15;

/**
 * Selectors (plain and with matchers), rate/increase, aggregations whole, grouped and
 * `without`, a filtered count by, topk and sort (whose order is compared), quantile_over_time,
 * a many-to-one division with on/group_left, a regex over every `node_` metric (60% of the
 * series) and counts over 60% and over all of the series.
 */
export const QUERIES: readonly BenchQuery[] = [
  { name: 'selector', expr: 'node_load1', kind: 'instant' },
  {
    name: 'selector, 2 matchers',
    expr: 'node_memory_active_bytes{cluster="eu-1",mode="user"}',
    kind: 'range',
  },
  { name: 'rate', expr: 'rate(node_network_receive_bytes_total[1m])', kind: 'range' },
  { name: 'sum(rate)', expr: 'sum(rate(node_cpu_seconds_total[1m]))', kind: 'range' },
  { name: 'increase', expr: 'increase(http_requests_total[5m])', kind: 'instant' },
  {
    name: 'sum by (instance)',
    expr: 'sum by (instance) (rate(node_cpu_seconds_total{mode="user"}[1m]))',
    kind: 'range',
  },
  {
    name: 'avg by (cluster, mode)',
    expr: 'avg by (cluster, mode) (node_memory_active_bytes)',
    kind: 'range',
  },
  {
    name: 'filtered count by',
    expr: 'count by (cluster) (node_load1 > 50000)',
    kind: 'range',
  },
  {
    name: 'avg without (cpu)',
    expr: 'avg without (cpu) (rate(process_cpu_seconds_total[1m]))',
    kind: 'range',
  },
  { name: 'topk(max_over_time)', expr: 'topk(5, max_over_time(node_load1[1m]))', kind: 'instant' },
  {
    name: 'quantile_over_time',
    expr: 'quantile_over_time(0.9, process_resident_memory_bytes[2m])',
    kind: 'range',
  },
  {
    name: 'on/group_left',
    expr: 'rate(node_cpu_seconds_total{mode="system"}[1m]) / on(instance) group_left max by (instance) (node_load1)',
    kind: 'range',
  },
  { name: 'regex rate', expr: 'rate({__name__=~"node_.+"}[1m])', kind: 'range' },
  { name: 'count job', expr: 'count({job="node"})', kind: 'instant' },
  { name: 'count all', expr: 'count({job=~".+"})', kind: 'instant' },
  {
    name: 'sort_desc(sum by (job))',
    expr: 'sort_desc(sum by (job) (rate(http_requests_total[1m])))',
    kind: 'instant',
  },
];

/** Whether the answer's order is part of it: an instant query whose outermost call sorts. */
export function isOrdered(q: BenchQuery): boolean {
  return q.kind === 'instant' && /^\s*(topk|bottomk|sort|sort_desc|sort_by_label)\b/.test(q.expr);
}

/** The query's form parameters over data starting at `startMs` (five minutes). */
export function queryParams(q: BenchQuery, startMs: number): Record<string, string> {
  const end = (startMs + DATA_SPAN_MS) / 1000;
  if (q.kind === 'instant') return { query: q.expr, time: String(end) };
  return {
    query: q.expr,
    start: String(startMs / 1000),
    end: String(end),
    step: String(RANGE_STEP_SECONDS),
  };
}

export interface HttpAnswer {
  status: number;
  body: string;
  /** Wall time of the request including reading the whole body. */
  ms: number;
}

/** POSTs a form to `<base>/api/v1/query(_range)`; `headers` e.g. select the engine. */
export async function postQuery(
  base: string,
  kind: QueryKind,
  params: Record<string, string>,
  headers: Record<string, string> = {},
): Promise<HttpAnswer> {
  const url = `${base}/api/v1/${kind === 'instant' ? 'query' : 'query_range'}`;
  const t0 = performance.now();
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(params).toString(),
  });
  const body = await res.text();
  return { status: res.status, body, ms: performance.now() - t0 };
}

export interface AnswerSeries {
  /** The label set, sorted, as `{a="x", b="y"}`. */
  key: string;
  points: [number, string][];
}

export interface Answer {
  resultType: string;
  series: AnswerSeries[];
}

type Point = [number, string];

function labelKey(metric: Record<string, string> | undefined): string {
  const pairs = Object.entries(metric ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${pairs.map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(', ')}}`;
}

/** Parses a query answer; throws with the start of the body when it is not a success. */
export function parseAnswer(status: number, body: string): Answer {
  let json: { status?: string; data?: { resultType?: string; result?: unknown } } = {};
  try {
    json = JSON.parse(body) as typeof json;
  } catch {
    // A failed query's body may be plain text: reported below with the body.
  }
  const data = json.data;
  if (status !== 200 || json.status !== 'success' || data?.resultType === undefined) {
    throw new Error(`query failed (${status}): ${body.slice(0, 300)}`);
  }
  const resultType = data.resultType;
  if (resultType === 'scalar' || resultType === 'string') {
    return { resultType, series: [{ key: '{}', points: [data.result as Point] }] };
  }
  const result = (data.result ?? []) as {
    metric?: Record<string, string>;
    value?: Point;
    values?: Point[];
  }[];
  return {
    resultType,
    series: result.map((s) => ({
      key: labelKey(s.metric),
      points: resultType === 'vector' ? (s.value === undefined ? [] : [s.value]) : (s.values ?? []),
    })),
  };
}

/** Points in an answer (series × steps with a value). */
export function answerPoints(a: Answer): number {
  return a.series.reduce((n, s) => n + s.points.length, 0);
}

/** Relative differences up to this are float summation order, reported as equal. */
export const RELATIVE_TOLERANCE = 1e-9;

function parseValue(v: string): number {
  if (v === '+Inf' || v === 'Inf') return Infinity;
  if (v === '-Inf') return -Infinity;
  return Number(v);
}

/** Relative difference of two API values: 0 when equal (NaN equals NaN), Infinity when incomparable. */
export function relativeDifference(a: string, b: string): number {
  if (a === b) return 0;
  const x = parseValue(a);
  const y = parseValue(b);
  if (Number.isNaN(x) && Number.isNaN(y)) return 0;
  if (x === y) return 0;
  if (!Number.isFinite(x) || !Number.isFinite(y)) return Infinity;
  return Math.abs(x - y) / Math.max(Math.abs(x), Math.abs(y));
}

export interface Comparison {
  equal: boolean;
  /** Largest relative difference among values counted as equal. */
  maxRelative: number;
  /** Why not equal: a short, human-readable reason. */
  reason: string | undefined;
}

/**
 * Compares `got` with the reference `want`. Series are matched by labels; with `ordered` the
 * series must also come in the same order (topk, sort on instant queries).
 */
export function compareAnswers(want: Answer, got: Answer, ordered: boolean): Comparison {
  if (want.resultType !== got.resultType) {
    return {
      equal: false,
      maxRelative: 0,
      reason: `result type ${got.resultType}, want ${want.resultType}`,
    };
  }
  const reasons: string[] = [];
  const wantBy = new Map(want.series.map((s) => [s.key, s]));
  const gotBy = new Map(got.series.map((s) => [s.key, s]));
  const missing = want.series.filter((s) => !gotBy.has(s.key));
  const extra = got.series.filter((s) => !wantBy.has(s.key));
  if (missing.length > 0) {
    reasons.push(`${missing.length} series missing (e.g. ${missing[0]?.key ?? ''})`);
  }
  if (extra.length > 0) reasons.push(`${extra.length} extra series (e.g. ${extra[0]?.key ?? ''})`);
  if (ordered && missing.length === 0 && extra.length === 0) {
    const at = want.series.findIndex((s, i) => got.series[i]?.key !== s.key);
    if (at >= 0) reasons.push(`order differs from position ${at + 1}`);
  }
  let tsDiff = 0;
  let tsExample = '';
  let valueDiff = 0;
  let valueExample = '';
  let maxRelative = 0;
  let worst = 0;
  for (const w of want.series) {
    const g = gotBy.get(w.key);
    if (g === undefined) continue;
    const sameTimes =
      g.points.length === w.points.length && w.points.every((p, i) => g.points[i]?.[0] === p[0]);
    if (!sameTimes) {
      tsDiff++;
      if (tsExample === '') {
        tsExample = `${w.key}: ${g.points.length} points ${span(g.points)}, want ${w.points.length} ${span(w.points)}`;
      }
      continue;
    }
    w.points.forEach(([t, v], i) => {
      const gv = (g.points[i] as Point)[1];
      const rel = relativeDifference(v, gv);
      if (rel <= RELATIVE_TOLERANCE) {
        maxRelative = Math.max(maxRelative, rel);
        return;
      }
      valueDiff++;
      if (rel > worst || valueExample === '') {
        worst = Math.max(worst, rel);
        valueExample = `${w.key} @${t}: ${gv}, want ${v}`;
      }
    });
  }
  if (tsDiff > 0) reasons.push(`timestamps differ in ${tsDiff} series (e.g. ${tsExample})`);
  if (valueDiff > 0) {
    reasons.push(
      `${valueDiff} values differ (max rel. ${worst === Infinity ? 'inf' : worst.toExponential(1)}, e.g. ${valueExample})`,
    );
  }
  return {
    equal: reasons.length === 0,
    maxRelative,
    reason: reasons.length === 0 ? undefined : reasons.join('; '),
  };
}

function span(points: readonly Point[]): string {
  if (points.length === 0) return '[]';
  return `[${points[0]?.[0]}…${points[points.length - 1]?.[0]}]`;
}

/** Median of `values` (mean of the middle two when even); NaN when empty. */
export function medianOf(values: readonly number[]): number {
  if (values.length === 0) return NaN;
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1
    ? (s[mid] as number)
    : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
}
