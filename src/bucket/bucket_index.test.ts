import { describe, expect, it } from 'vitest';
import { MemoryBucket } from '../runtime/index.js';
import { ManualClock } from '../runtime/testing/index.js';
import {
  activeBlocksWithin,
  blockFromMeta,
  deleteBucketIndex,
  detectSegmentsFormat,
  isBucketIndexEmpty,
  readBucketIndex,
  removeBlockFromIndex,
  writeBucketIndex,
} from './bucket_index.js';
import { BucketIndexCorruptedError, BucketIndexNotFoundError } from './bucket_index_codec.js';
import {
  parseSyncStatus,
  readSyncStatus,
  serializeSyncStatus,
  unknownSyncStatus,
  writeSyncStatus,
} from './bucket_index_sync_status.js';
import { bucketIndexPath, bucketIndexSyncStatusPath } from './layout.js';
import { testBlockMeta, testUlid } from './testing.js';
import type { BucketIndex } from './types.js';

const A = testUlid(1_600_000_000_000, 1);
const B = testUlid(1_600_000_000_000, 2);

function bucket(): MemoryBucket {
  return new MemoryBucket({ clock: new ManualClock(0) });
}

describe('bucket index storage', () => {
  it('not found, written, read back, deleted', async () => {
    const bkt = bucket();
    await expect(readBucketIndex(bkt, 't')).rejects.toBeInstanceOf(BucketIndexNotFoundError);
    const idx: BucketIndex = { version: 1, blocks: [], block_deletion_marks: [], updated_at: 1 };
    await writeBucketIndex(bkt, 't', idx);
    expect(await readBucketIndex(bkt, 't')).toEqual(idx);
    await deleteBucketIndex(bkt, 't');
    await deleteBucketIndex(bkt, 't');
    await expect(readBucketIndex(bkt, 't')).rejects.toBeInstanceOf(BucketIndexNotFoundError);
  });

  it('an unreadable object is corrupted, not missing', async () => {
    const bkt = bucket();
    await bkt.upload(bucketIndexPath('t'), new Uint8Array([1, 2, 3]));
    await expect(readBucketIndex(bkt, 't')).rejects.toBeInstanceOf(BucketIndexCorruptedError);
  });
});

describe('index operations', () => {
  const idx = (): BucketIndex => ({
    version: 1,
    blocks: [
      { block_id: A, min_time: 0, max_time: 10, uploaded_at: 1 },
      { block_id: B, min_time: 10, max_time: 20, uploaded_at: 1 },
    ],
    block_deletion_marks: [{ block_id: A, deletion_time: 5 }],
    updated_at: 1,
  });

  it('removes a block with its mark', () => {
    const i = idx();
    removeBlockFromIndex(i, A);
    expect(i.blocks.map((b) => b.block_id)).toEqual([B]);
    expect(i.block_deletion_marks).toEqual([]);
    expect(isBucketIndexEmpty(i)).toBe(false);
    removeBlockFromIndex(i, B);
    expect(isBucketIndexEmpty(i)).toBe(true);
  });

  it('finds unmarked blocks overlapping an inclusive range (blocks are half-open)', () => {
    expect(activeBlocksWithin(idx(), 0, 100).map((b) => b.block_id)).toEqual([B]);
    expect(activeBlocksWithin(idx(), 20, 30)).toEqual([]);
    expect(activeBlocksWithin(idx(), 19, 19).map((b) => b.block_id)).toEqual([B]);
  });
});

describe('index entries from meta.json', () => {
  it('detects 1-based six-digit segments from files, or from segment_files', () => {
    const meta = testBlockMeta('t', A, { segments: 3, seriesMaxSize: 64 });
    expect(blockFromMeta(meta, 42)).toEqual({
      block_id: A,
      min_time: 0,
      max_time: 7_200_000,
      segments_format: '1b6d',
      segments_num: 3,
      series_max_size: 64,
      uploaded_at: 42,
    });
    const thanos = meta.thanos!;
    expect(detectSegmentsFormat({ ...meta, thanos: { ...thanos, files: [] } })).toBeUndefined();
    expect(
      detectSegmentsFormat({ ...meta, thanos: { ...thanos, segment_files: ['000001', '000002'] } }),
    ).toEqual({ format: '1b6d', num: 2 });
    expect(
      detectSegmentsFormat({ ...meta, thanos: { ...thanos, segment_files: ['000002'] } }),
    ).toBeUndefined();
    expect(
      detectSegmentsFormat({
        ...meta,
        thanos: {
          ...thanos,
          files: [{ rel_path: 'chunks/000001' }, { rel_path: 'chunks/000003' }],
        },
      }),
    ).toBeUndefined();
  });
});

describe('bucket-index-sync-status.json', () => {
  it('is Go JSON with Cortex field order and spelling', () => {
    const s = { ...unknownSyncStatus(), status: 'Ok' as const, sync_ime: 17 };
    const json = serializeSyncStatus(s);
    expect(json).toBe(
      '{"sync_ime":17,"version":1,"status":"Ok","non_queryable_until":0,"non_queryable_reason":"Unknown"}',
    );
    expect(parseSyncStatus(json, 'f')).toEqual(s);
    expect(() => parseSyncStatus('{"version":1,"status":"Fine"}', 'f')).toThrow(/field status/);
  });

  it('missing reads as Unknown', async () => {
    const bkt = bucket();
    expect(await readSyncStatus(bkt, 't')).toEqual(unknownSyncStatus());
    const s = { ...unknownSyncStatus(), status: 'GenericError' as const };
    await writeSyncStatus(bkt, 't', s);
    expect(await bkt.exists(bucketIndexSyncStatusPath('t'))).toBe(true);
    expect(await readSyncStatus(bkt, 't')).toEqual(s);
  });
});
