import { METRIC_NAME_LABEL, compareGoStrings, goQuote } from '../model/index.js';

/**
 * Cortex's validation error texts (pkg/util/validation/errors.go), formatted with Go's
 * verbs: `%.200q` quotes the first 200 characters, `%q` quotes all of it.
 */

/** Go's `%.200q`. */
export function quote200(s: string): string {
  let n = 0;
  let end = 0;
  for (const ch of s) {
    if (n === 200) break;
    end += ch.length;
    n++;
  }
  return goQuote(end === s.length ? s : s.slice(0, end));
}

/**
 * Cortex's formatLabelSet: wire order kept, duplicates kept, the first non-empty `__name__`
 * becomes the metric name in front of the braces.
 */
export function formatLabelSet(labels: readonly string[]): string {
  let metricName = '';
  let hasMetricName = false;
  const parts: string[] = [];
  for (let i = 0; i + 1 < labels.length; i += 2) {
    const name = labels[i] as string;
    const value = labels[i + 1] as string;
    if (name === METRIC_NAME_LABEL && !hasMetricName && value !== '') {
      metricName = value;
      hasMetricName = true;
    } else {
      parts.push(`${name}=${goQuote(value)}`);
    }
  }
  if (parts.length === 0) return hasMetricName ? metricName : '{}';
  return `${metricName}{${parts.join(', ')}}`;
}

/** prometheus/common model.Metric.String(): a map, so the last duplicate wins, pairs sorted. */
export function formatMetric(labels: readonly string[]): string {
  const m = new Map<string, string>();
  for (let i = 0; i + 1 < labels.length; i += 2)
    m.set(labels[i] as string, labels[i + 1] as string);
  const name = m.get(METRIC_NAME_LABEL);
  const parts: string[] = [];
  for (const [k, v] of m) if (k !== METRIC_NAME_LABEL) parts.push(`${k}=${goQuote(v)}`);
  if (parts.length === 0) return name ?? '{}';
  parts.sort(compareGoStrings);
  return `${name ?? ''}{${parts.join(', ')}}`;
}

/** Prometheus labels.Labels.String(): `{a="b", c="d"}` in the given order. */
export function formatLabels(labels: readonly string[]): string {
  const parts: string[] = [];
  for (let i = 0; i + 1 < labels.length; i += 2) {
    parts.push(`${labels[i] as string}=${goQuote(labels[i + 1] as string)}`);
  }
  return `{${parts.join(', ')}}`;
}

export const msg = {
  missingMetricName: (): string => 'sample missing metric name',
  invalidMetricName: (name: string): string => `sample invalid metric name: ${quote200(name)}`,
  tooManyLabels: (labels: readonly string[], limit: number): string =>
    `series has too many labels (actual: ${labels.length / 2}, limit: ${limit}) series: '${formatMetric(labels)}'`,
  invalidLabel: (labels: readonly string[], name: string): string =>
    `sample invalid label: ${quote200(name)} metric ${quote200(formatLabelSet(labels))}`,
  labelNameTooLong: (
    labels: readonly string[],
    name: string,
    actual: number,
    limit: number,
  ): string =>
    `label name too long for metric (actual: ${actual}, limit: ${limit}) metric: ${quote200(formatLabelSet(labels))} label name: ${quote200(name)}`,
  labelValueTooLong: (
    labels: readonly string[],
    name: string,
    value: string,
    actual: number,
    limit: number,
  ): string =>
    `label value too long for metric (actual: ${actual}, limit: ${limit}) metric: ${quote200(formatLabelSet(labels))} label name: ${quote200(name)} label value: ${quote200(value)}`,
  duplicateLabel: (labels: readonly string[], name: string): string =>
    `duplicate label name: ${quote200(name)} metric ${quote200(formatLabelSet(labels))}`,
  labelsNotSorted: (labels: readonly string[], name: string): string =>
    `labels not sorted: ${quote200(name)} metric ${quote200(formatLabelSet(labels))}`,
  tooOld: (metricName: string, ts: number): string =>
    `timestamp too old: ${ts} metric: ${quote200(metricName)}`,
  tooNew: (metricName: string, ts: number): string =>
    `timestamp too new: ${ts} metric: ${quote200(metricName)}`,
  exemplarMissingLabels: (
    series: readonly string[],
    labels: readonly string[],
    ts: number,
  ): string =>
    `exemplar missing labels, timestamp: ${ts} series: ${formatLabels(series)} labels: ${formatLabels(labels)}`,
  exemplarMissingTimestamp: (
    series: readonly string[],
    labels: readonly string[],
    ts: number,
  ): string =>
    `exemplar missing timestamp, timestamp: ${ts} series: ${formatLabels(series)} labels: ${formatLabels(labels)}`,
  exemplarLabelsTooLong: (
    series: readonly string[],
    labels: readonly string[],
    ts: number,
  ): string =>
    `exemplar combined labelset exceeds 128 characters, timestamp: ${ts} series: ${formatLabels(series)} labels: ${formatLabels(labels)}`,
  metadataMissingMetricName: (): string => 'metadata missing metric name',
  metadataTooLong: (kind: string, value: string, metricName: string): string =>
    `metadata '${kind}' value too long: ${quote200(value)} metric ${quote200(metricName)}`,
};
