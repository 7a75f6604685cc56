// The storage interface PromQL and the query API read through (Prometheus storage.Queryable),
// so that the same engine answers over an in-memory store in tests, over one tenant's TSDB,
// and later over ingesters and store-gateways. It is deliberately small: series by matchers
// and time range, label names, label values.
import type { Labels, Matcher } from '../model/index.js';

/** What `SampleIterator.next()`/`seek()` return: 0 at the end (or on error), 1 on a float. */
export const SAMPLE_NONE = 0;
export const SAMPLE_FLOAT = 1;

/**
 * Walks one series' samples in time order without allocating (the shape of the storage
 * engine's SeriesSampleIterator, so TSDB series plug in unchanged).
 */
export interface SampleIterator {
  next(): number;
  /** Moves to the first sample at or after `t`; never moves backwards. */
  seek(t: number): number;
  atT(): number;
  atF(): number;
  err(): Error | null;
}

export interface StorageSeries {
  readonly labels: Labels;
  /** A fresh iterator over the series' samples within the querier's range. */
  iterator(): SampleIterator;
  /**
   * The encoded chunks behind `iterator()` when storage has them (chunk-streaming reads):
   * the iterator yields their samples within [mint, maxt], each timestamp once. A query
   * moved to another thread takes these along instead of decoded samples.
   */
  readonly encoded?: EncodedSeriesChunks;
  /**
   * Optional bulk read: the samples with start ≤ t ≤ end (within the querier's range) at
   * once, as typed arrays; throws storage's error for data it cannot read. Storage that can
   * decode faster in bulk than sample by sample offers it (readSeriesSamples falls back).
   */
  samples?(start: number, end: number): SampleArrays;
  /**
   * Optional: the newest sample with start ≤ t ≤ end, or none, reading as little as storage
   * can (an instant selector needs nothing older; chunks before the newest are skipped).
   */
  newest?(start: number, end: number): SampleArrays;
}

/** One series' samples in time order: `fs[i]` at `ts[i]`. */
export interface SampleArrays {
  readonly ts: Float64Array;
  readonly fs: Float64Array;
}

/** The newest sample with start ≤ t ≤ end (zero or one samples); throws storage's error. */
export function readNewestSample(s: StorageSeries, start: number, end: number): SampleArrays {
  if (s.newest !== undefined) return s.newest(start, end);
  const all = readSeriesSamples(s, start, end);
  const n = all.ts.length;
  return n <= 1 ? all : { ts: all.ts.subarray(n - 1), fs: all.fs.subarray(n - 1) };
}

/**
 * The series' samples with start ≤ t ≤ end, by storage's bulk read when it has one, else
 * through its iterator; throws the error storage reports.
 */
export function readSeriesSamples(s: StorageSeries, start: number, end: number): SampleArrays {
  if (s.samples !== undefined) return s.samples(start, end);
  const it = s.iterator();
  let ts = new Float64Array(64);
  let fs = new Float64Array(64);
  let n = 0;
  for (let r = start === -Infinity ? it.next() : it.seek(start); r !== SAMPLE_NONE; r = it.next()) {
    const t = it.atT();
    if (t > end) break;
    if (n === ts.length) {
      const grownTs = new Float64Array(2 * n);
      const grownFs = new Float64Array(2 * n);
      grownTs.set(ts);
      grownFs.set(fs);
      ts = grownTs;
      fs = grownFs;
    }
    ts[n] = t;
    fs[n] = it.atF();
    n++;
  }
  const err = it.err();
  if (err !== null) throw err;
  return { ts: ts.subarray(0, n), fs: fs.subarray(0, n) };
}

/** A series' chunks (any order, overlaps allowed) and the window its samples are read in. */
export interface EncodedSeriesChunks {
  readonly chunks: readonly {
    readonly minTime: number;
    readonly maxTime: number;
    readonly encoding: number;
    readonly data: Uint8Array;
  }[];
  readonly mint: number;
  readonly maxt: number;
}

/** Hints the engine passes to storage (Prometheus storage.SelectHints); storage may ignore them. */
export interface SelectHints {
  /** Inclusive start and end of the data the engine needs, in ms. */
  readonly start: number;
  readonly end: number;
  /** Evaluation step of a range query in ms (0 for instant queries). */
  readonly step?: number;
  /** Range of the enclosing range function or subquery in ms. */
  readonly range?: number;
  /** Name of the enclosing function, e.g. "rate", or "series" for the series API. */
  readonly func?: string;
  /** Limit on returned series (API `limit`); 0 or absent means none. */
  readonly limit?: number;
  /**
   * `false` when the caller does not need the series sorted by labels (Prometheus's
   * `Select(sortSeries=false)`, what its engine asks): storage may then answer in its own
   * deterministic order and skip a sort, as a head does with one source. Absent or `true`:
   * sorted. Storage may always sort.
   */
  readonly sortSeries?: boolean;
  /** Aborts when the query is cancelled or times out: remote storage stops its calls. */
  readonly signal?: AbortSignal;
  /**
   * Told the bytes of every answer a remote storage fetched for this select, each replica's
   * or store copy separately (the per-query byte limits count them); may throw to stop it.
   */
  readonly fetched?: FetchedBytesSink;
}

/**
 * Receives what the fetching layers fetched: `chunkBytes` are the samples' encoded size,
 * `dataBytes` the whole answer's (labels and chunks). Storage that fetches nothing remote
 * (in-memory, one tenant's TSDB) never calls it.
 */
export interface FetchedBytesSink {
  addFetched(chunkBytes: number, dataBytes: number): void;
}

/** Reads a fixed time range [mint, maxt] (inclusive, ms). */
export interface Querier {
  /**
   * Series matching all matchers, each with its samples in range; sorted by labels unless
   * `hints.sortSeries` is false. Never two series with the same labels.
   */
  select(matchers: readonly Matcher[], hints?: SelectHints): Promise<StorageSeries[]>;
  /** Label names of series matching `matchers` (all series when empty), sorted. */
  labelNames(matchers: readonly Matcher[]): Promise<string[]>;
  /** Values of label `name` among series matching `matchers`, sorted. */
  labelValues(name: string, matchers: readonly Matcher[]): Promise<string[]>;
  /** Releases resources; safe to call more than once. */
  close(): Promise<void>;
}

export interface Queryable {
  querier(mint: number, maxt: number): Promise<Querier>;
}
