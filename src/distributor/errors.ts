import { HttpError } from '../server/index.js';

/**
 * Why samples (or exemplars, or metadata) were discarded: the `reason` label of
 * `cortex_discarded_{samples,exemplars,metadata}_total`, with Cortex's values.
 */
export type DiscardReason =
  | 'missing_metric_name'
  | 'metric_name_invalid'
  | 'max_label_names_per_series'
  | 'label_invalid'
  | 'label_name_too_long'
  | 'label_value_too_long'
  | 'duplicate_label_names'
  | 'labels_not_sorted'
  | 'greater_than_max_sample_age'
  | 'too_far_in_future'
  | 'rate_limited'
  | 'too_many_ha_clusters'
  | 'native-histogram-sample'
  | 'exemplar_labels_missing'
  | 'exemplar_timestamp_invalid'
  | 'exemplar_labels_too_long'
  | 'metric_name_too_long'
  | 'help_too_long'
  | 'unit_too_long';

/** A series rejected by validation: HTTP 400 with Cortex's message naming the series. */
export class ValidationError extends HttpError {
  override name = 'ValidationError';
  constructor(
    readonly reason: DiscardReason,
    message: string,
  ) {
    super('bad_data', message);
  }
}

/** The tenant's ingestion rate limit refused the request: HTTP 429. */
export class IngestionRateLimitedError extends HttpError {
  override name = 'IngestionRateLimitedError';
  constructor(message: string) {
    super('too_many_requests', message);
  }
}

/**
 * Samples from an HA replica that is not the elected one. Not a failure: Cortex answers 202
 * Accepted so the sender does not retry, and drops the samples.
 */
export class ReplicasNotMatchError extends Error {
  override name = 'ReplicasNotMatchError';
  readonly status = 202;
  constructor(
    readonly replica: string,
    readonly elected: string,
  ) {
    // Cortex's text, including its typo, so log searches written for Cortex still match.
    super(`replicas did not mach, rejecting sample: replica=${replica}, elected=${elected}`);
  }
}

/** A tenant sends from more HA clusters than `ha_max_clusters`: HTTP 400. */
export class TooManyHAClustersError extends HttpError {
  override name = 'TooManyHAClustersError';
  constructor(readonly limit: number) {
    super('bad_data', `too many HA clusters (limit: ${limit})`);
  }
}
