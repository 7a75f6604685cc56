// The values PromQL evaluates to (Prometheus promql/value.go): instant vectors of samples,
// range vectors (matrices) of series with float points, scalars and strings. Timestamps are
// int64 milliseconds held in JS numbers (safe integers); values are float64.
import type { Labels } from '../model/index.js';

export interface FPoint {
  readonly t: number;
  readonly f: number;
}

/** One element of an instant vector. */
export interface Sample {
  readonly metric: Labels;
  readonly t: number;
  readonly f: number;
  /**
   * The metric name must be dropped from `metric` before the result leaves the engine
   * (Prometheus 3 delays `__name__` removal so that e.g. `label_replace` can still see it).
   */
  readonly dropName?: boolean;
}

export type Vector = Sample[];

/** One series of a range vector. */
export interface Series {
  readonly metric: Labels;
  readonly floats: FPoint[];
  readonly dropName?: boolean;
}

export type Matrix = Series[];

export interface Scalar {
  readonly t: number;
  readonly v: number;
}

export interface StringValue {
  readonly t: number;
  readonly v: string;
}

/** A query's result value, tagged with its type as the HTTP API reports it (`resultType`). */
export type QueryValue =
  | { readonly type: 'vector'; readonly vector: Vector }
  | { readonly type: 'matrix'; readonly matrix: Matrix }
  | { readonly type: 'scalar'; readonly scalar: Scalar }
  | { readonly type: 'string'; readonly string: StringValue };
