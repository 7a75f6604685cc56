import {
  METRIC_NAME_LABEL,
  compareGoStrings,
  isValidLegacyLabelName,
  isValidLegacyMetricName,
} from '../model/index.js';
import type { DiscardedMetrics } from './discarded_metrics.js';
import { ValidationError, type DiscardReason } from './errors.js';
import type { DistributorLimits } from './limits.js';
import { msg } from './validation_messages.js';
import type { LabelRules, SeriesLabelsCache } from './series_labels_cache.js';
import {
  cachedEntryOf,
  type MetricMetadata,
  type SeriesData,
  type WriteRequestData,
} from './write_request.js';

/** Cortex's cap on an exemplar's label names plus values (OpenMetrics: 128 characters). */
export const EXEMPLAR_MAX_LABEL_SET_LENGTH = 128;

/** The result of validating one request: what to forward, and the first error to report. */
export interface ValidationOutcome {
  /** Indexes into `req.series` of the series that passed. */
  readonly series: number[];
  /** Indexes into `req.metadata` of the metadata that passed. */
  readonly metadata: number[];
  readonly samples: number;
  readonly exemplars: number;
  /** Native histograms dropped (not supported yet; counted, not an error). */
  readonly droppedHistograms: number;
  /**
   * The first rejection (Cortex reports one error per request, as 400, even when the rest is
   * accepted); undefined when everything passed.
   */
  readonly firstError: ValidationError | undefined;
}

/**
 * Validates the labels of one series as Cortex's ValidateLabels does, in its order: metric
 * name present and valid, label count, then per label: name valid, name length, value
 * length, and names strictly increasing (duplicates and unsorted labels rejected).
 */
export function validateLabels(
  limits: DistributorLimits,
  labels: readonly string[],
  skipLabelNameValidation: boolean,
): ValidationError | undefined {
  if (limits.enforceMetricName) {
    const name = metricNameOf(labels);
    if (name === undefined)
      return new ValidationError('missing_metric_name', msg.missingMetricName());
    if (!isValidLegacyMetricName(name)) {
      return new ValidationError('metric_name_invalid', msg.invalidMetricName(name));
    }
  }
  const count = labels.length / 2;
  if (count > limits.maxLabelNamesPerSeries) {
    return new ValidationError(
      'max_label_names_per_series',
      msg.tooManyLabels(labels, limits.maxLabelNamesPerSeries),
    );
  }
  let last = '';
  for (let i = 0; i + 1 < labels.length; i += 2) {
    const name = labels[i] as string;
    const value = labels[i + 1] as string;
    if (!skipLabelNameValidation && !isValidLegacyLabelName(name)) {
      return new ValidationError('label_invalid', msg.invalidLabel(labels, name));
    }
    const nameLen = utf8Length(name);
    if (nameLen > limits.maxLabelNameLength) {
      return new ValidationError(
        'label_name_too_long',
        msg.labelNameTooLong(labels, name, nameLen, limits.maxLabelNameLength),
      );
    }
    const valueLen = utf8Length(value);
    if (valueLen > limits.maxLabelValueLength) {
      return new ValidationError(
        'label_value_too_long',
        msg.labelValueTooLong(labels, name, value, valueLen, limits.maxLabelValueLength),
      );
    }
    const cmp = compareGoStrings(last, name);
    if (cmp >= 0) {
      return cmp === 0
        ? new ValidationError('duplicate_label_names', msg.duplicateLabel(labels, name))
        : new ValidationError('labels_not_sorted', msg.labelsNotSorted(labels, name));
    }
    last = name;
  }
  return undefined;
}

/**
 * Cortex's ValidateSample on every sample of a series: too old (only with
 * `reject_old_samples`), then too far in the future (`creation_grace_period`).
 */
export function validateSamples(
  limits: DistributorLimits,
  req: WriteRequestData,
  series: SeriesData,
  nowMs: number,
): ValidationError | undefined {
  const minValid = limits.rejectOldSamples ? nowMs - limits.rejectOldSamplesMaxAgeMs : -Infinity;
  const maxValid = nowMs + limits.creationGracePeriodMs;
  const ts = req.timestamps;
  for (let i = series.sampleStart; i < series.sampleEnd; i++) {
    const t = ts[i] as number;
    if (t < minValid) {
      return new ValidationError(
        'greater_than_max_sample_age',
        msg.tooOld(metricNameOf(series.labels) ?? '', t),
      );
    }
    if (t > maxValid) {
      return new ValidationError(
        'too_far_in_future',
        msg.tooNew(metricNameOf(series.labels) ?? '', t),
      );
    }
  }
  return undefined;
}

/** Cortex's ValidateExemplar on each exemplar of a series; the first failure is returned. */
export function validateExemplars(series: SeriesData): ValidationError | undefined {
  for (const e of series.exemplars) {
    if (e.labels.length === 0) {
      return new ValidationError(
        'exemplar_labels_missing',
        msg.exemplarMissingLabels(series.labels, e.labels, e.timestamp),
      );
    }
    if (e.timestamp === 0) {
      return new ValidationError(
        'exemplar_timestamp_invalid',
        msg.exemplarMissingTimestamp(series.labels, e.labels, e.timestamp),
      );
    }
    let len = 0;
    for (const s of e.labels) len += utf8Length(s);
    if (len > EXEMPLAR_MAX_LABEL_SET_LENGTH) {
      return new ValidationError(
        'exemplar_labels_too_long',
        msg.exemplarLabelsTooLong(series.labels, e.labels, e.timestamp),
      );
    }
  }
  return undefined;
}

/** Cortex's ValidateMetadata; the reason is the discarded-metadata label. */
export function validateMetadata(
  limits: DistributorLimits,
  m: MetricMetadata,
): ValidationError | undefined {
  if (limits.enforceMetadataMetricName && m.metricFamilyName === '') {
    return new ValidationError('missing_metric_name', msg.metadataMissingMetricName());
  }
  const max = limits.maxMetadataLength;
  const check = (
    kind: string,
    reason: DiscardReason,
    value: string,
  ): ValidationError | undefined =>
    utf8Length(value) > max
      ? new ValidationError(reason, msg.metadataTooLong(kind, value, m.metricFamilyName))
      : undefined;
  return (
    check('METRIC_NAME', 'metric_name_too_long', m.metricFamilyName) ??
    check('HELP', 'help_too_long', m.help) ??
    check('UNIT', 'unit_too_long', m.unit)
  );
}

/**
 * Validates a whole request for `tenant` the way Cortex's distributor does: each invalid
 * series is dropped (its samples counted in `cortex_discarded_samples_total` under the
 * reason) and the rest goes on; the first error is kept to answer 400 after the valid part
 * has been written. Series with no labels left (after HA/drop-label processing) are skipped.
 *
 * With the `labelsCache` the request was decoded with, a label array that passed under the
 * same label limits before (the same array object, see SeriesLabelsCache) is not checked
 * again: the result of validateLabels depends only on the array and those limits.
 */
export function validateWriteRequest(
  limits: DistributorLimits,
  tenant: string,
  req: WriteRequestData,
  nowMs: number,
  metrics: DiscardedMetrics,
  labelsCache?: SeriesLabelsCache,
): ValidationOutcome {
  const rules = labelsCache?.rulesFor(limits, req.skipLabelNameValidation);
  const series: number[] = [];
  const metadata: number[] = [];
  let samples = 0;
  let exemplars = 0;
  let droppedHistograms = 0;
  let firstError: ValidationError | undefined;
  const discard = (reason: DiscardReason, n: number): void => {
    if (n > 0) metrics.samples.inc({ reason, user: tenant }, n);
  };
  for (let i = 0; i < req.series.length; i++) {
    const s = req.series[i] as SeriesData;
    if (s.histograms.length > 0) {
      droppedHistograms += s.histograms.length;
      discard('native-histogram-sample', s.histograms.length);
    }
    if (s.labels.length === 0) continue;
    const n = s.sampleEnd - s.sampleStart;
    const err =
      checkLabels(limits, s, req.skipLabelNameValidation, rules) ??
      validateSamples(limits, req, s, nowMs);
    if (err !== undefined) {
      discard(err.reason, n);
      firstError ??= err;
      continue;
    }
    const exemplarErr = validateExemplars(s);
    if (exemplarErr !== undefined) {
      // As in Cortex, an invalid exemplar rejects the series it came with.
      metrics.exemplars.inc({ reason: exemplarErr.reason, user: tenant }, s.exemplars.length);
      discard(exemplarErr.reason, n);
      firstError ??= exemplarErr;
      continue;
    }
    if (n === 0 && s.exemplars.length === 0) continue;
    series.push(i);
    samples += n;
    exemplars += s.exemplars.length;
  }
  for (let i = 0; i < req.metadata.length; i++) {
    const bad = validateMetadata(limits, req.metadata[i] as MetricMetadata);
    if (bad !== undefined) {
      metrics.metadata.inc({ reason: bad.reason, user: tenant });
      firstError ??= bad;
      continue;
    }
    metadata.push(i);
  }
  return { series, metadata, samples, exemplars, droppedHistograms, firstError };
}

/**
 * validateLabels, skipped for a cached label array that passed under `rules` before (and
 * marked on its cache entry when it passes).
 */
function checkLabels(
  limits: DistributorLimits,
  s: SeriesData,
  skipLabelNameValidation: boolean,
  rules: LabelRules | undefined,
): ValidationError | undefined {
  const entry = cachedEntryOf(s);
  if (entry === undefined || rules === undefined)
    return validateLabels(limits, s.labels, skipLabelNameValidation);
  if (entry.validated === rules) return undefined;
  const err = validateLabels(limits, s.labels, skipLabelNameValidation);
  if (err === undefined) entry.validated = rules;
  return err;
}

/** The value of the first `__name__` label, as Cortex's extract.UnsafeMetricNameFromLabelAdapters. */
export function metricNameOf(labels: readonly string[]): string | undefined {
  for (let i = 0; i + 1 < labels.length; i += 2) {
    if (labels[i] === METRIC_NAME_LABEL) return labels[i + 1];
  }
  return undefined;
}

function utf8Length(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) continue;
    if (c < 0x800) n += 1;
    else if (c >= 0xd800 && c <= 0xdbff) {
      n += 2;
      i++;
    } else n += 2;
  }
  return n;
}
