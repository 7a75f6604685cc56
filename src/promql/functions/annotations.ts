// The annotation texts functions.go emits, exactly as Prometheus's util/annotations prints
// them (prefix, wording, Go %q / %g renderings), plus the position suffix of the argument
// they point at (see position.ts).
import { formatFloatG, goQuote } from '../../model/index.js';
import type { EvalNodeHelper } from '../function_call.js';
import type { Expr } from '../parser/ast.js';
import { positionSuffix } from './position.js';

const WARNING = 'PromQL warning';
const INFO = 'PromQL info';

/** Prometheus's maybeAddMetricName: ` for metric name "x"` only when the name is known. */
function maybeAddMetricName(text: string, metricName: string): string {
  return metricName === '' ? text : `${text} for metric name ${goQuote(metricName)}`;
}

function warn(enh: EvalNodeHelper, text: string, at: Expr | undefined): void {
  enh.annotations.add('warning', `${WARNING}: ${text}${positionSuffix(enh, at)}`);
}

function info(enh: EvalNodeHelper, text: string, at: Expr | undefined): void {
  enh.annotations.add('info', `${INFO}: ${text}${positionSuffix(enh, at)}`);
}

/** NewInvalidQuantileWarning. */
export function addInvalidQuantileWarning(
  enh: EvalNodeHelper,
  q: number,
  at: Expr | undefined,
): void {
  warn(enh, `quantile value should be between 0 and 1, got ${formatFloatG(q)}`, at);
}

/** NewBadBucketLabelWarning. */
export function addBadBucketLabelWarning(
  enh: EvalNodeHelper,
  metricName: string,
  label: string,
  at: Expr | undefined,
): void {
  warn(
    enh,
    maybeAddMetricName(
      `bucket label "le" is missing or has a malformed value of ${goQuote(label)}`,
      metricName,
    ),
    at,
  );
}

/**
 * NewHistogramQuantileForcedMonotonicityInfo. Prometheus appends merged statistics (bucket
 * range, max diff, sample count, time range) when it renders the query's annotations; the
 * message-keyed Annotations contract cannot merge per-step statistics, so only the base text
 * (what Prometheus's Error() prints without a query) plus the position is produced.
 */
export function addForcedMonotonicityInfo(
  enh: EvalNodeHelper,
  metricName: string,
  at: Expr | undefined,
): void {
  info(
    enh,
    maybeAddMetricName(
      'input to histogram_quantile needed to be fixed for monotonicity (see https://prometheus.io/docs/prometheus/latest/querying/functions/#histogram_quantile)',
      metricName,
    ),
    at,
  );
}
