/**
 * `/api/v1/metadata`, `/api/v1/query_exemplars` and `/api/v1/status/buildinfo` (Prometheus
 * web/api/v1 metricMetadata, queryExemplars, serveBuildInfo). Metadata and exemplars come
 * from optional sources; without one the answer is empty, as from a Prometheus that has
 * scraped nothing.
 */
import { compareGoStrings, type Matcher } from '../model/index.js';
import type { Expr } from '../promql/index.js';
import { inspect, parseExpr } from '../promql/parser/index.js';
import { encodeLabels } from './encode.js';
import { badData, param } from './errors.js';
import { goAtoi } from './go_parse.js';
import type { ApiContext, ApiResult } from './handler.js';
import { jsonString, sampleTimestamp, sampleValue } from './json.js';
import { MAX_TIME_NS, MIN_TIME_NS, nsToMs, parseTimeParam } from './params.js';
import type { BuildInfo, ExemplarQueryResult, MetricMetadata, PrometheusApiDeps } from './types.js';

/** `limit` / `limit_per_metric` of the metadata endpoint: -1 (none) when empty. */
function intParam(ctx: ApiContext, name: string): number {
  const s = ctx.form.get(name);
  if (s === '') return -1;
  const r = goAtoi(s);
  if (!r.ok) throw badData(`${name} must be a number`);
  return r.value;
}

type Meta = Omit<MetricMetadata, 'metricFamily'>;

export async function metricMetadata(ctx: ApiContext, deps: PrometheusApiDeps): Promise<ApiResult> {
  const limit = intParam(ctx, 'limit');
  const limitPerMetric = intParam(ctx, 'limit_per_metric');
  const metric = ctx.form.get('metric');
  const entries = (await deps.metadata?.metricMetadata(ctx.tenant, ctx.signal)) ?? [];
  // family → unique metadata (Prometheus keeps a set per family).
  const families = new Map<string, Map<string, Meta>>();
  for (const e of entries) {
    if (metric !== '' && e.metricFamily !== metric) continue;
    let set = families.get(e.metricFamily);
    if (limitPerMetric > 0 && set !== undefined && set.size >= limitPerMetric) continue;
    if (set === undefined) {
      set = new Map();
      families.set(e.metricFamily, set);
    }
    const m: Meta = { type: e.type, help: e.help, unit: e.unit };
    set.set(JSON.stringify([m.type, m.help, m.unit]), m);
  }
  // Go ranges over a map here, so which families survive `limit` is unspecified there; we
  // keep the first ones in name order. The JSON object is sorted by name either way.
  const names = [...families.keys()].sort(compareGoStrings);
  const kept = limit >= 0 ? names.slice(0, limit) : names;
  const parts = kept.map((name) => {
    const list = [...(families.get(name)?.values() ?? [])].map(
      (m) =>
        // Prometheus's metadata.Metadata field order: type, unit, help.
        `{"type":${jsonString(m.type)},"unit":${jsonString(m.unit)},"help":${jsonString(m.help)}}`,
    );
    return `${jsonString(name)}:[${list.join(',')}]`;
  });
  return { data: `{${parts.join(',')}}` };
}

/** Prometheus parser.ExtractSelectors: the matchers of every vector selector, in order. */
export function extractSelectors(expr: Expr): (readonly Matcher[])[] {
  const out: (readonly Matcher[])[] = [];
  inspect(expr, (node) => {
    if (node.type === 'VectorSelector') out.push(node.labelMatchers);
  });
  return out;
}

function encodeExemplarResults(results: readonly ExemplarQueryResult[]): string {
  const parts = results.map((r) => {
    const exemplars = r.exemplars.map(
      (e) =>
        `{"labels":${encodeLabels(e.labels)},"value":${sampleValue(e.value)},"timestamp":${sampleTimestamp(e.ts)}}`,
    );
    return `{"seriesLabels":${encodeLabels(r.seriesLabels)},"exemplars":[${exemplars.join(',')}]}`;
  });
  return `[${parts.join(',')}]`;
}

export async function queryExemplars(ctx: ApiContext, deps: PrometheusApiDeps): Promise<ApiResult> {
  const start = param('start', () => parseTimeParam(ctx.form.get('start'), 'start', MIN_TIME_NS));
  const end = param('end', () => parseTimeParam(ctx.form.get('end'), 'end', MAX_TIME_NS));
  if (end < start) throw badData('end timestamp must not be before start timestamp');
  let expr: Expr;
  try {
    expr = parseExpr(ctx.form.get('query'));
  } catch (err) {
    throw badData((err as Error).message);
  }
  const selectors = extractSelectors(expr);
  if (selectors.length === 0) return { noContent: true };
  const results =
    (await deps.exemplars?.select(ctx.tenant, nsToMs(start), nsToMs(end), selectors, ctx.signal)) ??
    [];
  return { data: encodeExemplarResults(results) };
}

export function buildInfo(info: BuildInfo): ApiResult {
  const fields: (keyof BuildInfo)[] = [
    'version',
    'revision',
    'branch',
    'buildUser',
    'buildDate',
    'goVersion',
  ];
  return { data: `{${fields.map((f) => `"${f}":${jsonString(info[f])}`).join(',')}}` };
}
