/**
 * Reading raw samples back through a Strata querier (or Prometheus): an instant query of a
 * range selector returns every stored sample in the range, unresampled, which is what the
 * acknowledged-write checks compare with their ledger.
 */
import { PrometheusApi } from '../services/prometheus.js';

/** Strata's PromQL API for a tenant (`<url>/prometheus`, `X-Scope-OrgID` when given). */
export function strataApi(baseUrl: string, tenant?: string): PrometheusApi {
  return new PrometheusApi(
    `${baseUrl}/prometheus`,
    tenant === undefined ? {} : { 'X-Scope-OrgID': tenant },
  );
}

/**
 * The raw samples of `selector` in `(atMs - rangeMs, atMs]`, per value of `byLabel`, as
 * `[timestamp ms, value]` in answer order.
 */
export async function rawSamples(
  api: PrometheusApi,
  selector: string,
  atMs: number,
  rangeMs: number,
  byLabel: string,
): Promise<Map<string, [number, number][]>> {
  const { data } = await api.query(`${selector}[${Math.ceil(rangeMs / 1000)}s]`, atMs);
  if (data.resultType !== 'matrix') throw new Error(`expected a matrix, got ${data.resultType}`);
  const out = new Map<string, [number, number][]>();
  for (const s of data.result) {
    const key = s.metric[byLabel] ?? '';
    if (out.has(key)) throw new Error(`two series with ${byLabel}=${key} in the answer`);
    out.set(
      key,
      s.values.map(([t, v]) => [Math.round(t * 1000), Number(v)]),
    );
  }
  return out;
}
