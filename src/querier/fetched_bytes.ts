/**
 * What one answer of an ingester or a store-gateway weighs for the per-query byte limits
 * (`max_fetched_chunk_bytes_per_query`, `max_fetched_data_bytes_per_query`). Cortex counts
 * each response it receives (every replica's, every store-gateway's) as it arrives, before
 * any de-duplication; so do these, called by the fetching layers on each answer.
 *
 * Strata's sizes, where Cortex counts protobuf sizes:
 * - answers carrying XOR chunks (store-gateways; ingesters answering with chunks): the
 *   chunk bytes are the chunks' data lengths;
 * - answers carrying decoded samples (ingesters' float64 arrays, src/ingester/wire.ts): 8
 *   bytes of timestamp and 8 of value, 16 per sample;
 * - data bytes are the chunk bytes plus every label name and value's length (UTF-16 units,
 *   the UTF-8 byte count for ASCII); the wire's own framing (length prefixes, chunk time
 *   bounds) is not counted.
 * The cost is per series and per label, never per sample.
 */
import type { Labels } from '../model/index.js';
import type { SeriesSamples } from '../ingester/index.js';
import type { FetchedBytesSink } from '../promql/index.js';
import type { StoreSeries } from '../storegateway/index.js';

/** Bytes of one sample in an ingester's answer (a float64 timestamp and a float64 value). */
export const INGESTER_SAMPLE_BYTES = 16;

/** The summed length of a label set's names and values. */
export function labelsBytes(labels: Labels): number {
  let n = 0;
  for (let i = 0; i < labels.length; i++) n += labels.nameAt(i).length + labels.valueAt(i).length;
  return n;
}

/** A series as an ingester or a store-gateway answers it: encoded chunks, or decoded samples. */
export type FetchedSeries =
  | { readonly labels: Labels; readonly chunks: readonly { readonly data: Uint8Array }[] }
  | SeriesSamples;

/** Counts one ingester's answer of series with samples or chunks. */
export function countIngesterAnswer(
  sink: FetchedBytesSink | undefined,
  series: readonly FetchedSeries[],
): void {
  if (sink === undefined) return;
  let chunks = 0;
  let labels = 0;
  for (const s of series) {
    if ('chunks' in s) for (const c of s.chunks) chunks += c.data.length;
    else chunks += s.timestamps.length * INGESTER_SAMPLE_BYTES;
    labels += labelsBytes(s.labels);
  }
  sink.addFetched(chunks, chunks + labels);
}

/** Counts one ingester's answer of label sets only (the series API). */
export function countLabelsAnswer(
  sink: FetchedBytesSink | undefined,
  series: readonly Labels[],
): void {
  if (sink === undefined) return;
  let labels = 0;
  for (const l of series) labels += labelsBytes(l);
  sink.addFetched(0, labels);
}

/** Counts one store-gateway's answer (chunks absent when the series API skipped them). */
export function countStoreAnswer(
  sink: FetchedBytesSink | undefined,
  series: readonly StoreSeries[],
): void {
  countIngesterAnswer(sink, series);
}
