// What a push into the ingester's tenant databases carries and what it answers: the
// pushed series (as sample objects or as ranges of a decoded request's columns) and the
// per-sample or per-series refusals.
import type { Labels } from '../model/index.js';
import type { HttpError } from '../server/index.js';
import type { SampleRejectedError } from '../tsdb/index.js';
import type { SeriesLimitError } from './errors.js';

export interface PushSample {
  readonly timestamp: number;
  readonly value: number;
}

/** One series of a push: its samples as objects, or as a range of shared sample columns. */
export type PushSeries = PushSeriesSamples | PushSeriesColumns;

export interface PushSeriesSamples {
  readonly labels: Labels;
  readonly samples: readonly PushSample[];
}

/**
 * Samples `[start, end)` of columns shared by the series of a batch (a decoded write
 * request's arrays): the hot path, with no object per sample.
 */
export interface PushSeriesColumns {
  readonly labels: Labels;
  readonly timestamps: Float64Array;
  readonly values: Float64Array;
  readonly start: number;
  readonly end: number;
}

/** The timestamp of a pushed series' sample `k` (one of the two forms is given). */
export function sampleTimestamp(
  objects: readonly PushSample[] | undefined,
  columns: PushSeriesColumns | undefined,
  k: number,
): number {
  return columns !== undefined
    ? (columns.timestamps[columns.start + k] as number)
    : (objects?.[k] as PushSample).timestamp;
}

/** How many samples a pushed series carries. */
export function pushSampleCount(s: PushSeries): number {
  return 'samples' in s ? s.samples.length : s.end - s.start;
}

/** Who sent a push (Cortex counts API and rule samples apart in the user stats). */
export type PushSource = 'api' | 'rule';

/** One refused sample, or a refused series (limits refuse all its samples at once). */
export interface PushRejection {
  /** Index of the series in the pushed batch. */
  readonly series: number;
  /** The sample's timestamp; for a series limit, the series' first sample's. */
  readonly timestamp: number;
  /** Samples this rejection covers (1 for a sample error, the series' count for a limit). */
  readonly samples: number;
  readonly error: SampleRejectedError | SeriesLimitError;
  /** Cortex's text for it (`err: … timestamp=…, series=…` or the limit message). */
  readonly message: string;
}

export interface PushResult {
  /** Samples now in the tenant's head. */
  readonly appended: number;
  readonly rejections: readonly PushRejection[];
  /**
   * What Cortex's ingester answers for a partially accepted push: the first rejection as a
   * 400, prefixed with the tenant (`user=<tenant>: …`), or undefined when all was accepted.
   */
  readonly firstError: HttpError | undefined;
}
