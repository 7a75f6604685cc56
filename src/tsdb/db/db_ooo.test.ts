// Out-of-order data through the whole database: accepted within the window, merged with
// in-order data on read, cut into `from-out-of-order` blocks after head compaction without
// changing any answer, the WBL truncated afterwards, and everything back after a reopen or a
// power loss.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isFromOutOfOrder } from '../block/index.js';
import {
  DuplicateSampleForTimestampError,
  EMPTY_HEAD_MAX_TIME,
  TooOldSampleError,
  wblDir,
} from '../head/index.js';
import { RecordType, recordType } from '../record/index.js';
import { readRecords } from '../wal/index.js';
import { DiskFileSystem } from '../../../sim/testing/index.js';
import type { TSDB } from './index.js';
import {
  appendAll,
  chunkDump,
  dump,
  expectedDump,
  fromBits,
  labelsOf,
  openDB,
  RANGE,
  toBits,
  type Sample,
} from './testing/helpers.js';

const START = 1_700_000_000_000;
const STALE = fromBits(0x7ff0000000000002n);

const value = fc.oneof(fc.double(), fc.constant(STALE), fc.integer({ min: -1000, max: 1000 }));

/** Samples per series (distinct timestamps over 0..4 ranges), each marked late or not. */
const sampleSets = fc
  .array(
    fc.uniqueArray(
      fc.record({ t: fc.integer({ min: 0, max: 4 * RANGE }), late: fc.boolean(), v: value }),
      { selector: (x) => x.t, minLength: 1, maxLength: 40 },
    ),
    { minLength: 1, maxLength: 4 },
  )
  .chain((perSeries) =>
    fc
      .array(fc.record({ pick: fc.nat(), same: fc.boolean() }), { maxLength: 8 })
      .map((again) => ({ perSeries, again })),
  )
  .map(({ perSeries, again }) => {
    const inOrder: Sample[] = [];
    const late: Sample[] = [];
    perSeries.forEach((list, series) => {
      for (const x of list) (x.late ? late : inOrder).push({ series, t: START + x.t, v: x.v });
    });
    // A series spanning more than 1.5 ranges, so the head is always compactable.
    inOrder.push({ series: 99, t: START, v: 0 }, { series: 99, t: START + 4 * RANGE + 1, v: 1 });
    inOrder.sort((a, b) => a.t - b.t || a.series - b.series);
    // Samples sent again later, with the same value (ignored) or another (refused).
    const all = [...inOrder, ...late];
    const repeats = again.map(({ pick, same }) => {
      const s = all[pick % all.length] as Sample;
      return { ...s, v: same ? s.v : toBits(s.v) === toBits(7.5) ? 8.5 : 7.5 };
    });
    return { inOrder, late, repeats };
  });

/** Appends samples in the given order, `batch` per commit; each one must be accepted. */
async function appendInGivenOrder(db: TSDB, samples: readonly Sample[], batch = 7): Promise<void> {
  for (let i = 0; i < samples.length; i += batch) {
    const app = db.appender();
    for (const s of samples.slice(i, i + batch)) app.append(labelsOf(s.series), s.t, s.v);
    await app.commit();
  }
}

/** Appends samples one by one; returns how many were refused as duplicates. */
async function appendRepeats(db: TSDB, samples: readonly Sample[]): Promise<number> {
  let refused = 0;
  const app = db.appender();
  for (const s of samples) {
    try {
      app.append(labelsOf(s.series), s.t, s.v);
    } catch (err) {
      if (!(err instanceof DuplicateSampleForTimestampError)) throw err;
      refused++;
    }
  }
  await app.commit();
  return refused;
}

async function wblSampleRecords(fs: DiskFileSystem): Promise<number> {
  let n = 0;
  for await (const r of readRecords(wblDir('/data/tenant'), {}, { fs }))
    if (recordType(r) === RecordType.Samples) n++;
  return n;
}

describe('out-of-order data in the database', () => {
  it('answers the same before and after head and out-of-order compaction, and after reopen', async () => {
    await fc.assert(
      fc.asyncProperty(
        sampleSets,
        fc.integer({ min: 0, max: 4 * RANGE }),
        fc.integer({ min: 0, max: 4 * RANGE }),
        async ({ inOrder, late, repeats }, a, b) => {
          const fs = new DiskFileSystem();
          const config = { stripeSize: 4, outOfOrderTimeWindow: 5 * RANGE };
          const db = await openDB(fs, config);
          await appendAll(db, inOrder, 17);
          await appendInGivenOrder(db, late);
          const all = [...inOrder, ...late];
          // The first value for a series and time wins: repeats change nothing.
          const changed = repeats.filter(
            (r) => toBits(r.v) !== toBits(all.find((s) => s.series === r.series && s.t === r.t)!.v),
          ).length;
          expect(await appendRepeats(db, repeats)).toBe(changed);
          const [mint, maxt] = [START + Math.min(a, b), START + Math.max(a, b)];
          const before = await dump(db);
          const beforeRange = await dump(db, mint, maxt);
          expect(before).toEqual(expectedDump(all));
          // The chunk-streaming read answers the same, in-order and out-of-order chunks merged.
          expect(await chunkDump(db, mint, maxt)).toEqual(beforeRange);
          const hadOOO = db.head.oooMaxTime() !== EMPTY_HEAD_MAX_TIME;

          const { blocks, oooBlocks } = await db.compactHead();
          expect(blocks.length).toBeGreaterThan(0);
          expect(oooBlocks.length > 0).toBe(hadOOO);
          for (const m of oooBlocks) {
            expect(isFromOutOfOrder(m)).toBe(true);
            expect(m.minTime % RANGE).toBe(0);
            expect(m.maxTime - m.minTime).toBe(RANGE);
          }
          expect(db.head.oooMaxTime()).toBe(EMPTY_HEAD_MAX_TIME);
          expect(await wblSampleRecords(fs)).toBe(0);
          expect(await dump(db)).toEqual(before);
          expect(await dump(db, mint, maxt)).toEqual(beforeRange);
          expect(await chunkDump(db, mint, maxt)).toEqual(beforeRange);
          expect(await chunkDump(db)).toEqual(before);
          await db.close();

          const reopened = await openDB(fs, config);
          expect(await dump(reopened)).toEqual(before);
          await reopened.close();
        },
      ),
      { numRuns: 30 },
    );
  });

  it('does not let an out-of-order block raise the in-order floor on reopen', async () => {
    const fs = new DiskFileSystem();
    const config = { stripeSize: 4, outOfOrderTimeWindow: RANGE };
    const db = await openDB(fs, config);
    const inOrder: Sample[] = [];
    for (let t = START; t <= START + 2.5 * RANGE; t += 60_000) inOrder.push({ series: 0, t, v: t });
    await appendAll(db, inOrder);
    // Older than series 0's newest sample, so out of order, but late in the head's range.
    const late: Sample[] = [{ series: 0, t: START + 2.3 * RANGE + 1, v: -1 }];
    await appendInGivenOrder(db, late);
    const before = await dump(db);
    const { blocks, oooBlocks } = await db.compactHead();
    expect(oooBlocks).toHaveLength(1);
    expect(oooBlocks[0]!.maxTime).toBeGreaterThan(Math.max(...blocks.map((m) => m.maxTime)));
    await db.close();
    const reopened = await openDB(fs, config);
    // The in-order samples after the in-order block are replayed from the WAL.
    expect(await dump(reopened)).toEqual(before);
    expect(reopened.head.minValidTime()).toBe(Math.max(...blocks.map((m) => m.maxTime)));
    await reopened.close();
  });

  it('keeps synced out-of-order samples through a power loss', async () => {
    const fs = new DiskFileSystem();
    const db = await openDB(fs, { outOfOrderTimeWindow: RANGE });
    await appendAll(db, [{ series: 0, t: START + RANGE, v: 1 }]);
    await appendInGivenOrder(db, [
      { series: 0, t: START + 100, v: 2 },
      { series: 1, t: START + 200, v: 3 },
    ]);
    await db.sync();
    await appendInGivenOrder(db, [{ series: 0, t: START + 300, v: 4 }]); // never synced
    fs.disk.powerLoss(undefined);
    const reopened = await openDB(fs, { outOfOrderTimeWindow: RANGE });
    const got = await dump(reopened);
    expect(got).toEqual(
      expectedDump([
        { series: 0, t: START + 100, v: 2 },
        { series: 0, t: START + RANGE, v: 1 },
        { series: 1, t: START + 200, v: 3 },
      ]),
    );
    await reopened.close();
  });

  it('changes the window of a running database', async () => {
    const db = await openDB(new DiskFileSystem());
    await appendAll(db, [{ series: 0, t: START + RANGE, v: 1 }]);
    const tooOld = async () => {
      const app = db.appender();
      app.append(labelsOf(0), START, 1);
      return app.commit();
    };
    await expect(tooOld()).rejects.toThrow(/out of bounds/);
    db.setOutOfOrderTimeWindow(RANGE);
    await tooOld();
    db.setOutOfOrderTimeWindow(RANGE / 4);
    const app = db.appender();
    expect(() => app.append(labelsOf(0), START + 1, 1)).toThrow(TooOldSampleError);
    app.rollback();
    expect(await dump(db)).toEqual(
      expectedDump([
        { series: 0, t: START, v: 1 },
        { series: 0, t: START + RANGE, v: 1 },
      ]),
    );
    await db.close();
  });
});
