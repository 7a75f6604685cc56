/**
 * What the store-gateway's block layer (index-header + byte-range reads of one block in the
 * bucket) offers the store layer above it (per-tenant block sets, sync, RPCs). A block
 * answers with chunks as stored, never with decoded samples: the querier decodes them
 * lazily inside its query window.
 */
import type { Labels, Matcher } from '../model/index.js';
import type { BlockMeta } from '../tsdb/index.js';

/** One chunk as stored in the block's segment file (XOR for floats). */
export interface StoreChunk {
  /** Inclusive ms bounds of the chunk's samples. */
  readonly minTime: number;
  readonly maxTime: number;
  /** The chunk encoding byte (chunkenc Encoding, 1 = XOR). */
  readonly encoding: number;
  /** The chunk data without length, encoding byte or CRC. */
  readonly data: Uint8Array;
}

/** A series selected from one or more blocks, with its chunks in time order. */
export interface StoreSeries {
  readonly labels: Labels;
  readonly chunks: readonly StoreChunk[];
}

/** Byte and request accounting of one block query, summed into the RPC's stats. */
export interface BlockQueryStats {
  /** Range (or whole-object) requests made to the bucket. */
  bucketRequests: number;
  /** Bytes fetched from the bucket. */
  bucketBytes: number;
  /** Series entries decoded from the index. */
  seriesFetched: number;
  /** Chunks returned. */
  chunksFetched: number;
}

export interface BlockSelectOptions {
  /** Labels only (series API): no chunk is read. */
  readonly skipChunks?: boolean;
  readonly signal?: AbortSignal;
  /** Accumulates what the query read. */
  readonly stats?: BlockQueryStats;
}

/** One block loaded by a store-gateway (its index-header is on local disk). */
export interface LoadedBlock {
  readonly meta: BlockMeta;
  /**
   * Series matching every matcher with a chunk overlapping [mint, maxt] (inclusive), sorted
   * by labels, with only those chunks. Reads only the byte ranges it needs, merging nearby
   * ranges into one request.
   */
  series(
    matchers: readonly Matcher[],
    mint: number,
    maxt: number,
    opts?: BlockSelectOptions,
  ): Promise<StoreSeries[]>;
  /** Label names of series matching `matchers` (all when empty), sorted. */
  labelNames(matchers: readonly Matcher[], opts?: BlockSelectOptions): Promise<string[]>;
  /** Values of `name` among series matching `matchers` (all when empty), sorted. */
  labelValues(
    name: string,
    matchers: readonly Matcher[],
    opts?: BlockSelectOptions,
  ): Promise<string[]>;
  /** Milliseconds (store clock) of the last query; for idle unloading. */
  readonly lastUsedAt: number;
  /** Releases memory and open handles; the index-header file stays on disk. Idempotent. */
  close(): Promise<void>;
}

export function emptyBlockQueryStats(): BlockQueryStats {
  return { bucketRequests: 0, bucketBytes: 0, seriesFetched: 0, chunksFetched: 0 };
}
