// What every PromQL engine offers its callers (the HTTP API, the conformance runner, the
// ruler later). Two engines implement it — the default engine and the vectorised alternative
// selected by `X-PromQL-EngineType: thanos` — and must give identical answers.
import type { Annotations } from './annotations.js';
import type { Expr } from './parser/ast.js';
import type { Queryable } from './storage.js';
import type { QueryValue } from './value.js';

export interface EngineOptions {
  /** How far back an instant selector looks for a sample, ms (Prometheus default 5m). */
  readonly lookbackDelta: number;
  /**
   * Maximum samples a query may hold in memory at once (Prometheus -query.max-samples, 50e6
   * there; 10e6 here, what a default Node heap holds at about half: docs/querier.md
   * "Memory bounds").
   */
  readonly maxSamples: number;
  /** Query timeout in ms (Prometheus -query.timeout, 2m); 0 disables. */
  readonly timeout: number;
  /** Default subquery step for `[range:]`, given the subquery range (Prometheus: the global evaluation interval, 1m). */
  readonly noStepSubqueryIntervalFn: (rangeMs: number) => number;
  /** Enables functions Prometheus gates behind `--enable-feature=promql-experimental-functions`. */
  readonly enableExperimentalFunctions: boolean;
  /**
   * Prometheus's `--enable-feature=promql-delayed-name-removal` (experimental, off by
   * default; its test engine turns it on): `__name__` is only marked for removal where an
   * operation changes a series' meaning and removed when the result leaves the engine, so
   * e.g. `label_replace` after `rate()` still sees it. Off: removed immediately, as
   * Prometheus does by default.
   */
  readonly enableDelayedNameRemoval: boolean;
}

export const DEFAULT_ENGINE_OPTIONS: EngineOptions = {
  lookbackDelta: 5 * 60 * 1000,
  maxSamples: 10_000_000,
  timeout: 2 * 60 * 1000,
  noStepSubqueryIntervalFn: () => 60 * 1000,
  enableExperimentalFunctions: true,
  enableDelayedNameRemoval: false,
};

export interface QueryOptions {
  /** Overrides the engine's lookback delta for this query (API parameter `lookback_delta`). */
  readonly lookbackDelta?: number;
  /** Cancels the query; the engine checks it between steps and storage calls. */
  readonly signal?: AbortSignal;
  /**
   * This query's timeout in ms (API parameter `timeout`); the effective deadline is the
   * smaller of it and the engine's own timeout, as Prometheus derives it from both contexts.
   */
  readonly timeout?: number;
  /**
   * The caller only writes the result out as the HTTP API does: an engine that evaluates
   * elsewhere may then answer with `QueryResult.encoded` (see there).
   */
  readonly encodeResult?: boolean;
}

/**
 * A vector's or matrix's elements already written as the HTTP API writes them: their JSON
 * texts joined by commas in UTF-8, and the byte offset in `bytes` where each element ends.
 * An engine that evaluates on another thread answers so when asked
 * (`QueryOptions.encodeResult`): encoding there spares the caller's thread decoding and
 * encoding what may be megabytes, and bytes cross and are written out without a copy.
 */
export interface EncodedElements {
  readonly bytes: Uint8Array<ArrayBuffer>;
  readonly ends: Uint32Array<ArrayBuffer>;
}

/** Counters the API returns with `stats=all` (Prometheus stats.QueryStats subset). */
export interface QueryStats {
  totalQueryableSamples: number;
  peakSamples: number;
  /** Which engine answered, and for the alternative engine which nodes fell back to the default. */
  engine: 'prometheus' | 'thanos';
  fallbackNodes?: string[];
}

export interface QueryResult {
  readonly value: QueryValue;
  readonly annotations: Annotations;
  readonly stats: QueryStats;
  /**
   * Only when asked for (`QueryOptions.encodeResult`) and only for vectors and matrices:
   * the elements encoded; `value` then has their type but no elements.
   */
  readonly encoded?: EncodedElements;
}

export interface PromQLEngine {
  /** Evaluates `query` at `time` (ms). Throws PromQLError (parse errors are `bad_data`). */
  instantQuery(
    queryable: Queryable,
    query: string | Expr,
    time: number,
    options?: QueryOptions,
  ): Promise<QueryResult>;
  /** Evaluates `query` at start, start+step, … ≤ end (all ms). Result is always a matrix. */
  rangeQuery(
    queryable: Queryable,
    query: string | Expr,
    start: number,
    end: number,
    step: number,
    options?: QueryOptions,
  ): Promise<QueryResult>;
}
