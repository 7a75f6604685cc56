// The block cut must not change any query answer: whatever was appended, querying the head
// and querying after compaction moved part of it into blocks give bit-identical results.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DiskFileSystem } from '../../../sim/testing/index.js';
import {
  appendAll,
  dump,
  expectedDump,
  fromBits,
  openDB,
  RANGE,
  type Sample,
} from './testing/helpers.js';

const START = 1_700_000_000_000;
const STALE = fromBits(0x7ff0000000000002n);

const value = fc.oneof(
  fc.double(),
  fc.constant(STALE),
  fc.constant(fromBits(0x7ff8000000000001n)),
  fc.integer({ min: -1000, max: 1000 }),
);

/** Per series, distinct timestamps spread over 0..4 block ranges, merged in time order. */
const sampleSets = fc
  .array(fc.uniqueArray(fc.integer({ min: 0, max: 4 * RANGE }), { minLength: 1, maxLength: 60 }), {
    minLength: 1,
    maxLength: 5,
  })
  .chain((perSeries) =>
    fc
      .array(value, {
        minLength: perSeries.flat().length,
        maxLength: perSeries.flat().length,
      })
      .map((values) => {
        const samples: Sample[] = [];
        let k = 0;
        perSeries.forEach((ts, series) => {
          for (const t of ts) samples.push({ series, t: START + t, v: values[k++] as number });
        });
        // A series spanning more than 1.5 ranges, so the head is always compactable.
        samples.push(
          { series: 99, t: START, v: 0 },
          { series: 99, t: START + 4 * RANGE + 1, v: 1 },
        );
        return samples.sort((a, b) => a.t - b.t || a.series - b.series);
      }),
  )
  // The same series and time twice would be a duplicate, not a sample set.
  .filter((s) => new Set(s.map((x) => `${x.series}/${x.t}`)).size === s.length);

describe('head compaction preserves query answers', () => {
  it('querying before and after the cut gives the same samples, bit-exact', async () => {
    await fc.assert(
      fc.asyncProperty(
        sampleSets,
        fc.integer({ min: 0, max: 4 * RANGE }),
        fc.integer({ min: 0, max: 4 * RANGE }),
        async (samples, a, b) => {
          const db = await openDB(new DiskFileSystem(), { stripeSize: 4 });
          await appendAll(db, samples, 17);
          const [mint, maxt] = [START + Math.min(a, b), START + Math.max(a, b)];
          const before = await dump(db);
          const beforeRange = await dump(db, mint, maxt);
          expect(before).toEqual(expectedDump(samples));
          const { blocks } = await db.compactHead();
          expect(blocks.length).toBeGreaterThan(0);
          expect(await dump(db)).toEqual(before);
          expect(await dump(db, mint, maxt)).toEqual(beforeRange);
          await db.close();
        },
      ),
      { numRuns: 40 },
    );
  });
});
