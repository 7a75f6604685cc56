import type { QuerySpec } from './config.js';
import { seriesKey } from './generator.js';

/** The default `querier.lookback_delta`: an instant selector sees the newest sample in (t − 5m, t]. */
export const LOOKBACK_MS = 5 * 60_000;

/** One series of the data a query runs over: its labels and its samples by timestamp. */
export interface ModelSeries {
  labels: readonly (readonly [string, string])[];
  points: ReadonlyMap<number, number>;
}

/** The part of a series a query at `atMs` reads: its range and its lookback, (after, until]. */
export interface QueryWindow {
  afterMs: number;
  untilMs: number;
}

export function queryWindow(spec: QuerySpec, atMs: number): QueryWindow {
  return { afterMs: atMs - Math.max(spec.rangeMs, LOOKBACK_MS), untilMs: atMs };
}

/** An instant vector: output series key (labels without `__name__`) → value. */
export type ModelVector = Map<string, number>;

function withoutName(labels: readonly (readonly [string, string])[]): [string, string][] {
  return labels.filter(([n]) => n !== '__name__').map(([n, v]) => [n, v]);
}

function nameOf(labels: readonly (readonly [string, string])[]): string | undefined {
  for (const [n, v] of labels) if (n === '__name__') return v;
  return undefined;
}

/**
 * The points in time order. The model's series are built in time order already, so they
 * are only copied and sorted when they are not.
 */
function inTimeOrder(points: ReadonlyMap<number, number>): Iterable<readonly [number, number]> {
  let prev = Number.NEGATIVE_INFINITY;
  for (const ts of points.keys()) {
    if (!(ts > prev)) return [...points].sort((a, b) => a[0] - b[0]);
    prev = ts;
  }
  return points;
}

/**
 * Evaluates one of the workload's query kinds at `atMs` over `data`, as Prometheus would:
 * range selectors cover the left-open window (t − range, t]; instant selectors take the
 * newest sample in (t − lookback, t]; aggregations without `by` yield one `{}` series, and
 * nothing when no input series exists.
 */
export function evaluateQuery(
  spec: QuerySpec,
  atMs: number,
  data: Iterable<ModelSeries>,
): ModelVector {
  const perSeries: { labels: [string, string][]; inRange: number[]; latest: number | undefined }[] =
    [];
  for (const s of data) {
    if (nameOf(s.labels) !== spec.metric) continue;
    const inRange: number[] = [];
    let latestTs = Number.NEGATIVE_INFINITY;
    let latest: number | undefined;
    for (const [ts, v] of inTimeOrder(s.points)) {
      if (ts > atMs - spec.rangeMs && ts <= atMs) inRange.push(v);
      if (ts > atMs - LOOKBACK_MS && ts <= atMs && ts > latestTs) {
        latestTs = ts;
        latest = v;
      }
    }
    perSeries.push({ labels: withoutName(s.labels), inRange, latest });
  }
  const out: ModelVector = new Map();
  const total = (values: number[]): number => values.reduce((a, b) => a + b, 0);
  switch (spec.kind) {
    case 'count_over_time':
    case 'sum_over_time':
    case 'max_over_time':
      for (const s of perSeries) {
        if (s.inRange.length === 0) continue;
        const v =
          spec.kind === 'count_over_time'
            ? s.inRange.length
            : spec.kind === 'sum_over_time'
              ? total(s.inRange)
              : Math.max(...s.inRange);
        out.set(seriesKey(s.labels), v);
      }
      return out;
    case 'sum_count_over_time': {
      const counted = perSeries.filter((s) => s.inRange.length > 0);
      if (counted.length > 0) out.set('{}', total(counted.map((s) => s.inRange.length)));
      return out;
    }
    case 'sum':
    case 'count': {
      const seen = perSeries.filter((s) => s.latest !== undefined);
      if (seen.length > 0)
        out.set('{}', spec.kind === 'count' ? seen.length : total(seen.map((s) => s.latest!)));
      return out;
    }
  }
}

/**
 * Reads a Prometheus API `data` object of an instant query (`{resultType: 'vector',
 * result: [{metric, value: [t, "v"]}]}`) into a ModelVector; a bad shape throws.
 */
export function parseVectorResult(data: unknown): ModelVector {
  const d = data as { resultType?: unknown; result?: unknown };
  if (d === null || typeof d !== 'object' || d.resultType !== 'vector' || !Array.isArray(d.result))
    throw new Error(`expected a vector result, got ${JSON.stringify(data).slice(0, 200)}`);
  const out: ModelVector = new Map();
  for (const item of d.result as unknown[]) {
    const it = item as { metric?: unknown; value?: unknown };
    if (
      it === null ||
      typeof it !== 'object' ||
      it.metric === null ||
      typeof it.metric !== 'object' ||
      !Array.isArray(it.value) ||
      typeof it.value[1] !== 'string'
    )
      throw new Error(`bad vector sample ${JSON.stringify(item).slice(0, 200)}`);
    const pairs = Object.entries(it.metric as Record<string, unknown>).map(
      ([n, v]) => [n, String(v)] as [string, string],
    );
    out.set(seriesKey(pairs), Number(it.value[1]));
  }
  return out;
}

/** Differences between an answer and the model's, as readable lines (empty: equal). */
export function diffVectors(got: ModelVector, want: ModelVector): string[] {
  const lines: string[] = [];
  for (const [k, v] of want) {
    const g = got.get(k);
    if (g === undefined) lines.push(`missing ${k} (model: ${v})`);
    else if (!Object.is(g, v) && !(Number.isNaN(g) && Number.isNaN(v)))
      lines.push(`${k} = ${g}, model says ${v}`);
  }
  for (const [k, v] of got) if (!want.has(k)) lines.push(`unexpected ${k} = ${v}`);
  return lines;
}
