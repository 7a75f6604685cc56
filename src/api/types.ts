/**
 * What the query API needs from the component that registers it: per-tenant storage, the
 * engines, optional metadata and exemplar sources, build information and a clock.
 */
import type { Labels, Matcher } from '../model/index.js';
import type { PromQLEngine, Queryable } from '../promql/index.js';
import type { Clock, Logger } from '../runtime/index.js';

/** One metric family's metadata as scraped (Prometheus scrape.MetricMetadata). */
export interface MetricMetadata {
  readonly metricFamily: string;
  /** `counter`, `gauge`, `histogram`, `gaugehistogram`, `summary`, `info`, `stateset`, `unknown`. */
  readonly type: string;
  readonly help: string;
  readonly unit: string;
}

/** Where `/api/v1/metadata` reads from (in Cortex: the ingesters' metadata). */
export interface MetadataSource {
  /** Every metadata entry known for the tenant; duplicates are fine (the API dedupes). */
  metricMetadata(tenant: string, signal: AbortSignal): Promise<readonly MetricMetadata[]>;
}

export interface Exemplar {
  readonly labels: Labels;
  readonly value: number;
  /** ms since the epoch. */
  readonly ts: number;
}

/** The exemplars of one series (Prometheus exemplar.QueryResult). */
export interface ExemplarQueryResult {
  readonly seriesLabels: Labels;
  readonly exemplars: readonly Exemplar[];
}

/** Where `/api/v1/query_exemplars` reads from (Prometheus storage.ExemplarQuerier). */
export interface ExemplarSource {
  /**
   * Exemplars in [start, end] (ms) of series matching any of the matcher sets (one per
   * selector of the query).
   */
  select(
    tenant: string,
    start: number,
    end: number,
    matcherSets: readonly (readonly Matcher[])[],
    signal: AbortSignal,
  ): Promise<readonly ExemplarQueryResult[]>;
}

/** `/api/v1/status/buildinfo` (Prometheus PrometheusVersion; `goVersion` names the runtime). */
export interface BuildInfo {
  readonly version: string;
  readonly revision: string;
  readonly branch: string;
  readonly buildUser: string;
  readonly buildDate: string;
  readonly goVersion: string;
}

/** The engines by name; the alternative engine is optional. */
export interface Engines {
  readonly prometheus: PromQLEngine;
  readonly thanos?: PromQLEngine;
}

export interface PrometheusApiDeps {
  /** The storage of one tenant; `signal` (the request's) cancels what its queriers start. */
  readonly queryable: (tenant: string, signal?: AbortSignal) => Queryable;
  readonly engines: Engines;
  readonly metadata?: MetadataSource;
  readonly exemplars?: ExemplarSource;
  readonly buildInfo: BuildInfo;
  /** `time` defaults to now; `timeout` deadlines run on it. */
  readonly clock: Clock;
  /** Unexpected (uncoded) failures are logged here. */
  readonly logger?: Logger;
  /**
   * Lookback delta in ms for queries without `lookback_delta` (e.g. the querier's
   * `-querier.lookback-delta`); absent means the engine's own default.
   */
  readonly lookbackDelta?: number;
  /** Points per series a range query may produce (Prometheus: 11,000). */
  readonly maxPointsPerSeries?: number;
  /** The module named on the index page (default `querier`). */
  readonly module?: string;
}
