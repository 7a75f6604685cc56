import type { ModelVector } from './model_query.js';

/** One series of a `querier.Select` answer as the reader recorded it. */
export interface ReadSeries {
  key: string;
  labels: [string, string][];
  timestamps: number[];
  values: number[];
}

/** The final read of one tenant: every series it has, after the faults healed. */
export interface FinalRead {
  tenant: string;
  startedAt: number;
  answeredAt: number;
  attempts: number;
  series: ReadSeries[];
}

export interface QueryAnswer {
  /** Index of the query in the scenario's `reader.queries`. */
  query: number;
  /** Evaluation time (absolute ms). */
  atMs: number;
  startedAt: number;
  answeredAt: number;
  result?: ModelVector;
  error?: string;
}

/**
 * What the reader observed, recorded in the harness (outside every process) so `check()`
 * only compares recorded answers and never runs simulated code.
 */
export class ReadLog {
  readonly finalReads = new Map<string, FinalRead>();
  /** Last error per tenant while the final read was still failing. */
  readonly finalReadErrors = new Map<string, string>();
  readonly queryAnswers: QueryAnswer[] = [];
  /** The query mix issued during the run (answers not judged, only counted). */
  mixOk = 0;
  mixFailed = 0;
}
