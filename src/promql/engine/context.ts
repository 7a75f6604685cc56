// State one query shares across all its evaluators (the top level, subqueries, step-invariant
// subtrees): the sample limit and counters, the deadline and the caller's AbortSignal, the
// series each selector loaded, collected annotations, and caches keyed by label set.
import type { Labels } from '../../model/index.js';
import type { Annotations } from '../annotations.js';
import { QueryCanceledError, QueryTimeoutError, TooManySamplesError } from '../errors.js';
import type { FunctionCall } from '../function_call.js';
import type { Expr, PositionRange, VectorSelector } from '../parser/ast.js';
import type { SampleArrays } from '../storage.js';
import { posRangeOf, startPosInput } from '../parser/index.js';
import { StaleMarkerTest } from './util.js';

/** Prometheus's `env` for the sample limit error. */
export const ENV = 'query execution';

/** One selected series with all its samples in the querier's range, stale markers flagged. */
export interface LoadedSeries {
  readonly labels: Labels;
  readonly ts: Float64Array;
  readonly fs: Float64Array;
  /** 1 where the sample is a stale marker; null when the series has none. */
  readonly stale: Uint8Array | null;
  /** The same samples without stale markers (what range selectors see); built on demand. */
  points?: SampleArrays;
}

export interface QueryContextConfig {
  readonly maxSamples: number;
  readonly lookbackDelta: number;
  readonly noStepSubqueryIntervalFn: (rangeMs: number) => number;
  readonly functions: ReadonlyMap<string, FunctionCall>;
  readonly annotations: Annotations;
  /** The query text, for `line:col` in annotations; '' when the caller passed an AST. */
  readonly query: string;
  readonly now: () => number;
  /** Absolute deadline in clock ms; undefined for none. */
  readonly deadline: number | undefined;
  readonly signal: AbortSignal | undefined;
  /** The query is a range query (some functions warn that they are ineffective then). */
  readonly rangeQuery: boolean;
  /**
   * Prometheus's EnableDelayedNameRemoval: names are only marked for dropping and removed at
   * the end. When false they are removed where an operation drops them, and the "same
   * labelset" checks happen there.
   */
  readonly delayedNameRemoval: boolean;
}

export class QueryContext {
  currentSamples = 0;
  peakSamples = 0;
  totalSamples = 0;
  readonly series = new Map<VectorSelector, LoadedSeries[]>();
  readonly stale = new StaleMarkerTest();

  constructor(readonly config: QueryContextConfig) {}

  /** Throws QueryCanceledError / QueryTimeoutError (Prometheus contextDone). */
  checkDone(where = 'expression evaluation'): void {
    const c = this.config;
    if (c.signal?.aborted === true) throw new QueryCanceledError(where);
    if (c.deadline !== undefined && c.now() > c.deadline) throw new QueryTimeoutError(where);
  }

  updatePeak(): void {
    if (this.currentSamples > this.peakSamples) this.peakSamples = this.currentSamples;
  }

  checkSamples(): void {
    if (this.currentSamples > this.config.maxSamples) throw new TooManySamplesError(ENV);
  }

  /** The ` (line:col)` Prometheus appends to an annotation about `pos`, or '' without a query. */
  positionSuffix(pos: PositionRange): string {
    return this.config.query === '' ? '' : ` (${startPosInput(this.config.query, pos.start)})`;
  }

  /** The `line:col` functions print (see the functions' position formatter contract). */
  readonly formatPosition = (e: Expr): string =>
    this.config.query === '' ? '' : startPosInput(this.config.query, posRangeOf(e).start);

  warn(text: string, pos: PositionRange): void {
    this.config.annotations.add('warning', `PromQL warning: ${text}${this.positionSuffix(pos)}`);
  }

  info(text: string, pos: PositionRange): void {
    this.config.annotations.add('info', `PromQL info: ${text}${this.positionSuffix(pos)}`);
  }
}
