// A read whose view of the database was taken before a head compaction and which reads the
// head after it: the cut range is in a new block its view did not have and no longer in the
// head. Found by the long-term swarm (an ingester answered a query without the block it was
// cutting at that moment); the querier must retake its view and read again.
import { describe, expect, it } from 'vitest';
import { Matcher } from '../../model/index.js';
import { ValueType } from '../chunkenc/index.js';
import { DiskFileSystem } from '../../../sim/testing/index.js';
import type { DBQuerier } from './index.js';
import {
  appendAll,
  expectedDump,
  openDB,
  RANGE,
  regularSamples,
  toBits,
  type Sample,
} from './testing/helpers.js';

const START = 1_700_000_000_000;
const ALL = [Matcher.regex('__name__', '.+')];

async function readAll(q: DBQuerier): Promise<string[]> {
  const out: string[] = [];
  for (const s of await q.select(ALL)) {
    const it = s.iterator();
    while (it.next() !== ValueType.None)
      out.push(`${s.labels.toString()} ${it.atT()} ${toBits(it.atF())}`);
    expect(it.err()).toBeNull();
  }
  return out;
}

describe('a querier whose view predates a head compaction', () => {
  // Two series over two block ranges, and one more only in the first range: the head is
  // compactable, and the cut takes series 2 out of the head entirely.
  const samples: Sample[] = [
    ...regularSamples(2, START, START + 2 * RANGE, 600_000),
    { series: 2, t: START + 1000, v: 42 },
  ].sort((a, b) => a.t - b.t || a.series - b.series);

  it('reads the cut range from the new block: select, label names and values', async () => {
    const db = await openDB(new DiskFileSystem());
    await appendAll(db, samples);
    const before = db.querier(START, START + 3 * RANGE);
    const forNames = db.querier(START, START + 3 * RANGE);
    const forValues = db.querier(START, START + 3 * RANGE);
    const cut = await db.compactHead();
    expect(cut.blocks.length).toBeGreaterThan(0);
    expect(await readAll(before)).toEqual(expectedDump(samples));
    expect(await forNames.labelNames()).toEqual(['__name__', 'i']);
    expect(await forValues.labelValues('i', [Matcher.equal('__name__', 'm2')])).toEqual(['2']);
    await db.close();
  });

  it('reads out-of-order data from its new block after the out-of-order head is compacted', async () => {
    const db = await openDB(new DiskFileSystem(), { outOfOrderTimeWindow: 4 * RANGE });
    await appendAll(db, samples);
    // Late samples in the first range, for a series of their own and an existing one.
    const late: Sample[] = [
      { series: 5, t: START + 2000, v: 7 },
      { series: 0, t: START + 1, v: 8 },
    ];
    await appendAll(db, late);
    const before = db.querier(START, START + 3 * RANGE);
    const cut = await db.compactHead();
    expect(cut.oooBlocks.length).toBeGreaterThan(0);
    expect(await readAll(before)).toEqual(expectedDump([...samples, ...late]));
    await db.close();
  });
});

describe('a querier whose view holds a block that retention deletes', () => {
  it('reads again over the remaining blocks instead of failing on the closed files', async () => {
    // Which block retention may delete, chosen once the blocks exist.
    const doomed: { ulid?: string } = {};
    const db = await openDB(new DiskFileSystem(), {
      blockDeletable: (meta) => meta.ulid === doomed.ulid,
    });
    const samples = regularSamples(2, START, START + 3 * RANGE, 600_000);
    await appendAll(db, samples);
    const blocks = (await db.compactHead()).blocks;
    expect(blocks.length).toBeGreaterThan(1);
    const before = db.querier(START, START + 4 * RANGE);
    const victim = blocks[0] as { ulid: string; minTime: number; maxTime: number };
    doomed.ulid = victim.ulid;
    expect(await db.applyRetention()).toEqual([victim.ulid]);
    // The deleted block's samples are gone by design; everything else is read.
    const kept = samples.filter((s) => s.t < victim.minTime || s.t >= victim.maxTime);
    expect(kept.length).toBeLessThan(samples.length);
    expect(await readAll(before)).toEqual(expectedDump(kept));
    await db.close();
  });
});
