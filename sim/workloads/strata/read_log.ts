import type { ModelVector } from './model_query.js';

/** One series of a `querier.Select` answer as the reader recorded it. */
export interface ReadSeries {
  key: string;
  labels: [string, string][];
  timestamps: number[];
  values: number[];
}

/** One read of a tenant: every series it has (the final read, or an earlier read phase). */
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

/** Whole reads of every tenant at one moment: a read phase, or the final reads. */
export interface ReadRound {
  /** How reports name it, e.g. `read phase at +5m0s` or `final read`. */
  label: string;
  reads: Map<string, FinalRead>;
  /** Last error per tenant while its read was still failing. */
  errors: Map<string, string>;
}

/**
 * What the reader observed, recorded in the harness (outside every process) so `check()`
 * only compares recorded answers and never runs simulated code.
 */
export class ReadLog {
  readonly finalReads = new Map<string, FinalRead>();
  /** Last error per tenant while the final read was still failing. */
  readonly finalReadErrors = new Map<string, string>();
  /** The read phases before the final reads, in time order. */
  readonly phases: ReadRound[] = [];

  /** Every round, the final reads last. */
  rounds(): ReadRound[] {
    return [
      ...this.phases,
      { label: 'final read', reads: this.finalReads, errors: this.finalReadErrors },
    ];
  }
  readonly queryAnswers: QueryAnswer[] = [];
  /** The query mix issued during the run (answers not judged, only counted). */
  mixOk = 0;
  mixFailed = 0;
}
