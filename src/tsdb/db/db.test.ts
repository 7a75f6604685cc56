import { describe, expect, it } from 'vitest';
import { Matcher } from '../../model/index.js';
import type { FileSystem } from '../../runtime/index.js';
import { ManualClock } from '../../runtime/testing/index.js';
import { TMP_FOR_CREATION_SUFFIX } from '../block/index.js';
import { OutOfBoundsError } from '../head/index.js';
import { listCheckpoints } from '../wal/index.js';
import { DiskFileSystem } from '../../../sim/testing/index.js';
import { rangeForTimestamp } from '../chunkenc/index.js';
import {
  appendAll,
  dump,
  expectedDump,
  HOUR,
  labelsOf,
  openDB,
  RANGE,
  regularSamples,
} from './testing/helpers.js';

const START = 1_700_000_123_456; // not aligned to the 2h block range
const SMALL = { stripeSize: 16 };

describe('head compaction: when and where blocks are cut', () => {
  it('cuts nothing until the head spans more than 1.5 block ranges', async () => {
    const db = await openDB(new DiskFileSystem(), SMALL);
    await appendAll(db, regularSamples(3, START, START + 1.5 * RANGE, 60_000));
    expect((await db.compactHead()).blocks).toEqual([]);
    expect(db.blocks()).toHaveLength(0);
    await appendAll(db, [{ series: 0, t: START + 1.5 * RANGE + 1, v: 1 }]);
    const { blocks } = await db.compactHead();
    expect(blocks).toHaveLength(1);
    await db.close();
  });

  it('cuts [head min, aligned range end): block min is the lowest sample, max the boundary', async () => {
    const db = await openDB(new DiskFileSystem(), SMALL);
    const samples = regularSamples(3, START, START + 2 * RANGE, 15_000);
    await appendAll(db, samples);
    const { blocks } = await db.compactHead();
    expect(blocks).toHaveLength(1);
    const meta = blocks[0]!;
    const boundary = rangeForTimestamp(START, RANGE);
    expect(meta.minTime).toBe(START);
    expect(meta.maxTime).toBe(boundary);
    expect(meta.maxTime % RANGE).toBe(0);
    const inBlock = samples.filter((s) => s.t < boundary);
    expect(meta.stats?.numSamples).toBe(inBlock.length);
    expect(meta.stats?.numSeries).toBe(3);
    // Exactly the block's samples are in the block.
    const block = db.blocks()[0]!;
    expect(block.meta.maxTime).toBe(boundary);
    let n = 0;
    for await (const s of block.select(
      [Matcher.regex('__name__', '.+')],
      0,
      Number.MAX_SAFE_INTEGER,
    )) {
      const it = s.iterator();
      while (it.next() !== 0) {
        expect(it.atT()).toBeLessThan(boundary);
        n++;
      }
    }
    expect(n).toBe(inBlock.length);
    // The head now starts at its first sample after the boundary and keeps at least an hour.
    expect(db.head.minTime()).toBe(
      Math.min(...samples.filter((s) => s.t >= boundary).map((s) => s.t)),
    );
    expect(db.head.maxTime() - db.head.minTime()).toBeGreaterThanOrEqual(HOUR);
    expect(await dump(db)).toEqual(expectedDump(samples));
    await db.close();
  });

  it('loops while compactable, cutting consecutive aligned blocks, and always keeps ≥ 1h', async () => {
    const db = await openDB(new DiskFileSystem(), SMALL);
    const samples = regularSamples(2, START, START + 5 * RANGE + 17, 30_000);
    await appendAll(db, samples);
    const { blocks, ranges } = await db.compactHead();
    expect(blocks.length).toBe(4);
    for (let i = 1; i < blocks.length; i++) {
      // Each block starts at the first sample of its range, and ranges follow each other.
      expect(blocks[i]!.minTime).toBeGreaterThanOrEqual(blocks[i - 1]!.maxTime);
      expect(blocks[i]!.minTime).toBeLessThan(blocks[i - 1]!.maxTime + 30_000);
      expect(blocks[i]!.maxTime - blocks[i - 1]!.maxTime).toBe(RANGE);
    }
    for (const r of ranges) expect(r.maxt % RANGE).toBe(0);
    expect(db.head.maxTime() - db.head.minTime()).toBeGreaterThan(HOUR);
    expect(db.head.maxTime() - db.head.minTime()).toBeLessThanOrEqual(1.5 * RANGE);
    expect(await dump(db)).toEqual(expectedDump(samples));
    await db.close();
  });

  it('truncates the WAL after a cut: old segments removed, a checkpoint written', async () => {
    const fs = new DiskFileSystem();
    const db = await openDB(fs, { ...SMALL, walSegmentSize: 32 * 1024 });
    await appendAll(db, regularSamples(20, START, START + 2 * RANGE, 10_000), 20);
    const before = (await fs.readdir('/data/tenant/wal')).filter((n) => /^\d+$/.test(n));
    expect(before.length).toBeGreaterThan(3);
    await db.compactHead();
    const after = await fs.readdir('/data/tenant/wal');
    const segments = after.filter((n) => /^\d+$/.test(n));
    expect(after.some((n) => n.startsWith('checkpoint.'))).toBe(true);
    expect((await listCheckpoints('/data/tenant/wal', { fs })).length).toBe(1);
    expect(segments).not.toContain(before[0]);
    expect(Number(segments[0])).toBeGreaterThan(Number(before[0]));
    await db.close();
  });
});

describe('reopening', () => {
  it('after a crash gives the same data: blocks plus replayed head, no duplicates', async () => {
    const fs = new DiskFileSystem();
    const db = await openDB(fs, SMALL);
    const samples = regularSamples(4, START, START + 3 * RANGE, 20_000);
    await appendAll(db, samples);
    await db.compactHead();
    expect(db.blocks().length).toBeGreaterThan(0);
    await db.head.wal?.sync();
    // A process crash: the db is abandoned without close; the page cache survives.
    const reopened = await openDB(fs, SMALL);
    expect(reopened.blocks().map((b) => b.meta.ulid)).toEqual(db.blocks().map((b) => b.meta.ulid));
    expect(await dump(reopened)).toEqual(expectedDump(samples));
    await reopened.close();
  });

  it('after a crash between writing the block and truncating the WAL, replays no duplicates', async () => {
    const disk = new DiskFileSystem();
    const failing = failCheckpoints(disk);
    const db = await openDB(failing, { ...SMALL, walSegmentSize: 32 * 1024 });
    const samples = regularSamples(20, START, START + 2 * RANGE, 10_000);
    await appendAll(db, samples, 20);
    await expect(db.compactHead()).rejects.toThrow(/injected/);
    expect((await disk.readdir('/data/tenant')).filter((n) => n !== 'wal')).toHaveLength(1);
    await db.head.wal?.sync();
    const reopened = await openDB(disk, SMALL);
    expect(reopened.blocks()).toHaveLength(1);
    expect(reopened.head.minValidTime()).toBe(rangeForTimestamp(START, RANGE));
    expect(await dump(reopened)).toEqual(expectedDump(samples));
    await reopened.close();
  });

  it('after a power loss right after the block is created, its meta already ends at the boundary', async () => {
    const fs = new DiskFileSystem();
    const db = await openDB(fs, SMALL);
    const samples = regularSamples(3, START, START + 2 * RANGE, 60_000);
    await appendAll(db, samples);
    await db.head.wal?.sync();
    // Right after writeBlock's last step: the parent's sync that makes the renamed block durable.
    fs.powerLossAfter([
      (op) => op.kind === 'rename' && op.path.endsWith(TMP_FOR_CREATION_SUFFIX),
      (op) => op.kind === 'syncDir' && op.path === '/data/tenant',
    ]);
    await expect(db.compactHead()).rejects.toThrow(/power was lost after syncDir/);
    const reopened = await openDB(new DiskFileSystem(fs.disk), SMALL);
    const boundary = rangeForTimestamp(START, RANGE);
    expect(reopened.blocks().map((b) => [b.meta.minTime, b.meta.maxTime])).toEqual([
      [START, boundary],
    ]);
    expect(reopened.head.minValidTime()).toBe(boundary);
    expect(await dump(reopened)).toEqual(expectedDump(samples));
    await reopened.close();
  });

  it('removes a half-created block directory and ignores it', async () => {
    const fs = new DiskFileSystem();
    await fs.mkdir('/data/tenant/01HZZZZZZZZZZZZZZZZZZZZZZZ.tmp-for-creation/chunks', {
      recursive: true,
    });
    const db = await openDB(fs, SMALL);
    expect(db.blocks()).toHaveLength(0);
    expect(await fs.readdir('/data/tenant')).toEqual(['wal']);
    await db.close();
  });

  it('rejects samples older than the newest block’s max time', async () => {
    const fs = new DiskFileSystem();
    const db = await openDB(fs, SMALL);
    await appendAll(db, regularSamples(1, START, START + 2 * RANGE, 60_000));
    await db.compactHead();
    await db.close();
    const reopened = await openDB(fs, SMALL);
    const boundary = rangeForTimestamp(START, RANGE);
    expect(reopened.head.minValidTime()).toBe(boundary);
    // A new series, so only the block floor (not the series' own order) can reject it.
    const app = reopened.appender();
    expect(() => app.append(labelsOf(9), boundary - 1, 1)).toThrow(OutOfBoundsError);
    app.append(labelsOf(9), START + 2 * RANGE - 1, 1);
    await app.commit();
    await reopened.close();
  });
});

describe('the merged querier', () => {
  it('merges series across blocks and head, restricted to the range', async () => {
    const db = await openDB(new DiskFileSystem(), SMALL);
    const samples = regularSamples(3, START, START + 3 * RANGE, 60_000);
    // A series that only lives in the first block, one only in the head.
    samples.unshift({ series: 7, t: START, v: 7 });
    samples.push({ series: 8, t: START + 3 * RANGE, v: 8 });
    samples.sort((a, b) => a.t - b.t);
    await appendAll(db, samples);
    await db.compactHead();
    expect(db.blocks().length).toBe(2);
    expect(await dump(db)).toEqual(expectedDump(samples));
    const mint = START + HOUR;
    const maxt = START + 2 * RANGE;
    expect(await dump(db, mint, maxt)).toEqual(
      expectedDump(samples.filter((s) => s.t >= mint && s.t <= maxt)),
    );
    const q = db.querier(START, START + 3 * RANGE);
    expect(await q.labelNames()).toEqual(['__name__', 'i']);
    expect(await q.labelValues('i')).toEqual(['0', '1', '2', '7', '8']);
    expect(await q.labelValues('i', [Matcher.equal('__name__', 'm1')])).toEqual(['1', '7']);
    expect(await q.labelValues('i', [Matcher.equal('__name__', 'm2')])).toEqual(['2', '8']);
    expect(await q.labelNames([Matcher.equal('i', '8')])).toEqual(['__name__', 'i']);
    expect(await q.labelNames([Matcher.equal('i', 'none')])).toEqual([]);
    // Only the head is in range: block-only series are gone.
    const late = db.querier(START + 3 * RANGE, START + 3 * RANGE);
    expect(await late.labelValues('i')).toEqual(['0', '1', '2', '8']);
    const series = await db.select([Matcher.equal('i', '7')], 0, Number.MAX_SAFE_INTEGER);
    expect(series.map((s) => s.labels.toString())).toEqual([labelsOf(7).toString()]);
    expect(() => db.querier(5, 4)).toThrow(/mint 5 > maxt 4/);
    await db.close();
  });

  it('an unsorted chunk select keeps the head alone in postings order and merges blocks sorted', async () => {
    const db = await openDB(new DiskFileSystem(), SMALL);
    const all = [Matcher.regex('__name__', '.+')];
    const names = (list: readonly { labels: { toString(): string } }[]) =>
      list.map((s) => s.labels.toString());
    // Twelve series created in number order; by labels m0 (0, 3, 6, 9) comes first.
    const byNumber = Array.from({ length: 12 }, (_, i) => labelsOf(i).toString());
    const byLabels = [...byNumber].sort();
    expect(byLabels).not.toEqual(byNumber);
    await appendAll(db, regularSamples(12, START, START + HOUR, 60_000));
    expect(names(await db.selectChunks(all, START, START + HOUR, { sorted: false }))).toEqual(
      byNumber,
    );
    expect(names(await db.selectChunks(all, START, START + HOUR))).toEqual(byLabels);
    // Blocks in range: the head's part must be sorted to be merged with theirs.
    await appendAll(db, regularSamples(12, START + HOUR + 60_000, START + 3 * RANGE, 60_000));
    await db.compactHead();
    expect(db.blocks().length).toBeGreaterThan(0);
    const merged = await db.selectChunks(all, START, START + 3 * RANGE, { sorted: false });
    expect(names(merged)).toEqual(byLabels);
    expect(merged.every((s) => s.chunks.length > 1)).toBe(true);
    await db.close();
  });
});

describe('the compaction loop', () => {
  it('compacts every head_compaction_interval until stopped', async () => {
    const clock = new ManualClock(1_700_000_000_000);
    const db = await openDB(
      new DiskFileSystem(),
      { ...SMALL, headCompactionInterval: 60_000 },
      clock,
    );
    const ac = new AbortController();
    db.start(ac.signal);
    await appendAll(db, regularSamples(2, START, START + 2 * RANGE, 60_000));
    expect(db.blocks()).toHaveLength(0);
    await clock.advance(60_000);
    await settle(() => db.blocks().length === 1);
    expect(db.blocks()).toHaveLength(1);
    ac.abort();
    await appendAll(db, regularSamples(2, START + 2 * RANGE + 60_000, START + 4 * RANGE, 60_000));
    await clock.advance(600_000);
    expect(db.blocks()).toHaveLength(1);
    expect(clock.pendingTimers).toBe(0);
    await db.close();
  });
});

describe('retention', () => {
  it('keeps every block without a deletion policy', async () => {
    const db = await openDB(new DiskFileSystem(), SMALL);
    await appendAll(db, regularSamples(1, START, START + 5 * RANGE, 60_000));
    await db.compactHead();
    expect(db.blocks()).toHaveLength(4);
    expect(await db.applyRetention()).toEqual([]);
    expect(db.blocks()).toHaveLength(4);
    await db.close();
  });

  it('deletes exactly the blocks the policy allows, after compaction and on demand', async () => {
    const fs = new DiskFileSystem();
    const allowed = new Set<string>();
    const asked: { ulid: string; newest: number }[] = [];
    const db = await openDB(fs, {
      ...SMALL,
      blockDeletable: (meta, view) => {
        asked.push({ ulid: meta.ulid, newest: view.newestMaxTime });
        return allowed.has(meta.ulid);
      },
    });
    await appendAll(db, regularSamples(1, START, START + 5 * RANGE, 60_000));
    await db.compactHead();
    const all = db.blocks().map((b) => b.meta);
    expect(all).toHaveLength(4);
    const newest = Math.max(...all.map((m) => m.maxTime));
    // Every loaded block was asked about, with the newest block's max time as the anchor.
    expect(asked.map((a) => a.ulid).sort()).toEqual(all.map((m) => m.ulid).sort());
    expect(new Set(asked.map((a) => a.newest))).toEqual(new Set([newest]));
    allowed.add(all[0]!.ulid);
    allowed.add(all[1]!.ulid);
    expect((await db.applyRetention()).sort()).toEqual([all[0]!.ulid, all[1]!.ulid].sort());
    const kept = db.blocks();
    expect(kept.map((b) => b.meta.ulid)).toEqual([all[2]!.ulid, all[3]!.ulid]);
    const names = (await fs.readdir('/data/tenant')).filter((n) => n !== 'wal');
    expect(names.sort()).toEqual(kept.map((b) => b.meta.ulid).sort());
    await db.close();
  });
});

/** Waits (bounded, by yielding) until `cond` holds; compaction runs a few IO steps. */
async function settle(cond: () => boolean): Promise<void> {
  for (let i = 0; i < 10_000 && !cond(); i++) await new Promise<void>((r) => r());
}

/** The disk, except that creating a WAL checkpoint fails (a crash right after the cut). */
function failCheckpoints(fs: DiskFileSystem): FileSystem {
  return new Proxy(fs, {
    get(target, prop, receiver) {
      const value: unknown = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        if (typeof args[0] === 'string' && args[0].includes('checkpoint.'))
          return Promise.reject(new Error(`injected failure at ${args[0]}`));
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}
