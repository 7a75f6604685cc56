import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MemoryBucket } from '../runtime/index.js';
import { CapturingLogger, ManualClock } from '../runtime/testing/index.js';
import { BucketIndexUpdater, type BucketIndexUpdate } from './bucket_index_updater.js';
import {
  blockMetaPath,
  deletionMarkPath,
  globalDeletionMarkPath,
  globalNoCompactMarkPath,
} from './layout.js';
import { serializeDeletionMark, writeDeletionMark } from './markers.js';
import { RecordingBucket, testUlid, uploadTestBlock } from './testing.js';
import type { BucketIndex } from './types.js';

const T0 = 1_700_000_000_000;
const id = (n: number): string => testUlid(T0 - 86_400_000, n);
const enc = new TextEncoder();

function world(): {
  clock: ManualClock;
  inner: MemoryBucket;
  bucket: RecordingBucket;
  logger: CapturingLogger;
  update: (old?: BucketIndex) => Promise<BucketIndexUpdate>;
} {
  const clock = new ManualClock(T0);
  const inner = new MemoryBucket({ clock });
  const bucket = new RecordingBucket(inner);
  const logger = new CapturingLogger();
  const updater = new BucketIndexUpdater({ tenant: 't' }, { bucket, clock, logger });
  return { clock, inner, bucket, logger, update: (old) => updater.update(old) };
}

describe('BucketIndexUpdater', () => {
  it('indexes complete blocks, reports partial and corrupted ones', async () => {
    const w = world();
    await uploadTestBlock(w.bucket, 't', id(1), { segments: 2, minTime: 10, maxTime: 20 });
    await w.clock.advance(5_500);
    await uploadTestBlock(w.bucket, 't', id(2), { partial: true });
    await uploadTestBlock(w.bucket, 't', id(3), { metaText: '{"ulid": 42' });
    await w.bucket.upload('t/not-a-block/file', new Uint8Array(1));
    await w.bucket.upload('t/bucket-index.json.gz', new Uint8Array(1));
    await w.clock.advance(60_000);

    const u = await w.update();
    expect(u.index).toEqual({
      version: 1,
      blocks: [
        {
          block_id: id(1),
          min_time: 10,
          max_time: 20,
          segments_format: '1b6d',
          segments_num: 2,
          uploaded_at: T0 / 1000,
        },
      ],
      block_deletion_marks: [],
      updated_at: (T0 + 65_000) / 1000,
    });
    expect(u.partials).toEqual([
      {
        block: id(2),
        reason: 'missing-meta',
        objects: [`t/${id(2)}/chunks/000001`, `t/${id(2)}/index`],
        lastModifiedMs: T0 + 5_500,
      },
      {
        block: id(3),
        reason: 'corrupted-meta',
        error: expect.stringMatching(
          new RegExp(`^t/${id(3)}/meta\\.json: meta\\.json: not valid JSON`),
        ) as string,
        objects: [],
        lastModifiedMs: 0,
      },
    ]);
    expect(w.logger.find('corrupted meta.json', 'error')[0]?.fields).toMatchObject({
      user: 't',
      block: id(3),
    });
    expect(w.logger.find('skipped partial block', 'warn')).toHaveLength(1);
  });

  it('a meta.json naming another block is corrupted', async () => {
    const w = world();
    await uploadTestBlock(w.bucket, 't', id(1));
    await w.bucket.upload(blockMetaPath('t', id(2)), await w.bucket.get(blockMetaPath('t', id(1))));
    const u = await w.update();
    expect(u.partials.map((p) => [p.block, p.reason])).toEqual([[id(2), 'corrupted-meta']]);
  });

  it('reuses entries of known blocks and marks without reading them again', async () => {
    const w = world();
    await uploadTestBlock(w.bucket, 't', id(1));
    await uploadTestBlock(w.bucket, 't', id(2));
    await writeDeletionMark(w.bucket, 't', { id: id(1), version: 1, deletion_time: 100 });
    const first = await w.update();
    await uploadTestBlock(w.bucket, 't', id(3));
    w.bucket.calls.length = 0;
    const second = await w.update(first.index);
    // Only the new block: its meta.json, and its own deletion mark (a legacy-only mark?).
    expect(w.bucket.names('get')).toEqual([
      blockMetaPath('t', id(3)),
      deletionMarkPath('t', id(3)),
    ]);
    expect(second.index.blocks.map((b) => b.block_id)).toEqual([id(1), id(2), id(3)]);
    expect(second.index.block_deletion_marks).toEqual([{ block_id: id(1), deletion_time: 100 }]);
  });

  it('drops blocks and marks that are gone; orphan global marks are reported', async () => {
    const w = world();
    await uploadTestBlock(w.bucket, 't', id(1));
    await uploadTestBlock(w.bucket, 't', id(2));
    await writeDeletionMark(w.bucket, 't', { id: id(2), version: 1, deletion_time: 100 });
    const first = await w.update();
    // id(2) deleted, but the delete stopped before its global mark.
    for (const name of await w.inner.list(`t/${id(2)}/`, { recursive: true })) {
      await w.inner.delete(name);
    }
    const second = await w.update(first.index);
    expect(second.index.blocks.map((b) => b.block_id)).toEqual([id(1)]);
    expect(second.index.block_deletion_marks).toEqual([]);
    expect(second.orphanDeletionMarks).toEqual([id(2)]);
  });

  it('reads a block again when its mark vanished while it is still listed', async () => {
    const w = world();
    await uploadTestBlock(w.bucket, 't', id(1));
    await writeDeletionMark(w.bucket, 't', { id: id(1), version: 1, deletion_time: 100 });
    const first = await w.update();
    await w.inner.delete(blockMetaPath('t', id(1)));
    await w.inner.delete(globalDeletionMarkPath('t', id(1)));
    const second = await w.update(first.index);
    expect(second.index.blocks).toEqual([]);
    expect(second.partials.map((p) => p.block)).toEqual([id(1)]);
  });

  it('takes deletion marks found only beside a new block, and counts no-compact marks', async () => {
    const w = world();
    await uploadTestBlock(w.bucket, 't', id(1));
    await w.bucket.upload(
      deletionMarkPath('t', id(1)),
      enc.encode(serializeDeletionMark({ id: id(1), version: 1, deletion_time: 77 })),
    );
    await w.bucket.upload(globalNoCompactMarkPath('t', id(1)), enc.encode('{}'));
    const u = await w.update();
    expect(u.index.block_deletion_marks).toEqual([{ block_id: id(1), deletion_time: 77 }]);
    expect(u.legacyDeletionMarks).toEqual([id(1)]);
    expect(u.noCompactMarks).toBe(1);
  });

  it('skips a corrupted global deletion mark with an error log', async () => {
    const w = world();
    await uploadTestBlock(w.bucket, 't', id(1));
    await w.bucket.upload(globalDeletionMarkPath('t', id(1)), enc.encode('{"id":1}'));
    const u = await w.update();
    expect(u.index.block_deletion_marks).toEqual([]);
    expect(w.logger.find('corrupted block deletion mark', 'error')).toHaveLength(1);
  });

  it('fails on bucket errors other than not-found', async () => {
    const w = world();
    await uploadTestBlock(w.bucket, 't', id(1));
    w.bucket.failWhen = (c) => c.op === 'get' && c.name.endsWith('meta.json');
    await expect(w.update()).rejects.toThrow(/injected failure: get/);
  });

  type BlockState = 'complete' | 'partial' | 'corrupted' | 'absent';
  type MarkState = 'none' | 'global' | 'legacy';

  it('equals a model of the bucket listing (property)', async () => {
    const spec = fc.array(
      fc.record({
        state: fc.constantFrom<BlockState>('complete', 'partial', 'corrupted', 'absent'),
        mark: fc.constantFrom<MarkState>('none', 'global', 'legacy'),
        time: fc.nat({ max: 10_000 }),
      }),
      { maxLength: 8 },
    );
    await fc.assert(
      fc.asyncProperty(spec, fc.boolean(), async (blocks, twice) => {
        const w = world();
        const model = {
          blocks: [] as string[],
          partials: [] as string[],
          marks: [] as string[],
          orphans: [] as string[],
        };
        for (const [i, b] of blocks.entries()) {
          const block = id(i + 1);
          if (b.state !== 'absent') {
            await uploadTestBlock(w.bucket, 't', block, {
              partial: b.state === 'partial',
              ...(b.state === 'corrupted' ? { metaText: 'garbage' } : {}),
            });
          }
          const mark = enc.encode(
            serializeDeletionMark({ id: block, version: 1, deletion_time: b.time }),
          );
          if (b.mark === 'global') {
            await w.bucket.upload(globalDeletionMarkPath('t', block), mark);
            if (b.state !== 'absent') await w.bucket.upload(deletionMarkPath('t', block), mark);
          }
          if (b.mark === 'legacy' && b.state !== 'absent') {
            await w.bucket.upload(deletionMarkPath('t', block), mark);
          }
          if (b.state === 'complete') model.blocks.push(block);
          if (b.state === 'partial' || b.state === 'corrupted') model.partials.push(block);
          if (b.mark === 'global' && b.state !== 'absent') model.marks.push(block);
          if (b.mark === 'legacy' && b.state === 'complete') model.marks.push(block);
          if (b.mark === 'global' && b.state === 'absent') model.orphans.push(block);
        }
        let u = await w.update();
        if (twice) u = await w.update(u.index);
        const sorted = (xs: string[]): string[] => [...xs].sort();
        expect(sorted(u.index.blocks.map((b) => b.block_id))).toEqual(model.blocks);
        expect(u.partials.map((p) => p.block)).toEqual(model.partials);
        expect(sorted(u.index.block_deletion_marks.map((m) => m.block_id))).toEqual(model.marks);
        expect(u.orphanDeletionMarks).toEqual(model.orphans);
      }),
      { numRuns: 60 },
    );
  });
});
