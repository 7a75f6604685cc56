// histogram_quantile, histogram_quantiles and histogram_fraction over classic histograms
// (float series with an `le` label), as Prometheus 3 functions.go does them: bucket samples
// are grouped by their labels without `le`; a malformed `le` warns and skips the sample.
// Native histograms never reach these functions (float samples only), and the
// native-histogram-only functions (histogram_count/sum/avg/stddev/stdvar) yield nothing for
// float input, exactly as Prometheus's simpleHistogramFunc does.
import { formatFloatG, parseGoFloat, type Labels } from '../../model/index.js';
import type { EvalNodeHelper, FunctionCall } from '../function_call.js';
import type { Expr } from '../parser/ast.js';
import type { Vector } from '../value.js';
import {
  addBadBucketLabelWarning,
  addForcedMonotonicityInfo,
  addInvalidQuantileWarning,
} from './annotations.js';
import { metricName, scalarArg, withLabel } from './common.js';
import { bucketFraction, bucketQuantile, type Bucket } from './quantile.js';

const BUCKET_LABEL = 'le';
const QUANTILE_LABELS_CACHE = 'histogram:quantileLabels';

interface MetricWithBuckets {
  /** The series' labels without `le` (the name stays, to be dropped later). */
  readonly metric: Labels;
  readonly buckets: Bucket[];
}

/** What a bucket series contributes, computed once per label set and node. */
interface BucketSeries {
  readonly le: string;
  /** The parsed `le`, or undefined when it is missing or malformed. */
  readonly upperBound: number | undefined;
  readonly metric: Labels;
  readonly key: string;
}

const BUCKET_SERIES_CACHE = 'histogram:bucketSeries';

/** Parsing `le` and building the group key per step would dominate range queries. */
function bucketSeries(enh: EvalNodeHelper, metric: Labels): BucketSeries {
  let cache = enh.cache.get(BUCKET_SERIES_CACHE) as Map<Labels, BucketSeries> | undefined;
  if (cache === undefined) {
    cache = new Map();
    enh.cache.set(BUCKET_SERIES_CACHE, cache);
  }
  let info = cache.get(metric);
  if (info === undefined) {
    const le = metric.get(BUCKET_LABEL);
    const parsed = parseGoFloat(le);
    const withoutLe = metric.without(BUCKET_LABEL);
    info = {
      le,
      upperBound: typeof parsed === 'string' ? undefined : parsed,
      metric: withoutLe,
      key: withoutLe.toString(),
    };
    cache.set(metric, info);
  }
  return info;
}

/** Prometheus's resetHistograms for float input: groups bucket samples per histogram. */
function groupBuckets(
  enh: EvalNodeHelper,
  inVec: Vector,
  arg: Expr | undefined,
): MetricWithBuckets[] {
  const groups = new Map<string, MetricWithBuckets>();
  for (const sample of inVec) {
    const info = bucketSeries(enh, sample.metric);
    if (info.upperBound === undefined) {
      addBadBucketLabelWarning(enh, metricName(sample.metric), info.le, arg);
      continue;
    }
    let group = groups.get(info.key);
    if (group === undefined) {
      group = { metric: info.metric, buckets: [] };
      groups.set(info.key, group);
    }
    group.buckets.push({ upperBound: info.upperBound, count: sample.f });
  }
  return [...groups.values()];
}

function validateQuantile(enh: EvalNodeHelper, q: number, arg: Expr | undefined): void {
  if (Number.isNaN(q) || q < 0 || q > 1) addInvalidQuantileWarning(enh, q, arg);
}

/** histogram_quantile(φ scalar, b instant-vector). */
export const funcHistogramQuantile: FunctionCall = (vectorVals, _matrixVals, args, enh) => {
  const q = scalarArg(vectorVals, 0);
  if (q === undefined) return enh.out;
  validateQuantile(enh, q, args[0]);
  for (const group of groupBuckets(enh, vectorVals[1] ?? [], args[1])) {
    if (group.buckets.length === 0) continue;
    const result = bucketQuantile(q, group.buckets);
    if (result.forcedMonotonic) addForcedMonotonicityInfo(enh, metricName(group.metric), args[1]);
    enh.out.push({ metric: group.metric, t: enh.ts, f: result.value, dropName: true });
  }
  return enh.out;
};

/** Prometheus labels.FormatOpenMetricsFloat, used for the quantile label values. */
export function formatOpenMetricsFloat(f: number): string {
  if (f === 1) return '1.0';
  if (f === 0) return '0.0';
  if (f === -1) return '-1.0';
  if (Number.isNaN(f)) return 'NaN';
  if (f === Infinity) return '+Inf';
  if (f === -Infinity) return '-Inf';
  const s = formatFloatG(f); // strconv.FormatFloat(f, 'g', -1, 64)
  return /[.eE]/.test(s) ? s : `${s}.0`;
}

/** histogram_quantiles(b instant-vector, label string, φ scalar, φs scalar...). */
export const funcHistogramQuantiles: FunctionCall = (vectorVals, _matrixVals, args, enh) => {
  const labelArg = args[1];
  const quantileLabel = labelArg?.type === 'StringLiteral' ? labelArg.val : '';
  const qs: number[] = [];
  for (let i = 2; i < args.length; i++) {
    const q = scalarArg(vectorVals, i);
    if (q === undefined) continue;
    validateQuantile(enh, q, args[i]);
    qs.push(q);
  }
  const groups = groupBuckets(enh, vectorVals[0] ?? [], args[0]);
  // Prometheus's getOrCreateLblsWithQuantile: one label set per group and quantile per node.
  let labelCache = enh.cache.get(QUANTILE_LABELS_CACHE) as Map<string, Labels> | undefined;
  if (labelCache === undefined) {
    labelCache = new Map();
    enh.cache.set(QUANTILE_LABELS_CACHE, labelCache);
  }
  for (const q of qs) {
    const qValue = formatOpenMetricsFloat(q);
    for (const group of groups) {
      if (group.buckets.length === 0) continue;
      const result = bucketQuantile(q, group.buckets);
      if (result.forcedMonotonic) addForcedMonotonicityInfo(enh, metricName(group.metric), args[1]);
      const cacheKey = `${qValue}\u0000${group.metric.toString()}`;
      let metric = labelCache.get(cacheKey);
      if (metric === undefined) {
        metric = withLabel(group.metric, quantileLabel, qValue);
        labelCache.set(cacheKey, metric);
      }
      enh.out.push({
        metric,
        t: enh.ts,
        f: result.value,
        dropName: true,
      });
    }
  }
  return enh.out;
};

/** histogram_fraction(lower scalar, upper scalar, b instant-vector). */
export const funcHistogramFraction: FunctionCall = (vectorVals, _matrixVals, args, enh) => {
  const lower = scalarArg(vectorVals, 0);
  const upper = scalarArg(vectorVals, 1);
  if (lower === undefined || upper === undefined) return enh.out;
  for (const group of groupBuckets(enh, vectorVals[2] ?? [], args[2])) {
    if (group.buckets.length === 0) continue;
    enh.out.push({
      metric: group.metric,
      t: enh.ts,
      f: bucketFraction(lower, upper, group.buckets),
      dropName: true,
    });
  }
  return enh.out;
};

/**
 * histogram_count, histogram_sum, histogram_avg, histogram_stddev, histogram_stdvar: they
 * read native histograms only and skip float samples, so float input gives an empty result.
 */
export const funcNativeHistogramOnly: FunctionCall = (_vectorVals, _matrixVals, _args, enh) =>
  enh.out;
