/**
 * Asks one question (a query at instant times, or over a range) of Prometheus's HTTP API
 * and of a Strata engine, and turns both answers, errors included, into comparable form.
 */
import type { PromQLEngine, Queryable } from '../../src/promql/index.js';
import { PrometheusApiError, type PrometheusApi } from '../services/prometheus.js';
import {
  diffResults,
  normalizeApi,
  normalizeStrata,
  type NormResult,
  type OrderRule,
} from './results.js';

/** A result, or the errorType and message of a failed query. */
export type Answer =
  { ok: true; result: NormResult } | { ok: false; errorType: string; error: string };

export type Question =
  | { readonly kind: 'instant'; readonly time: number }
  | { readonly kind: 'range'; readonly start: number; readonly end: number; readonly step: number };

export function describeQuestion(q: Question): string {
  return q.kind === 'instant' ? `instant @${q.time}` : `range ${q.start}..${q.end} step ${q.step}`;
}

export async function askPrometheus(
  api: PrometheusApi,
  query: string,
  q: Question,
): Promise<Answer> {
  try {
    const res =
      q.kind === 'instant'
        ? await api.query(query, q.time)
        : await api.queryRange(query, q.start, q.end, q.step);
    return { ok: true, result: normalizeApi(res.data) };
  } catch (err) {
    if (err instanceof PrometheusApiError) {
      return { ok: false, errorType: err.errorType, error: err.error };
    }
    throw err;
  }
}

export async function askStrata(
  engine: PromQLEngine,
  queryable: Queryable,
  query: string,
  q: Question,
): Promise<Answer> {
  try {
    const res =
      q.kind === 'instant'
        ? await engine.instantQuery(queryable, query, q.time)
        : await engine.rangeQuery(queryable, query, q.start, q.end, q.step);
    return { ok: true, result: normalizeStrata(res.value) };
  } catch (err) {
    const e = err as { errorType?: unknown; message?: unknown };
    return {
      ok: false,
      errorType: typeof e.errorType === 'string' ? e.errorType : 'thrown',
      error: typeof e.message === 'string' ? e.message : String(err),
    };
  }
}

/** What differs between the two answers (empty when they agree). */
export function diffAnswers(prom: Answer, strata: Answer, order: OrderRule = 'none'): string[] {
  if (prom.ok && strata.ok) return diffResults(prom.result, strata.result, order);
  if (!prom.ok && !strata.ok) {
    return prom.errorType === strata.errorType
      ? []
      : [
          `error types: prometheus ${prom.errorType} (${prom.error}), strata ${strata.errorType} (${strata.error})`,
        ];
  }
  if (!prom.ok) return [`prometheus failed (${prom.errorType}: ${prom.error}), strata answered`];
  return [
    `strata failed (${strata.ok ? '' : `${strata.errorType}: ${strata.error}`}), prometheus answered`,
  ];
}
