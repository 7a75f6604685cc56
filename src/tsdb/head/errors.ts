// The ways the head refuses a sample, as coded errors so the distributor can map each to an
// HTTP status (all are the client's fault: 400) without parsing messages.

/** Base class of every sample the head refuses; `code` is stable for mapping and metrics. */
export abstract class SampleRejectedError extends Error {
  abstract readonly code: SampleRejectionCode;
}

export type SampleRejectionCode =
  'sample_out_of_bounds' | 'sample_too_old' | 'sample_out_of_order' | 'new_value_for_timestamp';

/**
 * The sample is older than the head accepts: t < max(min valid time, max time − chunkRange/2)
 * (Prometheus storage.ErrOutOfBounds).
 */
export class OutOfBoundsError extends SampleRejectedError {
  readonly code = 'sample_out_of_bounds';
  constructor(
    readonly timestamp: number,
    readonly minValidTime: number,
  ) {
    super(`sample timestamp out of bounds: ts=${timestamp}, min valid=${minValidTime}`);
    this.name = 'OutOfBoundsError';
  }
}

/**
 * Older than the out-of-order window allows (Prometheus storage.ErrTooOldSample). Only an
 * out-of-order window produces it; the head has none yet, so it is defined for callers now.
 */
export class TooOldSampleError extends SampleRejectedError {
  readonly code = 'sample_too_old';
  constructor(
    readonly timestamp: number,
    readonly minValidTime: number,
  ) {
    super(`sample timestamp too old: ts=${timestamp}, min valid=${minValidTime}`);
    this.name = 'TooOldSampleError';
  }
}

/** Not after the series' newest sample (Prometheus storage.ErrOutOfOrderSample). */
export class OutOfOrderSampleError extends SampleRejectedError {
  readonly code = 'sample_out_of_order';
  constructor(
    readonly timestamp: number,
    readonly seriesMaxTime: number,
  ) {
    super(`sample out of order: ts=${timestamp}, series newest ts=${seriesMaxTime}`);
    this.name = 'OutOfOrderSampleError';
  }
}

/** Same timestamp as the series' newest sample with other value bits (storage.ErrDuplicateSampleForTimestamp). */
export class DuplicateSampleForTimestampError extends SampleRejectedError {
  readonly code = 'new_value_for_timestamp';
  constructor(
    readonly timestamp: number,
    readonly existing: number,
    readonly rejected: number,
  ) {
    super(
      `duplicate sample for timestamp: ts=${timestamp}, existing value=${existing}, new value=${rejected}`,
    );
    this.name = 'DuplicateSampleForTimestampError';
  }
}
