/**
 * The per-tenant bucket index (Cortex `bucketindex`): reading and writing
 * `<tenant>/bucket-index.json.gz`, and the operations on an index the cleaner and the
 * readers share. Queriers and store-gateways call `readBucketIndex` instead of listing the
 * bucket; only the compactor's cleaner writes it.
 */
import type { Bucket } from '../runtime/index.js';
import type { BlockMeta } from '../tsdb/index.js';
import {
  BucketIndexNotFoundError,
  decodeBucketIndex,
  encodeBucketIndex,
} from './bucket_index_codec.js';
import { CHUNKS_DIR, bucketIndexPath } from './layout.js';
import { deleteIfExists, getIfExists } from './markers.js';
import type { BucketIndex, BucketIndexBlock } from './types.js';

/** Chunk segments named 000001, 000002, … (Cortex SegmentsFormat1Based6Digits). */
export const SEGMENTS_FORMAT_1B6D = '1b6d';

/**
 * The tenant's bucket index. Rejects with BucketIndexNotFoundError when there is none,
 * BucketIndexCorruptedError when it cannot be read as a version-1 index, and with the
 * bucket's own error otherwise.
 */
export async function readBucketIndex(bucket: Bucket, tenant: string): Promise<BucketIndex> {
  const path = bucketIndexPath(tenant);
  const data = await getIfExists(bucket, path);
  if (data === undefined) throw new BucketIndexNotFoundError(tenant);
  return decodeBucketIndex(data, path);
}

export async function writeBucketIndex(
  bucket: Bucket,
  tenant: string,
  index: BucketIndex,
): Promise<void> {
  await bucket.upload(bucketIndexPath(tenant), encodeBucketIndex(index));
}

/** Deletes the index; a missing one is not an error. */
export async function deleteBucketIndex(bucket: Bucket, tenant: string): Promise<void> {
  await deleteIfExists(bucket, bucketIndexPath(tenant));
}

/** No blocks and no deletion marks (Cortex Index.IsEmpty). */
export function isBucketIndexEmpty(index: BucketIndex): boolean {
  return index.blocks.length === 0 && index.block_deletion_marks.length === 0;
}

/** Removes a block and its deletion mark, if any, from the index in place. */
export function removeBlockFromIndex(index: BucketIndex, block: string): void {
  index.blocks = index.blocks.filter((b) => b.block_id !== block);
  index.block_deletion_marks = index.block_deletion_marks.filter((m) => m.block_id !== block);
}

/** Blocks of the index not marked for deletion that lie within [minT, maxT] (both inclusive, ms). */
export function activeBlocksWithin(
  index: BucketIndex,
  minT: number,
  maxT: number,
): BucketIndexBlock[] {
  const deleted = new Set(index.block_deletion_marks.map((m) => m.block_id));
  // Blocks are half-open [min_time, max_time).
  return index.blocks.filter(
    (b) => !deleted.has(b.block_id) && b.min_time <= maxT && minT < b.max_time,
  );
}

/** The index entry of a block from its meta.json and meta.json's upload time (Unix seconds). */
export function blockFromMeta(meta: BlockMeta, uploadedAtSec: number): BucketIndexBlock {
  const block: BucketIndexBlock = {
    block_id: meta.ulid,
    min_time: meta.minTime,
    max_time: meta.maxTime,
    uploaded_at: uploadedAtSec,
  };
  const segments = detectSegmentsFormat(meta);
  if (segments !== undefined) {
    block.segments_format = segments.format;
    block.segments_num = segments.num;
  }
  const stats = meta.thanos?.index_stats;
  if (stats?.series_max_size !== undefined && stats.series_max_size !== 0) {
    block.series_max_size = stats.series_max_size;
  }
  if (stats?.chunk_max_size !== undefined && stats.chunk_max_size !== 0) {
    block.chunk_max_size = stats.chunk_max_size;
  }
  return block;
}

const sixDigits = (n: number): string => String(n).padStart(6, '0');

/**
 * Whether the block's chunk segments are 000001..N, read from the deprecated
 * `segment_files` when present, else from the `files` list (Cortex's detection).
 */
export function detectSegmentsFormat(meta: BlockMeta): { format: string; num: number } | undefined {
  const segmentFiles = meta.thanos?.segment_files ?? [];
  if (segmentFiles.length > 0) {
    const ok = segmentFiles.every((f, i) => f === sixDigits(i + 1));
    return ok ? { format: SEGMENTS_FORMAT_1B6D, num: segmentFiles.length } : undefined;
  }
  let num = 0;
  for (const file of meta.thanos?.files ?? []) {
    if (!file.rel_path.startsWith(`${CHUNKS_DIR}/`)) continue;
    if (file.rel_path !== `${CHUNKS_DIR}/${sixDigits(num + 1)}`) return undefined;
    num++;
  }
  return num > 0 ? { format: SEGMENTS_FORMAT_1B6D, num } : undefined;
}
