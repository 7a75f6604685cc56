/**
 * What one answer of an ingester or a store-gateway weighs for the per-query byte limits
 * (`max_fetched_chunk_bytes_per_query`, `max_fetched_data_bytes_per_query`). Cortex counts
 * each response it receives (every replica's, every store-gateway's) as it arrives, before
 * any de-duplication; so do these, called by the fetching layers on each answer.
 *
 * Strata's sizes, where Cortex counts protobuf sizes:
 * - both ingesters and store-gateways answer with XOR chunks: the chunk bytes are the
 *   chunks' data lengths;
 * - data bytes are the chunk bytes plus every label name and value's length (UTF-16 units,
 *   the UTF-8 byte count for ASCII); the wire's own framing (length prefixes, chunk time
 *   bounds) is not counted.
 * The cost is per series and per label, never per sample.
 */
import type { Labels } from '../model/index.js';
import type { FetchedBytesSink } from '../promql/index.js';

/** The summed length of a label set's names and values. */
export function labelsBytes(labels: Labels): number {
  let n = 0;
  for (let i = 0; i < labels.length; i++) n += labels.nameAt(i).length + labels.valueAt(i).length;
  return n;
}

/** A series as an ingester or a store-gateway answers it. */
export interface FetchedSeries {
  readonly labels: Labels;
  readonly chunks: readonly { readonly data: Uint8Array }[];
}

/**
 * Counts one ingester's or store-gateway's answer (a store-gateway's has no chunks when the
 * series API skipped them).
 */
export function countChunkAnswer(
  sink: FetchedBytesSink | undefined,
  series: readonly FetchedSeries[],
): void {
  if (sink === undefined) return;
  let chunks = 0;
  let labels = 0;
  for (const s of series) {
    for (const c of s.chunks) chunks += c.data.length;
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
