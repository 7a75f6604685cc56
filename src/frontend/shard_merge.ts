/**
 * Puts the shards' answers of a sharded range query back together.
 *
 * Grouped aggregations (`by`/`without`) were sharded by their grouping labels: every output
 * series was computed wholly by one shard, exactly as the unsharded query computes it (the
 * same series in the same order), so the answer is the shards' series sorted by labels.
 *
 * Ungrouped aggregations are re-aggregated per step over the shards' one-series answers:
 * `count` adds counts (exact: integers), `min`/`max` apply Prometheus's rule (a NaN is
 * replaced by any number; exact), `sum` adds the shards' sums with Kahan compensation in
 * shard order, `avg` divides that sum by the summed count, and `topk`/`bottomk` keep the k
 * best of the shards' k+1 candidates each — unless values tie at the k-th place, where the
 * series Prometheus keeps depends on its heap over every series: then there is no merged
 * answer and the query runs whole. So does a zero `min`/`max` whose sign the shards
 * disagree on (Prometheus keeps the first of +0 and -0). What can differ from the unsharded
 * query, as docs/query-frontend.md says: the last bits of an ungrouped `sum`/`avg` of
 * non-integers (floats added in another order).
 */
import { Labels } from '../model/index.js';
import type { FPoint } from '../promql/index.js';
import { kahanInc } from '../promql/functions/index.js';
import type { ShardPlan } from './shard_rewrite.js';
import { EMPTY_HEADERS, type RangeResponse, type RangeSeries } from './range_response.js';

/**
 * Response headers of all shards, each value once: a `Cache-Control: no-store` from any
 * shard must keep the merged answer out of the results cache in front.
 */
function mergedHeaders(
  responses: readonly RangeResponse[],
): ReadonlyMap<string, readonly string[]> {
  const out = new Map<string, string[]>();
  for (const r of responses) {
    for (const [name, values] of r.headers) {
      const list = out.get(name) ?? [];
      for (const v of values) if (!list.includes(v)) list.push(v);
      out.set(name, list);
    }
  }
  return out.size === 0 ? EMPTY_HEADERS : out;
}

/** Warnings and infos of all shards, each once, in shard order. */
function annotations(responses: readonly RangeResponse[]): { warnings: string[]; infos: string[] } {
  const warnings = new Set<string>();
  const infos = new Set<string>();
  for (const r of responses) {
    for (const w of r.warnings) warnings.add(w);
    for (const i of r.infos) infos.add(i);
  }
  return { warnings: [...warnings], infos: [...infos] };
}

function sorted(series: RangeSeries[]): RangeSeries[] {
  return series.sort((a, b) => Labels.compare(a.metric, b.metric));
}

/** Each shard's only series (an ungrouped aggregation answers with at most one) by step. */
function byStep(response: RangeResponse | undefined): Map<number, number> {
  const out = new Map<number, number>();
  for (const s of response?.series ?? []) for (const p of s.floats) out.set(p.t, p.f);
  return out;
}

function stepsOf(maps: readonly Map<number, number>[]): number[] {
  const steps = new Set<number>();
  for (const m of maps) for (const t of m.keys()) steps.add(t);
  return [...steps].sort((a, b) => a - b);
}

/** The combined value, or undefined when the shards cannot tell it (the query runs whole). */
type Combine = (values: readonly number[]) => number | undefined;

/**
 * Prometheus keeps the first of equal minima (maxima), so a zero result has the sign of the
 * first zero in the series order, which shards only know within themselves: zeros of both
 * signs among the shards' answers leave it open.
 */
function signedZeroKnown(result: number, values: readonly number[]): boolean {
  if (result !== 0) return true;
  const zeros = values.filter((v) => v === 0);
  return zeros.every((z) => Object.is(z, zeros[0]));
}

function extreme(values: readonly number[], better: (a: number, b: number) => boolean) {
  const r = values.reduce((m, v) => (better(v, m) || Number.isNaN(m) ? v : m));
  return signedZeroKnown(r, values) ? r : undefined;
}

const COMBINERS: Readonly<Record<'sum' | 'count' | 'min' | 'max', Combine>> = {
  sum: (vs) => {
    let s = 0;
    let c = 0;
    for (const v of vs) [s, c] = kahanInc(v, s, c);
    // Prometheus adds the compensation last.
    return s + c;
  },
  count: (vs) => vs.reduce((a, b) => a + b, 0),
  min: (vs) => extreme(vs, (v, m) => m > v),
  max: (vs) => extreme(vs, (v, m) => m < v),
};

/** One unlabelled series: at each step, `combine` over the shards that answered it. */
function reaggregate(
  shards: readonly RangeResponse[],
  combine: Combine,
): RangeSeries[] | undefined {
  const maps = shards.map(byStep);
  const floats: FPoint[] = [];
  for (const t of stepsOf(maps)) {
    const vs: number[] = [];
    for (const m of maps) {
      const v = m.get(t);
      if (v !== undefined) vs.push(v);
    }
    const f = combine(vs);
    if (f === undefined) return undefined;
    floats.push({ t, f });
  }
  return floats.length === 0 ? [] : [{ metric: Labels.EMPTY, floats }];
}

function average(sums: readonly RangeResponse[], counts: readonly RangeResponse[]): RangeSeries[] {
  const [sum] = reaggregate(sums, COMBINERS.sum) ?? [];
  const [count] = reaggregate(counts, COMBINERS.count) ?? [];
  if (sum === undefined || count === undefined) return [];
  const n = new Map(count.floats.map((p) => [p.t, p.f]));
  const floats = sum.floats.map((p) => ({ t: p.t, f: p.f / (n.get(p.t) as number) }));
  return [{ metric: Labels.EMPTY, floats }];
}

interface Candidate {
  readonly metric: Labels;
  readonly f: number;
}

function tie(a: number, b: number): boolean {
  return a === b || (Number.isNaN(a) && Number.isNaN(b));
}

/**
 * topk/bottomk of the shards' candidates, per step; undefined when a tie makes the choice
 * depend on Prometheus's heap layout over all series (the caller then runs the query
 * whole). Without such a tie the k best values belong to a unique set of series, which the
 * engine's heap picks whatever the order. Each shard answered its k+1 best, so a tie is
 * always visible: a series a shard dropped is no better than that shard's (k+1)-th, which
 * is either worse than the k-th value overall or ties it in plain sight.
 */
function selectK(
  shards: readonly RangeResponse[],
  k: number,
  top: boolean,
): RangeSeries[] | undefined {
  const atStep = new Map<number, Candidate[]>();
  for (const r of shards) {
    for (const s of r.series) {
      for (const p of s.floats) {
        let list = atStep.get(p.t);
        if (list === undefined) atStep.set(p.t, (list = []));
        list.push({ metric: s.metric, f: p.f });
      }
    }
  }
  // Best first; NaN is the worst value for both (Prometheus's heaps put it at the root).
  const rank = (f: number): number => (Number.isNaN(f) ? -Infinity : top ? f : -f);
  const out = new Map<Labels, FPoint[]>();
  for (const [t, candidates] of atStep) {
    const best = candidates.sort(
      (a, b) => rank(b.f) - rank(a.f) || (Number.isNaN(a.f) ? 1 : 0) - (Number.isNaN(b.f) ? 1 : 0),
    );
    const chosen = best.slice(0, k);
    const kth = chosen[chosen.length - 1] as Candidate;
    const next = best[k];
    if (next !== undefined && tie(next.f, kth.f)) return undefined;
    for (const c of chosen) {
      let points = out.get(c.metric);
      if (points === undefined) out.set(c.metric, (points = []));
      points.push({ t, f: c.f });
    }
  }
  for (const points of out.values()) points.sort((a, b) => a.t - b.t);
  return sorted([...out].map(([metric, floats]) => ({ metric, floats })));
}

/**
 * The answer of a sharded query from its shards' answers: `parts[i][j]` answers partial
 * query i (avg has two: sum and count) of shard j.
 */
export function mergeShardResponses(
  plan: ShardPlan,
  parts: readonly (readonly RangeResponse[])[],
): RangeResponse | undefined {
  const first = parts[0] ?? [];
  let series: RangeSeries[] | undefined;
  if (plan.grouped) series = sorted(first.flatMap((r) => [...r.series]));
  else if (plan.op === 'avg') series = average(first, parts[1] ?? []);
  else if (plan.op === 'topk' || plan.op === 'bottomk') {
    series = selectK(first, plan.k ?? 1, plan.op === 'topk');
  } else series = reaggregate(first, COMBINERS[plan.op]);
  if (series === undefined) return undefined;
  const all = parts.flat();
  return { series, ...annotations(all), headers: mergedHeaders(all) };
}
