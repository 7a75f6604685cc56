/**
 * What the text parsers yield: one entry per meaningful line, in input order, so that a
 * caller can stream a large file without holding it in memory.
 */
import type { Labels } from '../labels.js';

/** OpenMetrics family types; the Prometheus text format adds `untyped`. */
export type MetricType =
  | 'counter'
  | 'gauge'
  | 'histogram'
  | 'gaugehistogram'
  | 'summary'
  | 'info'
  | 'stateset'
  | 'unknown'
  | 'untyped';

export interface Exemplar {
  readonly labels: Labels;
  readonly value: number;
  /** Milliseconds, converted like Prometheus: trunc(seconds * 1000). */
  readonly timestamp?: number;
}

export interface SeriesEntry {
  readonly kind: 'series';
  /** 1-based line number in the input. */
  readonly line: number;
  /** Includes `__name__`. */
  readonly labels: Labels;
  /** NaN from the text is JavaScript's NaN (Prometheus stores Go's NaN, 0x7ff8000000000001). */
  readonly value: number;
  /** Milliseconds since the epoch; absent when the line carries none. */
  readonly timestamp?: number;
  readonly exemplar?: Exemplar;
  /**
   * The type of the family the sample belongs to, from the closest preceding `# TYPE` whose
   * name matches the sample's name (with the suffixes the type allows); 'unknown' otherwise.
   */
  readonly metricType: MetricType;
}

export interface TypeEntry {
  readonly kind: 'type';
  readonly line: number;
  readonly metric: string;
  readonly type: MetricType;
}

export interface HelpEntry {
  readonly kind: 'help';
  readonly line: number;
  readonly metric: string;
  readonly help: string;
}

export interface UnitEntry {
  readonly kind: 'unit';
  readonly line: number;
  readonly metric: string;
  readonly unit: string;
}

/** A free-form `#` comment; only the Prometheus text format has them. */
export interface CommentEntry {
  readonly kind: 'comment';
  readonly line: number;
  readonly text: string;
}

export type TextEntry = SeriesEntry | TypeEntry | HelpEntry | UnitEntry | CommentEntry;

/** A syntax error; the message starts with the line number. */
export class TextParseError extends Error {
  constructor(
    readonly line: number,
    readonly detail: string,
  ) {
    super(`line ${line}: ${detail}`);
    this.name = 'TextParseError';
  }
}

/** Input accepted by the parsers: a whole document, or chunks of it in order. */
export type TextInput = string | Uint8Array | Iterable<string | Uint8Array>;
