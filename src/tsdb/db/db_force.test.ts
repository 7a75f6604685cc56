import { describe, expect, it } from 'vitest';
import { isFromOutOfOrder } from '../block/index.js';
import { ManualClock } from '../../runtime/testing/index.js';
import { rangeForTimestamp } from '../chunkenc/index.js';
import { OutOfBoundsError } from '../head/index.js';
import { listCheckpoints } from '../wal/index.js';
import { DiskFileSystem } from '../../../sim/testing/index.js';
import {
  appendAll,
  dump,
  expectedDump,
  labelsOf,
  openDB,
  RANGE,
  regularSamples,
} from './testing/helpers.js';

const START = 1_700_000_123_456; // not aligned to the 2h block range
const SMALL = { stripeSize: 16 };

function spans(db: { blocks(): readonly { meta: { minTime: number; maxTime: number } }[] }) {
  return db.blocks().map((b) => [b.meta.minTime, b.meta.maxTime]);
}

describe('forced head compaction (flush)', () => {
  it('cuts a head far shorter than 1.5 ranges into one block ending past its max time', async () => {
    const db = await openDB(new DiskFileSystem(), SMALL);
    const last = START + 10 * 60_000;
    const samples = regularSamples(3, START, last, 15_000);
    await appendAll(db, samples);
    expect((await db.compactHead()).blocks).toEqual([]);
    const before = await dump(db);
    const res = await db.compactHead({ force: true });
    expect(res.blocks).toHaveLength(1);
    expect(res.ranges).toEqual([{ mint: START, maxt: last + 1 }]);
    expect(spans(db)).toEqual([[START, last + 1]]);
    expect(res.blocks[0]?.stats?.numSamples).toBe(samples.length);
    expect(await dump(db)).toEqual(before);
    expect(before).toEqual(expectedDump(samples));
    // The head is empty but keeps its max time; nothing at or before it is accepted.
    expect(db.head.seriesCount()).toBe(0);
    expect(db.head.maxTime()).toBe(last);
    expect(db.head.minValidTime()).toBe(last + 1);
    await db.close();
  });

  it('cuts every range the head covers, aligned to the block range', async () => {
    const db = await openDB(new DiskFileSystem(), SMALL);
    const last = START + 2 * RANGE; // across two boundaries; the normal rule would cut one
    const samples = regularSamples(4, START, last, 60_000);
    await appendAll(db, samples);
    const res = await db.compactHead({ force: true });
    const b1 = rangeForTimestamp(START, RANGE);
    const b2 = b1 + RANGE;
    expect(b2).toBeLessThanOrEqual(last);
    // A block starts at its oldest sample, as a normally cut one does.
    const firstFrom = (t: number) => Math.min(...samples.filter((x) => x.t >= t).map((x) => x.t));
    expect(spans(db)).toEqual([
      [START, b1],
      [firstFrom(b1), b2],
      [firstFrom(b2), last + 1],
    ]);
    expect(res.blocks.map((m) => m.stats?.numSamples)).toEqual([
      samples.filter((s) => s.t < b1).length,
      samples.filter((s) => s.t >= b1 && s.t < b2).length,
      samples.filter((s) => s.t >= b2).length,
    ]);
    expect(await dump(db)).toEqual(expectedDump(samples));
    // Forcing again finds nothing left to cut.
    const again = await db.compactHead({ force: true });
    expect(again.blocks).toEqual([]);
    expect(again.ranges).toEqual([]);
    expect(db.blocks()).toHaveLength(3);
    await db.close();
  });

  it('truncates the whole WAL: only the segment being written and one checkpoint stay', async () => {
    const fs = new DiskFileSystem();
    const db = await openDB(fs, { ...SMALL, walSegmentSize: 32 * 1024 });
    await appendAll(db, regularSamples(20, START, START + RANGE, 5_000), 20);
    const segmentsOf = async () =>
      (await fs.readdir('/data/tenant/wal')).filter((n) => /^\d+$/.test(n)).map(Number);
    const before = await segmentsOf();
    expect(before.length).toBeGreaterThan(3);
    await db.compactHead({ force: true });
    const after = await segmentsOf();
    expect(after).toHaveLength(1);
    expect(after[0]).toBeGreaterThan(Math.max(...before));
    const checkpoints = await listCheckpoints('/data/tenant/wal', { fs });
    expect(checkpoints.map((c) => c.index)).toEqual([(after[0] as number) - 1]);
    await db.close();
  });

  it('reopens after a forced cut and a crash with nothing replayed twice', async () => {
    const fs = new DiskFileSystem();
    const db = await openDB(fs, { ...SMALL, walSegmentSize: 32 * 1024 });
    const samples = regularSamples(5, START, START + 0.7 * RANGE, 20_000);
    await appendAll(db, samples);
    await db.compactHead({ force: true });
    await db.head.wal?.sync();
    const reopened = await openDB(fs, SMALL);
    expect(spans(reopened)).toEqual(spans(db));
    expect(reopened.head.seriesCount()).toBe(0);
    expect(await dump(reopened)).toEqual(expectedDump(samples));
    await reopened.close();
  });

  it('accepts appends after the old max time, refuses older ones, and keeps them on reopen', async () => {
    const fs = new DiskFileSystem();
    const db = await openDB(fs, SMALL);
    const last = START + 30 * 60_000;
    const samples = regularSamples(2, START, last, 60_000);
    await appendAll(db, samples);
    await db.compactHead({ force: true });
    for (const t of [last, last - 60_000, START]) {
      const app = db.appender();
      expect(() => app.append(labelsOf(0), t, 1)).toThrow(OutOfBoundsError);
      app.rollback();
    }
    const later = [
      { series: 0, t: last + 1, v: 10 },
      { series: 1, t: last + 1, v: 11 },
      { series: 0, t: last + RANGE, v: 12 },
    ];
    await appendAll(db, later);
    expect(db.head.seriesCount()).toBe(2);
    expect(db.head.minTime()).toBe(last + 1);
    expect(await dump(db)).toEqual(expectedDump([...samples, ...later]));
    await db.head.wal?.sync();
    // Another clock: the seeded ULID entropy would otherwise repeat the first block's name.
    const reopened = await openDB(fs, SMALL, new ManualClock(START + RANGE));
    expect(await dump(reopened)).toEqual(expectedDump([...samples, ...later]));
    // The next forced cut continues where the last one ended, without overlap.
    await reopened.compactHead({ force: true });
    const cut = spans(reopened);
    expect(cut.slice(0, 1)).toEqual([[START, last + 1]]);
    expect(cut.slice(1)).toEqual([
      [last + 1, rangeForTimestamp(last + 1, RANGE)],
      [last + RANGE, last + RANGE + 1],
    ]);
    expect(await dump(reopened)).toEqual(expectedDump([...samples, ...later]));
    await reopened.close();
  });

  it('also cuts the out-of-order data and truncates the WBL', async () => {
    const fs = new DiskFileSystem();
    const config = { ...SMALL, outOfOrderTimeWindow: RANGE };
    const db = await openDB(fs, config);
    const inOrder = [{ series: 0, t: START + RANGE / 2, v: 1 }];
    const late = [
      { series: 0, t: START, v: 2 },
      { series: 1, t: START + 1, v: 3 },
    ];
    await appendAll(db, inOrder);
    await appendAll(db, late);
    const res = await db.compactHead({ force: true });
    expect(res.blocks).toHaveLength(1);
    expect(res.oooBlocks.length).toBeGreaterThan(0);
    expect(res.oooBlocks.every((m) => isFromOutOfOrder(m))).toBe(true);
    expect(db.head.seriesCount()).toBe(0);
    expect(await dump(db)).toEqual(expectedDump([...inOrder, ...late]));
    await db.sync();
    const reopened = await openDB(fs, config);
    expect(reopened.head.seriesCount()).toBe(0);
    expect(await dump(reopened)).toEqual(expectedDump([...inOrder, ...late]));
    await reopened.close();
  });
});
