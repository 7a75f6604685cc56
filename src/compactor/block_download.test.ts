import { describe, expect, it } from 'vitest';
import { DiskFileSystem } from '../../sim/testing/index.js';
import { blockChunkPath, blockIndexPath, blockMetaPath } from '../bucket/index.js';
import { testBlockMeta, testUlid } from '../bucket/testing.js';
import {
  ForwardingBucket,
  MemoryBucket,
  type Bucket,
  type BucketCallOptions,
} from '../runtime/index.js';
import { ManualClock } from '../runtime/testing/index.js';
import { serializeBlockMeta, type BlockMeta } from '../tsdb/index.js';
import { DOWNLOAD_PART_BYTES, downloadBlocks } from './block_download.js';
import { CorruptBlockError } from './compaction_errors.js';

/** Delegates to a bucket, counting reads in flight and the largest read. */
class CountingBucket extends ForwardingBucket {
  override get name(): string {
    return 'counting';
  }
  inFlight = 0;
  maxInFlight = 0;
  largestRead = 0;

  private async read(run: () => Promise<Uint8Array>): Promise<Uint8Array> {
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    try {
      // A few turns so concurrent reads overlap as they would over a network.
      for (let i = 0; i < 5; i++) await Promise.resolve();
      const data = await run();
      this.largestRead = Math.max(this.largestRead, data.length);
      return data;
    } finally {
      this.inFlight--;
    }
  }
  override get(name: string, opts?: BucketCallOptions): Promise<Uint8Array> {
    return this.read(() => this.inner.get(name, opts));
  }
  override getRange(
    n: string,
    o: number,
    l: number,
    opts?: BucketCallOptions,
  ): Promise<Uint8Array> {
    return this.read(() => this.inner.getRange(n, o, l, opts));
  }
}

const bytes = (n: number, seed: number): Uint8Array =>
  Uint8Array.from({ length: n }, (_, i) => (i * 31 + seed) & 0xff);

/** A block whose files have the given sizes, listed with those sizes in meta.json. */
async function upload(bucket: Bucket, n: number, segmentSizes: number[]): Promise<BlockMeta> {
  const block = testUlid(1_700_000_000_000, n);
  const meta = testBlockMeta('t', block, { segments: segmentSizes.length });
  const files = meta.thanos?.files ?? [];
  for (const [i, size] of segmentSizes.entries()) {
    await bucket.upload(blockChunkPath('t', block, i + 1), bytes(size, n + i));
    (files[i] as { size_bytes?: number }).size_bytes = size;
  }
  await bucket.upload(blockIndexPath('t', block), bytes(200, n));
  await bucket.upload(
    blockMetaPath('t', block),
    new TextEncoder().encode(serializeBlockMeta(meta)),
  );
  return meta;
}

describe('downloadBlocks', () => {
  it('fetches block_sync_concurrency files at a time, big segments in parts', async () => {
    const inner = new MemoryBucket({ clock: new ManualClock() });
    const big = DOWNLOAD_PART_BYTES * 2 + 5;
    const metas = [await upload(inner, 1, [100, big, 300]), await upload(inner, 2, [400, 500])];
    const bucket = new CountingBucket(inner);
    const fs = new DiskFileSystem();
    await downloadBlocks('t', metas, '/work', 3, { bucket, fs });
    expect(bucket.maxInFlight).toBe(3);
    expect(bucket.largestRead).toBe(DOWNLOAD_PART_BYTES);
    for (const m of metas) {
      for (const rel of ['meta.json', 'index', 'chunks/000001', 'chunks/000002']) {
        const want = Buffer.from(await inner.get(`t/${m.ulid}/${rel}`));
        // Buffer.equals: a deep toEqual over 16 MiB crawls.
        expect(want.equals(await fs.readFile(`/work/${m.ulid}/${rel}`))).toBe(true);
      }
    }
    const one = new CountingBucket(inner);
    await downloadBlocks('t', metas, '/again', 1, { bucket: one, fs });
    expect(one.maxInFlight).toBe(1);
  });

  it('calls a block whose listed file is missing or short corrupt', async () => {
    const inner = new MemoryBucket({ clock: new ManualClock() });
    const meta = await upload(inner, 1, [100]);
    await inner.delete(blockChunkPath('t', meta.ulid, 1));
    const err = await downloadBlocks('t', [meta], '/w', 2, {
      bucket: inner,
      fs: new DiskFileSystem(),
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CorruptBlockError);
    expect((err as CorruptBlockError).block).toBe(meta.ulid);
    expect((err as Error).message).toContain('chunks/000001 is missing from the bucket');

    await inner.upload(blockChunkPath('t', meta.ulid, 1), bytes(60, 1));
    await expect(
      downloadBlocks('t', [meta], '/w2', 2, { bucket: inner, fs: new DiskFileSystem() }),
    ).rejects.toThrow(/has 60 bytes, meta.json says 100/);
  });
});
