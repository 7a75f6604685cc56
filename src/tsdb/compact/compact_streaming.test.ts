import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DiskFileSystem } from '../../../sim/testing/index.js';
import { Labels, Matcher } from '../../model/index.js';
import { createSeededRandom } from '../../runtime/index.js';
import { ManualClock } from '../../runtime/testing/index.js';
import {
  BlockReader,
  StreamingBlockWriter,
  Tombstones,
  writeBlock,
  writeTombstones,
  type BlockMeta,
  type BlockSeries,
  type BlockSeriesInput,
} from '../block/index.js';
import { ValueType } from '../chunkenc/index.js';
import {
  compactBlocks,
  compactBlocksStreaming,
  mergeSeriesStream,
  mergeSymbolTables,
} from './index.js';

const NOW = 1_700_000_000_000;

function env(fs: DiskFileSystem, seed = 'compact') {
  return { fs, clock: new ManualClock(NOW), random: createSeededRandom(seed).stream('ulid') };
}

function series(
  labels: Record<string, string>,
  samples: Array<[number, number]>,
): BlockSeriesInput {
  return {
    labels: Labels.fromObject(labels),
    timestamps: Float64Array.from(samples.map(([t]) => t)),
    values: Float64Array.from(samples.map(([, v]) => v)),
  };
}

async function write(fs: DiskFileSystem, input: BlockSeriesInput[], seed: string): Promise<string> {
  const meta = await writeBlock('/src', input, {}, env(fs, seed));
  return `/src/${meta.ulid}`;
}

/** Every sample of a block as `labels t v`, in the reader's order. */
async function readAll(fs: DiskFileSystem, dir: string): Promise<string[]> {
  const reader = await BlockReader.open(dir, { fs });
  try {
    const out: string[] = [];
    const all = [Matcher.regex('__name__', '.*')];
    for await (const s of reader.select(all, Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER)) {
      const it = s.iterator();
      while (it.next() === ValueType.Float)
        out.push(`${s.labels.toString()} ${it.atT()} ${it.atF()}`);
      expect(it.err()).toBeNull();
    }
    return out;
  } finally {
    await reader.close();
  }
}

/** `count` series `m{i}` with a sample every 15s over [from, from + 2h). */
function manySeries(count: number, from: number, value: number): BlockSeriesInput[] {
  const out: BlockSeriesInput[] = [];
  for (let i = 0; i < count; i++) {
    const samples: Array<[number, number]> = [];
    for (let t = from; t < from + 7_200_000; t += 15_000) samples.push([t, value + i]);
    out.push(series({ __name__: 'm', i: String(i).padStart(5, '0') }, samples));
  }
  return out;
}

describe('compactBlocksStreaming', () => {
  it('writes the same files compactBlocks writes (no tombstones: same symbols, chunks, index)', async () => {
    const fs = new DiskFileSystem();
    const a = await write(fs, manySeries(40, 0, 1), 'a');
    const b = await write(fs, manySeries(40, 3_600_000, 1), 'b');
    const c = await write(fs, manySeries(20, 7_200_000, 5), 'c');
    const inMemory = await compactBlocks([a, b, c], '/mem', {}, env(fs, 'out'));
    const streamed = await compactBlocksStreaming([a, b, c], '/stream', {}, env(fs, 'out'));
    const m1 = inMemory.meta as BlockMeta;
    const m2 = streamed.meta as BlockMeta;
    expect(m2).toEqual(m1);
    expect(streamed.sharedSeries).toBe(40);
    for (const f of ['index', 'chunks/000001', 'meta.json']) {
      expect(await fs.readFile(`/stream/${m2.ulid}/${f}`)).toEqual(
        await fs.readFile(`/mem/${m1.ulid}/${f}`),
      );
    }
  });

  it('drops tombstoned samples and writes nothing when no sample survives', async () => {
    const fs = new DiskFileSystem();
    const a = await write(
      fs,
      [
        series({ __name__: 'x' }, [
          [10, 1],
          [20, 2],
        ]),
      ],
      'a',
    );
    const deleted = new Tombstones();
    const reader = await BlockReader.open(a, { fs });
    for await (const s of reader.select([Matcher.equal('__name__', 'x')], 0, 100)) {
      deleted.addInterval(s.ref, { mint: 0, maxt: 100 });
    }
    await reader.close();
    await writeTombstones(a, deleted, { fs });
    const result = await compactBlocksStreaming([a], '/out', {}, env(fs));
    expect(result.meta).toBeNull();
    expect(await fs.readdir('/out')).toEqual([]);
  });

  it('merges symbol tables lazily into one sorted, unique table', () => {
    const merged = [...mergeSymbolTables([['', 'a', 'c'], ['b', 'c', 'z'], [], ['', 'é']])];
    expect(merged).toEqual(['', 'a', 'b', 'c', 'z', 'é']);
  });

  it('holds at most one series per source while merging, whatever the number of series', async () => {
    const fs = new DiskFileSystem();
    const sources = [
      await write(fs, manySeries(1500, 0, 1), 'a'),
      await write(fs, manySeries(1500, 0, 1), 'b'),
      await write(fs, manySeries(1500, 3_600_000, 2), 'c'),
    ];
    const readers = await Promise.all(sources.map((d) => BlockReader.open(d, { fs })));
    let pulled = 0;
    let released = 0;
    let peak = 0;
    // Counts every series the merge takes from a source (each holds its loaded chunks).
    const instrument = async function* (it: AsyncGenerator<BlockSeries>) {
      for await (const s of it) {
        pulled++;
        peak = Math.max(peak, pulled - released);
        yield s;
      }
    };
    const all = [Matcher.regex('__name__', '.*')];
    const sets = readers.map((r) => instrument(r.select(all, 0, 10_799_999)));
    const writer = await StreamingBlockWriter.create(
      '/out',
      { meta: { minTime: 0, maxTime: 10_800_000 } },
      env(fs),
    );
    await writer.addSymbols(mergeSymbolTables(readers.map((r) => r.symbols())));
    for await (const s of mergeSeriesStream(sets)) {
      expect(pulled - released).toBeLessThanOrEqual(sources.length);
      await writer.addSeries(s.labels, s.iterator());
      released += s.sourceCount;
    }
    const meta = (await writer.finish()) as BlockMeta;
    for (const r of readers) await r.close();
    expect(pulled).toBe(4500);
    expect(peak).toBeLessThanOrEqual(sources.length);
    expect(meta.stats.numSeries).toBe(1500);
    // 10_800_000 / 15_000 samples per series: a and b are replicas, c overlaps half of them.
    expect(meta.stats.numSamples).toBe(1500 * 720);
  });

  it('property: the output is the sorted, de-duplicated union of overlapping inputs', async () => {
    const sample = fc.tuple(fc.integer({ min: 0, max: 400 }), fc.integer({ min: -5, max: 5 }));
    const block = fc.array(
      fc.record({
        name: fc.constantFrom('a', 'b', 'c', 'd'),
        samples: fc.array(sample, { maxLength: 30 }),
      }),
      { minLength: 1, maxLength: 4 },
    );
    await fc.assert(
      fc.asyncProperty(fc.array(block, { minLength: 1, maxLength: 4 }), async (blocks) => {
        const fs = new DiskFileSystem();
        const expected = new Map<string, Map<number, number>>();
        const dirs: string[] = [];
        for (const [bi, b] of blocks.entries()) {
          const bySeries = new Map<string, Map<number, number>>();
          for (const s of b) {
            const m = bySeries.get(s.name) ?? new Map<number, number>();
            for (const [t, v] of s.samples) if (!m.has(t)) m.set(t, v);
            bySeries.set(s.name, m);
          }
          const input: BlockSeriesInput[] = [];
          for (const [name, m] of bySeries) {
            if (m.size === 0) continue;
            const sorted = [...m].sort(([x], [y]) => x - y);
            input.push(series({ __name__: name }, sorted));
            const e = expected.get(name) ?? new Map<number, number>();
            // The earliest source wins at an equal timestamp.
            for (const [t, v] of sorted) if (!e.has(t)) e.set(t, v);
            expected.set(name, e);
          }
          if (input.length === 0) continue;
          const meta = await writeBlock('/src', input, {}, env(fs, `src${bi}`));
          dirs.push(`/src/${meta.ulid}`);
        }
        if (dirs.length === 0) return;
        const { meta } = await compactBlocksStreaming(dirs, '/out', {}, env(fs));
        const want: string[] = [];
        for (const name of [...expected.keys()].sort()) {
          const m = expected.get(name) as Map<number, number>;
          for (const [t, v] of [...m].sort(([x], [y]) => x - y)) {
            want.push(`{__name__="${name}"} ${t} ${v}`);
          }
        }
        expect(await readAll(fs, `/out/${(meta as BlockMeta).ulid}`)).toEqual(want);
        expect((meta as BlockMeta).stats.numSamples).toBe(want.length);
      }),
      { numRuns: 60, seed: 11 },
    );
  });
});
