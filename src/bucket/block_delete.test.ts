import { describe, expect, it } from 'vitest';
import { MemoryBucket } from '../runtime/index.js';
import { ManualClock } from '../runtime/testing/index.js';
import { deleteBlock, markBlockForDeletion } from './block_delete.js';
import {
  blockMetaPath,
  deletionMarkPath,
  globalDeletionMarkPath,
  globalNoCompactMarkPath,
  noCompactMarkPath,
} from './layout.js';
import { markBlockForNoCompact, parseDeletionMark, writeDeletionMark } from './markers.js';
import { RecordingBucket, testUlid, uploadTestBlock } from './testing.js';

const T0 = 1_700_000_000_000;
const B = testUlid(T0, 1);
const OTHER = testUlid(T0, 2);

async function markedBlock(): Promise<{
  clock: ManualClock;
  inner: MemoryBucket;
  bucket: RecordingBucket;
}> {
  const clock = new ManualClock(T0);
  const inner = new MemoryBucket({ clock });
  const bucket = new RecordingBucket(inner);
  await uploadTestBlock(inner, 't', B, { segments: 2 });
  await uploadTestBlock(inner, 't', OTHER);
  await uploadTestBlock(inner, 'u', B);
  await markBlockForNoCompact(inner, 't', B, clock, 'manual', '');
  await writeDeletionMark(inner, 't', { id: B, version: 1, deletion_time: T0 / 1000 });
  return { clock, inner, bucket };
}

describe('deleteBlock', () => {
  it('deletes meta.json first, the deletion mark last (both copies), nothing else', async () => {
    const { inner, bucket } = await markedBlock();
    const before = await inner.list('', { recursive: true });
    await deleteBlock(bucket, 't', B);
    const deletes = bucket.names('delete');
    expect(deletes[0]).toBe(blockMetaPath('t', B));
    expect(deletes.slice(-2)).toEqual([deletionMarkPath('t', B), globalDeletionMarkPath('t', B)]);
    expect(deletes).toContain(globalNoCompactMarkPath('t', B));
    expect(deletes.indexOf(globalNoCompactMarkPath('t', B))).toBe(
      deletes.indexOf(noCompactMarkPath('t', B)) + 1,
    );
    const after = await inner.list('', { recursive: true });
    expect(after).toEqual(
      before.filter((n) => !n.startsWith(`t/${B}/`) && !n.includes(`markers/${B}-`)),
    );
    expect(after.some((n) => n.startsWith(`t/${OTHER}/`))).toBe(true);
    expect(after.some((n) => n.startsWith(`u/${B}/`))).toBe(true);
  });

  it('is idempotent: a block that is gone deletes cleanly', async () => {
    const { bucket } = await markedBlock();
    await deleteBlock(bucket, 't', B);
    await deleteBlock(bucket, 't', B);
    await deleteBlock(bucket, 't', testUlid(T0, 99));
  });

  it('resumes after a crash at any step, and every intermediate state is safe', async () => {
    const { bucket: probe } = await markedBlock();
    await deleteBlock(probe, 't', B);
    const steps = probe.calls.filter((c) => c.op === 'delete').length;
    for (let crashAt = 0; crashAt < steps; crashAt++) {
      const { inner, bucket } = await markedBlock();
      let deletes = 0;
      bucket.failWhen = (c) => c.op === 'delete' && deletes++ === crashAt;
      await expect(deleteBlock(bucket, 't', B)).rejects.toThrow(/injected failure/);
      const left = await inner.list(`t/${B}/`, { recursive: true });
      const globalMark = await inner.exists(globalDeletionMarkPath('t', B));
      if (crashAt === 0) {
        expect(left).toContain(blockMetaPath('t', B));
      } else {
        // Partial (no meta.json) and still marked, so the cleaner finishes it.
        expect(left).not.toContain(blockMetaPath('t', B));
        expect(globalMark).toBe(true);
      }
      bucket.failWhen = undefined;
      await deleteBlock(bucket, 't', B);
      expect(await inner.list(`t/${B}/`, { recursive: true })).toEqual([]);
      expect(await inner.exists(globalDeletionMarkPath('t', B))).toBe(false);
    }
  });

  it('refuses arguments that would widen the deleted prefix', async () => {
    const { bucket } = await markedBlock();
    await expect(deleteBlock(bucket, '', B)).rejects.toThrow(/invalid tenant/);
    await expect(deleteBlock(bucket, 't', '')).rejects.toThrow(/invalid block ID/);
    await expect(deleteBlock(bucket, 't', B.toLowerCase())).rejects.toThrow(/invalid block ID/);
    expect(bucket.names('delete')).toEqual([]);
  });
});

describe('markBlockForDeletion', () => {
  it('writes both copies, global first, and skips a marked block', async () => {
    const clock = new ManualClock(T0 + 1_999);
    const bucket = new RecordingBucket(new MemoryBucket({ clock }));
    expect(await markBlockForDeletion(bucket, 't', B, clock, 'source of compacted block')).toBe(
      true,
    );
    expect(bucket.names('upload')).toEqual([
      globalDeletionMarkPath('t', B),
      deletionMarkPath('t', B),
    ]);
    expect(parseDeletionMark(await bucket.get(deletionMarkPath('t', B)), 'f')).toEqual({
      id: B,
      version: 1,
      details: 'source of compacted block',
      deletion_time: T0 / 1000 + 1,
    });
    await clock.advance(10_000);
    expect(await markBlockForDeletion(bucket, 't', B, clock, 'again')).toBe(false);
    expect(
      parseDeletionMark(await bucket.get(globalDeletionMarkPath('t', B)), 'f').deletion_time,
    ).toBe(T0 / 1000 + 1);
  });

  it('gives a block-only mark its missing global copy', async () => {
    const clock = new ManualClock(T0);
    const bucket = new MemoryBucket({ clock });
    const body = new TextEncoder().encode(`{"id":"${B}","version":1,"deletion_time":5}`);
    await bucket.upload(deletionMarkPath('t', B), body);
    expect(await markBlockForDeletion(bucket, 't', B, clock, '')).toBe(false);
    expect(await bucket.get(globalDeletionMarkPath('t', B))).toEqual(body);
  });
});
