// The commands of a parsed test script (Prometheus promql/promqltest test.go): `load`,
// `clear` and `eval`, with everything an eval expects. Times are ms since the epoch; line
// numbers are 1-based.
import type { Labels } from '../../model/index.js';
import type { SequenceValue } from './series_desc.js';

export interface LoadSeries {
  readonly line: number;
  readonly labels: Labels;
  readonly values: SequenceValue[];
}

export interface LoadCmd {
  readonly kind: 'load';
  readonly line: number;
  readonly intervalMs: number;
  /** `load_with_nhcb`: classic histograms are also loaded as native histograms. */
  readonly withNhcb: boolean;
  /** Later lines for the same series replace earlier ones, as in Prometheus. */
  readonly series: LoadSeries[];
  /** Series given start timestamps by `…@st` lines (all of them after a bare `@st` line). */
  readonly startTimestampSeries: Labels[];
  readonly defaultStartTimestamps: boolean;
}

export interface ClearCmd {
  readonly kind: 'clear';
  readonly line: number;
}

/** An `expect <type> [msg:|regex:]…` line: exact message, or a pattern (unanchored). */
export interface ExpectMatcher {
  readonly message?: string;
  readonly regex?: RegExp;
}

export type ExpectType = 'ordered' | 'fail' | 'warn' | 'no_warn' | 'info' | 'no_info';

export interface ExpectedSeries {
  /** Position among the result lines (1-based as Prometheus counts, for `ordered`). */
  readonly pos: number;
  readonly labels: Labels;
  readonly values: SequenceValue[];
}

export interface EvalCmd {
  readonly kind: 'eval';
  readonly line: number;
  readonly expr: string;
  readonly isRange: boolean;
  /** Query start (instant: the evaluation time); for `expect range vector`, its `from`. */
  start: number;
  /** Query end; undefined for an instant query without `expect range vector`. */
  end: number | undefined;
  step: number;
  /** Evaluation time of an instant query. */
  evalTime: number;
  /** Flags of the older `eval_fail` / `eval_warn` / `eval_info` / `eval_ordered` forms. */
  fail: boolean;
  warn: boolean;
  info: boolean;
  ordered: boolean;
  expectedFailMessage: string | undefined;
  expectedFailRegexp: RegExp | undefined;
  readonly expects: Record<ExpectType, ExpectMatcher[]>;
  /** The result is a scalar (`expected` then has the one entry under key ''). */
  expectScalar: boolean;
  /** Expected series by `labels.toString()`. */
  readonly expected: Map<string, ExpectedSeries>;
  expectedString: string | undefined;
  /** Instant queries whose result cannot be compared in range mode (strings, range vectors). */
  excludeFromRangeQuery: boolean;
}

export type ScriptCommand = LoadCmd | ClearCmd | EvalCmd;

export function isOrdered(cmd: EvalCmd): boolean {
  return cmd.ordered || cmd.expects.ordered.length > 0;
}

export function isFail(cmd: EvalCmd): boolean {
  return cmd.fail || cmd.expects.fail.length > 0;
}

/** A script that cannot be parsed: Prometheus rejects the whole file. */
export class ScriptError extends Error {
  constructor(
    readonly file: string,
    readonly line: number,
    readonly detail: string,
  ) {
    super(`${file}:${line}: ${detail}`);
    this.name = 'ScriptError';
  }
}
