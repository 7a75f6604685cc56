/**
 * The JSON documents of a blocks bucket, field for field as Cortex and Thanos write them
 * (JSON names in the comments where they differ from the property names). Times: block
 * times in ms; mark and index times in Unix seconds, as Cortex stores them.
 */

/** `<block>/deletion-mark.json` (Thanos metadata.DeletionMark). */
export interface DeletionMark {
  /** JSON `id`: the block ULID. */
  id: string;
  /** Always 1. */
  version: number;
  /** Optional free text; omitted when empty. */
  details?: string;
  /** JSON `deletion_time`: Unix seconds when the block was marked. */
  deletion_time: number;
}

/** Why a block must not be compacted (Thanos NoCompactReason). */
export type NoCompactReason =
  'manual' | 'index-size-exceeding' | 'block-index-out-of-order-chunk' | (string & {});

/** `<block>/no-compact-mark.json` (Thanos metadata.NoCompactMark). */
export interface NoCompactMark {
  id: string;
  version: number;
  details?: string;
  /** Unix seconds. */
  no_compact_time: number;
  reason: NoCompactReason;
}

/** `__markers__/<tenant>/tenant-deletion-mark.json` (Cortex TenantDeletionMark). */
export interface TenantDeletionMark {
  /** Unix seconds when deletion was requested. */
  deletion_time: number;
  /** Unix seconds when the cleaner finished deleting the tenant's blocks; omitted before. */
  finished_time?: number;
}

/** One complete block in the bucket index (Cortex bucketindex.Block). */
export interface BucketIndexBlock {
  block_id: string;
  /** ms, inclusive. */
  min_time: number;
  /** ms, exclusive (blocks are half-open [min_time, max_time)). */
  max_time: number;
  /** `"1b6d"` when the chunk segments are 000001..N; omitted otherwise. */
  segments_format?: string;
  segments_num?: number;
  series_max_size?: number;
  chunk_max_size?: number;
  /** Unix seconds of meta.json's last modification in the bucket. */
  uploaded_at: number;
}

/** A deletion mark as the bucket index lists it. */
export interface BucketIndexDeletionMark {
  block_id: string;
  /** Unix seconds. */
  deletion_time: number;
}

/** `<tenant>/bucket-index.json.gz`, version 1 (Cortex bucketindex.Index). */
export interface BucketIndex {
  version: number;
  blocks: BucketIndexBlock[];
  block_deletion_marks: BucketIndexDeletionMark[];
  /** Unix seconds of the last write. */
  updated_at: number;
}

export type BucketIndexSyncStatusCode =
  'Ok' | 'GenericError' | 'CustomerManagedKeyError' | 'Unknown';

/** `<tenant>/bucket-index-sync-status.json` (Cortex bucketindex.Status; `sync_ime` is Cortex's spelling). */
export interface BucketIndexSyncStatus {
  version: number;
  /** Unix seconds of the last index update attempt. */
  sync_ime: number;
  status: BucketIndexSyncStatusCode;
  /** Unix seconds; 0 when not set. */
  non_queryable_until: number;
  non_queryable_reason: string;
}
